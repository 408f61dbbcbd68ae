// Package config reads the configuration file of the metatools server: the
// upstream MCP servers, OpenAPI documents and gRPC services whose tools
// make up the catalogue, the built-in tools, and the policies, search
// options and limits that apply to them.
//
// The file is YAML; [Example] is a commented example that documents every
// field, valid as it is. Strings may refer to environment variables, so
// that secrets stay out of the file:
//
//   - ${NAME} (or $NAME, or ${env:NAME}) is the variable's value; a
//     variable that is not set is an error.
//   - ${NAME:-default} is the value, or default when the variable is
//     unset or empty; ${NAME:-} is the value or nothing, never an error.
//     The default is taken as written: not expanded again, without "}".
//   - "$$" is a literal "$"; so is a "$" before anything but a letter,
//     '_' or '{' ("$5").
//
// A plain (unquoted) value that expands to a number or a boolean is one,
// so "retries: ${RETRIES:-3}" sets a number. Errors quote such strings as
// the file writes them ("${NAME}"), never with the values read from the
// environment, which are often secrets.
//
// [Load] and [Parse] are the one check of a configuration, shared by
// `metatools config validate` and `metatools serve`: they report every
// problem at once, in an [*Error] whose [Problem]s name the file's line,
// its keys and values, never Go's types, and suggest the nearest key for a
// misspelt one:
//
//	cfg, err := config.Load("metatools.yaml")
//	if err != nil { ... } // f.yaml:7: mcpServers[0]: unknown key "comand" (did you mean "command"?)
//
// # The configuration files of MCP hosts
//
// [Load] and [Parse] also read, as they are, the files in which MCP hosts
// keep their servers: Claude Desktop's claude_desktop_config.json,
// Cursor's and Windsurf's mcp.json, Claude Code's .mcp.json, and VS
// Code's mcp.json. Such a file is recognised by its content ([IsHostConfig]):
// a JSON object whose "mcpServers" (or VS Code's "servers") is an object
// mapping a server's name to its entry:
//
//	{"mcpServers": {
//	  "github": {"command": "npx", "args": ["-y", "server-github"], "env": {"TOKEN": "${GH_TOKEN}"}},
//	  "tracker": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${T}"}}
//	}}
//
// [ParseHostConfig] maps each entry onto an [MCPServer] named by its key,
// in the file's order, and leaves every other setting at its default:
//
//   - command, args, env and cwd (the working directory) start a server;
//     url (or Windsurf's serverUrl) and headers reach one over streamable
//     HTTP.
//   - type (or transportType) may be "stdio" or "http" (also spelt
//     "streamable-http", "streamableHttp"); "sse", the older HTTP+SSE
//     transport, is refused, since only streamable HTTP is spoken.
//   - An entry with "disabled": true is skipped; the tools its
//     disabledTools lists are denied by the policy ("server:tool"). Fields
//     hosts keep for themselves (alwaysAllow, autoApprove, timeout,
//     description) are ignored; any other field is an error naming it.
//   - A key that is not a valid name is normalised by [HostServerName]
//     ("Brave Search" becomes "Brave_Search"); two keys that give one name
//     are an error.
//   - Environment variables are expanded as in YAML files, ${env:NAME}
//     included; a host's own variables (${input:...}) are an error. Numbers
//     and booleans in env and headers are taken as their text.
//   - Comments and trailing commas, which VS Code allows, are accepted.
//     Top-level keys other than mcpServers and servers are ignored.
//
// [ImportHostConfig] renders the equivalent metatools YAML, keeping
// ${NAME} references as they are, for users who want to add policies,
// limits or other upstreams.
package config

import (
	"cmp"
	_ "embed"
	"fmt"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/builtin"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// Example is a commented configuration file showing every field.
//
//go:embed example.yaml
var Example string

// Config is the whole configuration.
type Config struct {
	// Server configures the MCP server itself.
	Server Server `yaml:"server"`
	// Search configures tool search.
	Search Search `yaml:"search"`
	// Policy says which tools may run.
	Policy Policy `yaml:"policy"`
	// Limits bound every call.
	Limits Limits `yaml:"limits"`
	// CodeMode configures the execute_code meta-tool.
	CodeMode CodeMode `yaml:"codeMode"`
	// Builtin configures the built-in tools.
	Builtin Builtin `yaml:"builtin"`
	// Telemetry configures OpenTelemetry.
	Telemetry Telemetry `yaml:"telemetry"`
	// Trust configures the pins of upstream tools.
	Trust Trust `yaml:"trust"`
	// MCPServers are upstream MCP servers.
	MCPServers []MCPServer `yaml:"mcpServers"`
	// OpenAPI are HTTP APIs described by OpenAPI documents.
	OpenAPI []OpenAPI `yaml:"openapi"`
	// GRPC are gRPC services offering server reflection.
	GRPC []GRPC `yaml:"grpc"`

	// dir is the directory of the file, against which relative paths are
	// resolved.
	dir string
}

// Trust configures where the upstreams' tools are pinned. Each
// upstream says how far it is trusted ([UpstreamTrust]).
type Trust struct {
	// Store is the file of the pins (a bbolt database, relative to the
	// configuration file); empty means the user's state directory
	// ($XDG_STATE_HOME/metatools/pins.db, or
	// ~/.local/state/metatools/pins.db).
	Store string `yaml:"store"`
}

// UpstreamTrust is how far an upstream's tools, prompts and resource
// templates are trusted: they are an instruction channel to the model.
type UpstreamTrust struct {
	// Trust is the upstream's mode: "pin" (the default) admits new items
	// and pins them, and withholds a changed one until an operator
	// approves it; "review" withholds new ones too; "trusted" checks
	// nothing. Under pin and review, an item whose description or schema
	// holds a high-severity finding (hidden characters, instructions aimed
	// at the model, a name confusable with another upstream's) is withheld
	// too.
	Trust trust.Mode `yaml:"trust"`
	// Approved are fingerprints (as `metatools tools review` shows them)
	// admitted without review, for deployments whose replicas share their
	// approvals through the configuration.
	Approved []trust.Fingerprint `yaml:"approved"`
}

// Telemetry says where the server's OpenTelemetry signals go. Each is off
// unless set. The exporters read the standard OTEL_EXPORTER_OTLP_*
// variables (the endpoint, by default https://localhost:4318, headers,
// timeouts), and OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES describe
// the service (by default metatools).
type Telemetry struct {
	// Traces is where the traces go: "otlp" sends them over OTLP/HTTP.
	Traces string `yaml:"traces"`
	// Metrics is where the metrics go: "otlp" sends them over OTLP/HTTP.
	Metrics string `yaml:"metrics"`
	// Audit is where the audit log goes, one JSON line per tool call that
	// ran or was refused (toolrun.AuditRecord): a file, opened to append and created
	// with mode 0600 (relative to the configuration file), or "stderr".
	Audit string `yaml:"audit"`
	// AuditArguments records the calls' arguments in the audit log, as
	// the runner's maskers show them (secrets hidden).
	AuditArguments bool `yaml:"auditArguments"`
	// Prometheus is the address of the diagnostics listener that serves
	// the metrics at /metrics in Prometheus' text format, apart from the
	// MCP port: HOST:PORT, or :PORT for the loopback interface.
	Prometheus string `yaml:"prometheus"`
	// PrometheusToken is the bearer token a scrape must present; without
	// it, the listener serves the loopback interface only.
	PrometheusToken string `yaml:"prometheusToken"`
}

// AuditStderr is the value of [Telemetry.Audit] that writes the audit log
// to standard error.
const AuditStderr = "stderr"

// TelemetryOTLP is the value of [Telemetry] that exports over OTLP/HTTP.
const TelemetryOTLP = "otlp"

// Server configures the MCP server.
type Server struct {
	// Name is the implementation name reported to clients.
	Name string `yaml:"name"`
	// HTTP configures serving over streamable HTTP.
	HTTP HTTP `yaml:"http"`
	// Passthrough lists tool patterns also exposed directly as MCP tools.
	Passthrough []string `yaml:"passthrough"`
	// ShutdownTimeout bounds how long the server, once told to stop (its
	// stdio client closed its input, or a signal), lets running calls
	// finish and answer (default 10s).
	ShutdownTimeout Duration `yaml:"shutdownTimeout"`
	// StateKey signs the state of a call waiting for its client's input
	// (the requestState of MCP 2026-07-28), so that the retry is
	// accepted as the same call of the same caller, unchanged and not
	// expired. Replicas that serve the same clients need the same key,
	// of 32 bytes or more, written from a secret (`${METATOOLS_STATE_KEY}`);
	// by default each process draws its own, and a retry must reach the
	// process that answered the call.
	StateKey string `yaml:"stateKey"`
}

// HTTP configures the streamable HTTP transport.
type HTTP struct {
	// Addr is the address to listen on, such as "127.0.0.1:8080"; the
	// --http flag overrides it. A port alone (":8080") listens on the
	// loopback interface only. Empty means stdio.
	Addr string `yaml:"addr"`
	// BearerTokens, when set, are required of clients.
	BearerTokens BearerTokens `yaml:"bearerTokens"`
	// Stateless serves without sessions, for replicas behind a load
	// balancer.
	Stateless bool `yaml:"stateless"`
	// SessionIdleTimeout closes a session idle for this long (default
	// 30m).
	SessionIdleTimeout Duration `yaml:"sessionIdleTimeout"`
	// MaxSessions bounds the sessions alive at once (default 1000); a new
	// session closes the one idle the longest.
	MaxSessions int `yaml:"maxSessions"`
	// BodyReadTimeout bounds the reading of a request body (default 30s).
	BodyReadTimeout Duration `yaml:"bodyReadTimeout"`
	// AllowedOrigins are the web origins, besides the server's own and
	// loopback ones, whose pages may call the server from a browser.
	AllowedOrigins []string `yaml:"allowedOrigins"`
	// DrainDelay is how long a stopping server goes on serving after its
	// readiness endpoint (/readyz) starts answering 503, so that a load
	// balancer stops sending it requests before it stops accepting them
	// (default 5s when unset; 0 stops accepting at once). Running calls
	// then have server.shutdownTimeout more to finish.
	DrainDelay *Duration `yaml:"drainDelay"`
	// OAuth, when set, also accepts OAuth access tokens.
	OAuth *OAuth `yaml:"oauth"`
	// Console serves the web console at /ui.
	Console Console `yaml:"console"`
}

// Console configures the web console that serve --http serves at /ui,
// behind the same authentication as /mcp. It is off by default, and a
// server refuses to serve it beyond the loopback interface without
// authentication.
type Console struct {
	// Enabled serves the console.
	Enabled bool `yaml:"enabled"`
	// Run lets the console's users run tools (its "try it" form), through
	// the runner and its policies as any call.
	Run bool `yaml:"run"`
	// Approve lets the console's users review the items quarantined by
	// the trust checks and approve them, as `metatools tools approve`
	// does.
	Approve bool `yaml:"approve"`
}

// Search configures tool search.
type Search struct {
	// Engine is "bm25" (the default) or "lexical".
	Engine string `yaml:"engine"`
	// Limit is the default number of search results.
	Limit int `yaml:"limit"`
	// IndexPath, when set, keeps the BM25 index on disk there.
	IndexPath string `yaml:"indexPath"`
	// Feedback expands each query with the words of its first hits
	// (pseudo-relevance feedback; bm25 only).
	Feedback bool `yaml:"feedback"`
	// Embeddings, when set, adds a semantic ranking from an embedding
	// model to bm25's (bm25 only).
	Embeddings *Embeddings `yaml:"embeddings"`
}

// Embeddings is an OpenAI-compatible embeddings endpoint: OpenAI's,
// Ollama's, vLLM's.
type Embeddings struct {
	// URL is the API's root, up to and including its version
	// ("http://localhost:11434/v1").
	URL string `yaml:"url"`
	// Model names the embedding model ("nomic-embed-text").
	Model string `yaml:"model"`
	// APIKey, when set, is sent as a bearer token; read it from the
	// environment: ${OPENAI_API_KEY}.
	APIKey string `yaml:"apiKey"`
	// Dimensions, when positive, asks a model that can shorten its
	// vectors for vectors of this size.
	Dimensions int `yaml:"dimensions"`
}

// Policy says which tools may run, by patterns of tool IDs ("ns:name",
// "ns:*", globs). Deny wins; an empty allow list allows everything else.
type Policy struct {
	Allow []string `yaml:"allow"`
	Deny  []string `yaml:"deny"`
}

// Limits bound every call.
type Limits struct {
	// Timeout bounds each call, retries included (0: the runner's
	// default, toolrun.DefaultCallTimeout, 60s). A call whose upstream
	// does not answer in time fails with code timeout, naming the tool,
	// the upstream and the timeout.
	Timeout Duration `yaml:"timeout"`
	// MaxConcurrent bounds the calls running at once (0: no bound).
	MaxConcurrent int `yaml:"maxConcurrent"`
	// PerBackend bounds the calls running at once on one backend.
	PerBackend int `yaml:"perBackend"`
	// Retries is the most attempts of a call that fails with a retryable
	// error (0: the default, 3; 1: no retry). A call is retried only when
	// that is safe: its request never reached the upstream, or its tool
	// is idempotent (annotated so by its server, an HTTP GET, HEAD,
	// OPTIONS, PUT or DELETE, a gRPC method declared idempotent, or listed
	// in its upstream's Idempotent).
	Retries int `yaml:"retries"`
	// ConnectTimeout bounds the connection of each upstream at start-up,
	// and each later connection attempt to an MCP server (0: 30s). The
	// first start of an MCP server through a package runner (npx, uvx,
	// pipx, bunx, pnpx), which may download it, gets 2 minutes when this
	// is shorter, unless the server sets its own connectTimeout.
	ConnectTimeout Duration `yaml:"connectTimeout"`
	// ChainSteps is the most steps of one run_chain call (0: the
	// default, 32).
	ChainSteps int `yaml:"chainSteps"`
	// AnswerBytes is the most bytes of one meta-tool answer (0: the
	// default, 8 MiB).
	AnswerBytes int `yaml:"answerBytes"`
	// UpstreamTools is the most tools of one MCP server that are kept
	// (0: the default, 2000); ToolBytes the most bytes of one of its
	// tools' definitions (0: the default, 256 KiB). What is past them is
	// left out and reported, so that a server cannot make the gateway
	// hold without bound.
	UpstreamTools int `yaml:"upstreamTools"`
	ToolBytes     int `yaml:"toolBytes"`
}

// CodeMode configures code mode: the meta-tool execute_code, which runs a
// JavaScript or TypeScript program that calls the catalogue's tools, and
// the command `metatools exec`. The tools a program calls go through the
// runner, so the policy applies to them as to run_tool.
type CodeMode struct {
	// Enabled offers execute_code to clients. It is off by default: a
	// program may make many calls in one request, so a server whose tools
	// are powerful turns it on knowingly. `metatools exec`, run by the
	// user, does not need it.
	Enabled bool `yaml:"enabled"`
	// Timeout bounds a program whose request sets no timeout (0: 30s). It
	// may not exceed Limits.WallTime.
	Timeout Duration `yaml:"timeout"`
	// Limits bound every program (toolCalls, chainSteps, wallTime,
	// outputBytes, concurrency; 0 takes the default); a request may only
	// lower them.
	Limits toolcode.Limits `yaml:"limits"`
	// Admission bounds the programs that run at once (running), those
	// that wait for a place (queued) and the wait (wait); 0 takes the
	// default (toolserver.DefaultAdmission). A program refused a place
	// fails with resource_exhausted, limit executions.
	Admission toolcode.Admission `yaml:"admission"`
	// Profile is the security profile programs run under: "dev" (in the
	// server's process), "standard" (each program in a child process of
	// the runner, under rlimits, a cgroup and bubblewrap where the
	// machine has them) or "hardened" (the runner compiled to
	// WebAssembly). A profile named that the machine cannot enforce stops
	// start-up, naming what is missing. Unset, it is standard where the
	// runner is found and starts (or Sandbox.Runner is set), and dev with
	// a warning elsewhere.
	Profile string `yaml:"profile"`
	// Sandbox configures the standard and hardened profiles.
	Sandbox Sandbox `yaml:"sandbox"`
}

// The security profiles of code mode (see [CodeMode.Profile]).
var codeProfiles = []string{"dev", "standard", "hardened"}

// Sandbox configures where the programs of the standard and hardened
// profiles run, and the limits of their process or module.
type Sandbox struct {
	// Runner is the toolruntime-runner binary that the standard profile
	// starts for each program (default: toolruntime-runner next to the
	// metatools executable, else on the PATH).
	Runner string `yaml:"runner"`
	// WasmModule is toolruntime-runner compiled to WebAssembly, for the
	// hardened profile (default: toolruntime-runner.wasm next to the
	// metatools executable).
	WasmModule string `yaml:"wasmModule"`
	// Bubblewrap says whether the standard profile runs the runner under
	// bubblewrap (Linux namespaces: no network, no host files): "auto"
	// (the default: when bwrap is on the PATH), "require" (start-up fails
	// without it) or "off".
	Bubblewrap string `yaml:"bubblewrap"`
	// Limits are the limits of a program's process or module, written
	// in this section: memory (bytes; 0: 256 MiB), cpuTime (0: 30s),
	// processes (0: 64) and fileSize (bytes; 0: 16 MiB).
	toolruntime.Limits `yaml:",inline"`
}

// The bubblewrap settings of a sandbox (see [Sandbox.Bubblewrap]).
var bubblewrapModes = []string{"auto", "require", "off"}

// Builtin configures the built-in tools.
type Builtin struct {
	// Disabled leaves the built-in tools out of the catalogue.
	Disabled bool `yaml:"disabled"`
	// HTTPAllow lists the hosts the http fetch tool may reach:
	// [internal:]HOST[:PORT], HOST a name, "*.domain", an IP address or a
	// CIDR range, PORT a number or "*" (default 80 and 443). Internal
	// addresses (loopback, private, link-local...) are reached only
	// through an entry naming them or marked internal:; a link-local
	// entry such as 169.254.169.254 needs internal:. Empty means no host.
	HTTPAllow []string `yaml:"httpAllow"`
}

// MCPServer is an upstream MCP server, started as a command or reached at
// a URL.
type MCPServer struct {
	// Name identifies the server; its tools' backends are "mcp:<name>".
	Name string `yaml:"name"`
	// Namespace is the namespace of its tools; it defaults to Name.
	Namespace string `yaml:"namespace"`
	// Command, Args, Env and Dir start the server as a child process
	// speaking MCP over stdio. The process does not get metatools' whole
	// environment: only PATH, HOME, USER, the locale, TMPDIR, TERM,
	// proxies, certificate authorities, the settings of npm, uv and pip
	// (and on Windows SystemRoot and the like), the variables InheritEnv
	// names, and Env.
	Command string            `yaml:"command"`
	Args    []string          `yaml:"args"`
	Env     map[string]string `yaml:"env"`
	Dir     string            `yaml:"dir"`
	// InheritEnv passes more of metatools' environment variables to the
	// process, when they are set: names, prefixes such as "AWS_*", or "*"
	// for all of them. (Env: {NAME: ${NAME}} passes one too, but fails
	// when it is not set.)
	InheritEnv []string `yaml:"inheritEnv"`
	// Stderr says what becomes of the process's standard error, beyond
	// the last lines that errors quote (see [StderrMode]).
	Stderr StderrMode `yaml:"stderr"`
	// ConnectTimeout bounds each connection to the server, overriding
	// limits.connectTimeout.
	ConnectTimeout Duration `yaml:"connectTimeout"`
	// URL is the server's streamable HTTP endpoint, with Headers sent on
	// every request.
	URL     string            `yaml:"url"`
	Headers map[string]string `yaml:"headers"`
	// KeepNames exposes the server's tools, prompts and resources under
	// their own names, without the "<namespace>." prefix: its tools are
	// then listed directly as MCP tools (passthrough), besides being in
	// the catalogue. A name that a meta-tool or another upstream also
	// exposes stops the server at start-up.
	KeepNames bool `yaml:"keepNames"`
	// Idempotent lists the server's tools that are safe to call again
	// after a failure that may have reached the server, beyond those it
	// annotates readOnlyHint or idempotentHint (see [ToolPatterns]).
	Idempotent ToolPatterns `yaml:"idempotent"`
	// UpstreamTrust says how far the server's tools are trusted.
	UpstreamTrust `yaml:",inline"`
}

// OpenAPI is an HTTP API whose operations become tools.
type OpenAPI struct {
	// Name identifies the API.
	Name string `yaml:"name"`
	// Namespace is the namespace of its tools; it defaults to Name.
	Namespace string `yaml:"namespace"`
	// Spec is the document's path (relative to the config file) or URL.
	Spec string `yaml:"spec"`
	// BaseURL overrides the document's server URL.
	BaseURL string `yaml:"baseUrl"`
	// Secrets maps the document's security scheme names to the names of
	// the environment variables holding their secrets; a scheme left out
	// reads <NAMESPACE>_<SCHEME> in upper snake case.
	Secrets map[string]string `yaml:"secrets"`
	// Usernames maps security scheme names to the basic-auth user name or
	// the OAuth2 client ID, which are not secret.
	Usernames map[string]string `yaml:"usernames"`
	// Idempotent lists the API's tools (named after their operations)
	// that are safe to call again after a failure that may have reached
	// the API, beyond the GET, HEAD, OPTIONS, PUT and DELETE operations:
	// a POST that searches, say (see [ToolPatterns]).
	Idempotent ToolPatterns `yaml:"idempotent"`
	// MaxDocumentBytes is the largest document read, in bytes; 0 means
	// openapi.DefaultMaxDocumentBytes (8 MiB). A larger document is
	// refused before it is parsed.
	MaxDocumentBytes int64 `yaml:"maxDocumentBytes"`
	// UpstreamTrust says how far the API's tools are trusted.
	UpstreamTrust `yaml:",inline"`
}

// GRPC is a gRPC service whose methods become tools.
type GRPC struct {
	// Name identifies the service.
	Name string `yaml:"name"`
	// Namespace is the namespace of its tools; it defaults to Name.
	Namespace string `yaml:"namespace"`
	// Address is host:port.
	Address string `yaml:"address"`
	// Services limits the import to these fully-qualified services; empty
	// imports every service but reflection's own.
	Services []string `yaml:"services"`
	// TLS configures transport security; the default is TLS with the
	// system's roots.
	TLS TLS `yaml:"tls"`
	// Idempotent lists the service's tools that are safe to call again
	// after a failure that may have reached the service, beyond the
	// methods whose idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT
	// (see [ToolPatterns]).
	Idempotent ToolPatterns `yaml:"idempotent"`
	// UpstreamTrust says how far the service's tools are trusted.
	UpstreamTrust `yaml:",inline"`
}

// ToolPatterns lists tools of one upstream by their own names, without
// the namespace: names, or globs in the syntax of [path.Match] ("get_*",
// "*" for every tool). In YAML it is a list of patterns, one pattern, or
// a boolean: true stands for every tool, false for none.
//
// An upstream's Idempotent patterns declare tools whose calls are safe to
// run again after a failure that may have reached the upstream: the
// runner retries them (limits.retries) as it does the tools known to be
// idempotent. Declare only tools for which doing something twice does
// no harm.
type ToolPatterns []string

// UnmarshalYAML decodes a list of patterns, one pattern or a boolean.
func (p *ToolPatterns) UnmarshalYAML(n *yaml.Node) error {
	switch {
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null":
		*p = nil
	case n.Kind == yaml.ScalarNode && n.ShortTag() == "!!bool":
		var all bool
		if err := n.Decode(&all); err != nil {
			return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not true or false", n.Line, n.Value)}}
		}
		*p = nil
		if all {
			*p = ToolPatterns{"*"}
		}
	case n.Kind == yaml.ScalarNode:
		*p = ToolPatterns{n.Value}
	case n.Kind == yaml.SequenceNode:
		list := make(ToolPatterns, 0, len(n.Content))
		for _, item := range n.Content {
			if item.Kind != yaml.ScalarNode || item.ShortTag() == "!!null" {
				return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: a tool pattern is a string, such as get_*", item.Line)}}
			}
			list = append(list, item.Value)
		}
		*p = list
	default:
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: expected true, false, a tool pattern or a list of them", n.Line)}}
	}
	return nil
}

// validToolPattern reports what is wrong with a pattern of [ToolPatterns].
func validToolPattern(pattern string) error {
	if pattern == "" {
		return errors.New("empty")
	}
	for i := 0; i < len(pattern); i++ {
		c := pattern[i]
		if toolmodel.ValidateName(string(c)) != nil && !strings.ContainsRune("*?[]^!\\", rune(c)) {
			return fmt.Errorf("byte %q at offset %d: a pattern holds the letters, digits, '_', '.' and '-' of tool names and the glob characters *?[]^!\\", c, i)
		}
	}
	if _, err := path.Match(pattern, ""); err != nil {
		return fmt.Errorf("not a valid glob: %w", err)
	}
	return nil
}

// BearerTokens are the static tokens HTTP clients may present, each
// written as the token alone or as a name and its token
// ({name: ci, token: "${CI_TOKEN}"}): the requests of a named token are
// known by its name (see [toolserver.BearerToken]).
type BearerTokens []toolserver.BearerToken

// UnmarshalYAML decodes a list of tokens, each a string or a mapping of
// its settings (name, token).
func (b *BearerTokens) UnmarshalYAML(n *yaml.Node) error {
	var items []yaml.Node
	if err := n.Decode(&items); err != nil {
		return err
	}
	list := make(BearerTokens, len(items))
	for i, item := range items {
		if item.Kind == yaml.ScalarNode {
			list[i].Token = item.Value
		} else if err := item.Decode(&list[i]); err != nil {
			return err
		}
	}
	*b = list
	return nil
}

// TLS configures a gRPC connection's transport security.
type TLS struct {
	// Insecure disables TLS; it is allowed for loopback addresses only.
	Insecure bool `yaml:"insecure"`
	// CAFile is a PEM file of roots to trust instead of the system's.
	CAFile string `yaml:"caFile"`
	// ServerName overrides the name checked in the server's certificate.
	ServerName string `yaml:"serverName"`
}

// Duration is a time.Duration written as "30s" or "1m30s".
type Duration time.Duration

// UnmarshalYAML decodes a duration string.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := time.ParseDuration(n.Value)
	if err != nil {
		// A type error lets the decoder go on with the other settings.
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %q is not a duration such as 30s", n.Line, n.Value)}}
	}
	*d = Duration(v)
	return nil
}

// Load reads and checks a configuration file: a metatools YAML file, or
// the configuration file of an MCP host (see [Parse]). The problems of a
// file that is read are reported as an [*Error] naming the file.
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "read config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, InFile(err, path)
	}
	cfg.dir = filepath.Dir(path)
	return cfg, nil
}

// InFile returns err, an error of [Parse], [ParseHostConfig] or
// [ImportHostConfig], with its problems placed in the file named file
// ("file:line: ..."), keeping its code.
func InFile(err error, file string) error {
	var e *Error
	if errors.As(err, &e) {
		named := *e
		named.File = file
		return errors.E(cmp.Or(errors.CodeOf(err), errors.InvalidArgument), &named)
	}
	return fmt.Errorf("%s: %w", file, err)
}

// Parse decodes and checks a configuration: the one check of a
// configuration, that `metatools config validate` and `metatools serve`
// share. Unknown keys are errors, so that a misspelt key does not go
// unnoticed (the nearest known key is suggested). References to
// environment variables are expanded in every string (see the package
// documentation); a variable that is not set and has no default is an
// error. Then [Config.Validate] checks the values. Every problem found
// is reported at its line, in an [*Error] of code
// [errors.InvalidArgument]. The configuration file of an MCP host (see
// [IsHostConfig]) is read by [ParseHostConfig].
func Parse(data []byte) (*Config, error) {
	if IsHostConfig(data) {
		return ParseHostConfig(data)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, problemsError([]Problem{syntaxProblem(data, err)})
	}
	var problems []Problem
	add := func(p Problem) { problems = append(problems, p) }
	var exp expansions
	expandEnv(&root, nil, add, &exp)
	if len(problems) > 0 {
		// Values left unexpanded would only add confusing problems.
		sortProblems(problems)
		return nil, problemsError(exp.hide(problems))
	}
	var cfg Config
	if len(root.Content) == 0 {
		return &cfg, nil
	}
	checkShape(&root, reflect.TypeFor[Config](), nil, add)
	shape := len(problems)
	if err := root.Decode(&cfg); err != nil && shape == 0 {
		// The shape check lets through nothing go-yaml refuses; should
		// it, go-yaml's own words are better than silence.
		add(Problem{Message: strings.TrimPrefix(err.Error(), "yaml: ")})
	}
	for _, p := range cfg.problems() {
		// A value is checked only where its shape was right: a key
		// misspelt in an upstream makes it lack that key too.
		if !slices.ContainsFunc(problems[:shape], func(s Problem) bool { return p.at.isPrefixOf(s.at) }) {
			problems = append(problems, p)
		}
	}
	if len(problems) > 0 {
		locate(&root, problems)
		sortProblems(problems)
		return nil, problemsError(exp.hide(problems))
	}
	return &cfg, nil
}

// Validate reports every problem of the values of the configuration, as
// an [*Error] of code [errors.InvalidArgument] whose problems have no
// place (a configuration built in Go has no file); [Load] and [Parse]
// call it and place the problems in the file. It checks all that the
// catalogue and the server would refuse for reasons of configuration:
// names, namespaces shared by two upstreams, tool patterns (with the
// runner's own check, toolrun.AllowDeny.Validate), the settings of each
// MCP server (with the session manager's own check,
// mcpexec.ServerConfig.Validate), URLs, limits and the HTTP settings.
func (c *Config) Validate() error {
	return problemsError(c.problems())
}

// problems returns the problems of the values of c.
func (c *Config) problems() []Problem {
	var p []Problem
	add := func(at keyPath, format string, args ...any) {
		p = append(p, Problem{Path: at.String(), Message: fmt.Sprintf(format, args...), at: at})
	}
	for _, signal := range []struct{ key, value string }{{"traces", c.Telemetry.Traces}, {"metrics", c.Telemetry.Metrics}} {
		if signal.value != "" && signal.value != TelemetryOTLP {
			add(keyPath{"telemetry", signal.key}, "%q must be otlp, or left out for none", signal.value)
		}
	}
	if err := CheckListenAddr(c.Telemetry.Prometheus); err != nil {
		add(keyPath{"telemetry", "prometheus"}, "%v", err)
	}
	if c.Telemetry.PrometheusToken != "" && c.Telemetry.Prometheus == "" {
		add(keyPath{"telemetry", "prometheusToken"}, "needs telemetry.prometheus, the address to serve the metrics on")
	}
	if c.Telemetry.AuditArguments && c.Telemetry.Audit == "" {
		add(keyPath{"telemetry", "auditArguments"}, "needs telemetry.audit, the log to write them to")
	}
	switch c.Search.Engine {
	case "", "bm25", "lexical":
	default:
		add(keyPath{"search", "engine"}, "%q must be bm25 or lexical", c.Search.Engine)
	}
	if c.Search.Limit < 0 || c.Search.Limit > 50 {
		add(keyPath{"search", "limit"}, "%d must be between 0 and 50", c.Search.Limit)
	}
	if c.Search.Engine == "lexical" {
		if c.Search.Feedback {
			add(keyPath{"search", "feedback"}, "applies to the bm25 engine, not to lexical")
		}
		if c.Search.Embeddings != nil {
			add(keyPath{"search", "embeddings"}, "apply to the bm25 engine, not to lexical")
		}
	}
	if e := c.Search.Embeddings; e != nil {
		if !isHTTPURL(e.URL) {
			add(keyPath{"search", "embeddings", "url"}, "%q is not an http(s) URL, such as http://localhost:11434/v1", e.URL)
		}
		if strings.TrimSpace(e.Model) == "" {
			add(keyPath{"search", "embeddings", "model"}, "names the embedding model, such as nomic-embed-text: it must not be empty")
		}
		if e.Dimensions < 0 {
			add(keyPath{"search", "embeddings", "dimensions"}, "must not be negative")
		}
	}
	patterns := func(at keyPath, list []string) {
		for i, pattern := range list {
			if err := checkToolPattern(pattern); err != nil {
				add(at.with(i), "%v", err)
			}
		}
	}
	patterns(keyPath{"policy", "allow"}, c.Policy.Allow)
	patterns(keyPath{"policy", "deny"}, c.Policy.Deny)
	patterns(keyPath{"server", "passthrough"}, c.Server.Passthrough)
	if err := (toolrun.AllowDeny{Allow: c.Policy.Allow, Deny: c.Policy.Deny}).Validate(); err != nil && !slices.ContainsFunc(p, func(q Problem) bool {
		return keyPath{"policy"}.isPrefixOf(q.at)
	}) {
		// The runner refuses what the check above let through.
		add(keyPath{"policy"}, "%v", err)
	}
	if err := builtin.CheckHTTPAllowList(c.Builtin.HTTPAllow...); err != nil {
		add(keyPath{"builtin", "httpAllow"}, "%s", libraryMessage(err))
	}
	nonNegative := func(at keyPath, v int64) {
		if v < 0 {
			add(at, "must not be negative")
		}
	}
	l := c.Limits
	for _, f := range []struct {
		key string
		v   int64
	}{
		{"timeout", int64(l.Timeout)}, {"maxConcurrent", int64(l.MaxConcurrent)}, {"perBackend", int64(l.PerBackend)},
		{"retries", int64(l.Retries)}, {"connectTimeout", int64(l.ConnectTimeout)}, {"chainSteps", int64(l.ChainSteps)},
		{"answerBytes", int64(l.AnswerBytes)}, {"upstreamTools", int64(l.UpstreamTools)}, {"toolBytes", int64(l.ToolBytes)},
	} {
		nonNegative(keyPath{"limits", f.key}, f.v)
	}
	// limitProblem words the refusal of a library's limits at the setting
	// it names, as the other settings' problems are worded.
	limitProblem := func(section keyPath, err error) {
		if at, ok := limitPath(section, err); ok {
			add(at, "must not be negative")
			return
		}
		add(section, "%s", libraryMessage(err))
	}
	cm := c.CodeMode
	nonNegative(keyPath{"codeMode", "timeout"}, int64(cm.Timeout))
	nonNegative(keyPath{"codeMode", "admission", "running"}, int64(cm.Admission.Running))
	nonNegative(keyPath{"codeMode", "admission", "queued"}, int64(cm.Admission.Queued))
	nonNegative(keyPath{"codeMode", "admission", "wait"}, int64(cm.Admission.Wait))
	// The libraries' own checks, at the settings they cover.
	if err := cm.Limits.Validate(); err != nil {
		limitProblem(keyPath{"codeMode", "limits"}, err)
	}
	if cm.Profile != "" && !slices.Contains(codeProfiles, cm.Profile) {
		add(keyPath{"codeMode", "profile"}, "%q is not a profile: %s", cm.Profile, strings.Join(codeProfiles, ", "))
	}
	if b := cm.Sandbox.Bubblewrap; b != "" && !slices.Contains(bubblewrapModes, b) {
		add(keyPath{"codeMode", "sandbox", "bubblewrap"}, "%q is not one of %s", b, strings.Join(bubblewrapModes, ", "))
	}
	if err := cm.Sandbox.Limits.Validate(); err != nil {
		limitProblem(keyPath{"codeMode", "sandbox"}, err)
	}
	if cm.Timeout > 0 && cm.Limits.WallTime > 0 && time.Duration(cm.Timeout) > cm.Limits.WallTime {
		add(keyPath{"codeMode", "timeout"}, "%v is more than limits.wallTime (%v), which bounds every program",
			time.Duration(cm.Timeout), cm.Limits.WallTime)
	}
	h := c.Server.HTTP
	nonNegative(keyPath{"server", "shutdownTimeout"}, int64(c.Server.ShutdownTimeout))
	if n := len(c.Server.StateKey); n > 0 && n < toolops.MinStateKeyBytes {
		add(keyPath{"server", "stateKey"}, "%d bytes: it needs at least %d", n, toolops.MinStateKeyBytes)
	}
	nonNegative(keyPath{"server", "http", "sessionIdleTimeout"}, int64(h.SessionIdleTimeout))
	nonNegative(keyPath{"server", "http", "maxSessions"}, int64(h.MaxSessions))
	nonNegative(keyPath{"server", "http", "bodyReadTimeout"}, int64(h.BodyReadTimeout))
	if h.DrainDelay != nil {
		nonNegative(keyPath{"server", "http", "drainDelay"}, int64(*h.DrainDelay))
	}
	if err := CheckListenAddr(h.Addr); err != nil {
		add(keyPath{"server", "http", "addr"}, "%v", err)
	}
	named := map[string]bool{}
	for i, t := range h.BearerTokens {
		if strings.TrimSpace(t.Token) == "" {
			add(keyPath{"server", "http", "bearerTokens", i}, "empty: every request would be refused")
		}
		switch {
		case strings.ContainsFunc(t.Name, func(r rune) bool { return unicode.IsSpace(r) || !unicode.IsPrint(r) }):
			add(keyPath{"server", "http", "bearerTokens", i, "name"}, "%q: a name has no space nor control character", t.Name)
		case named[t.Name]:
			add(keyPath{"server", "http", "bearerTokens", i, "name"}, "%q names another token too: a name tells who asked", t.Name)
		case t.Name != "":
			named[t.Name] = true
		}
	}
	if h.OAuth != nil {
		h.OAuth.validate(keyPath{"server", "http", "oauth"}, add)
	}
	if !h.Console.Enabled {
		if h.Console.Run {
			add(keyPath{"server", "http", "console", "run"}, "set, but the console is off: set console.enabled too")
		}
		if h.Console.Approve {
			add(keyPath{"server", "http", "console", "approve"}, "set, but the console is off: set console.enabled too")
		}
	}

	names := map[string]string{}
	namespaces := map[string]string{}
	upstream := func(at keyPath, name, ns string) {
		where := at.String()
		nameOK := false
		if err := toolmodel.ValidateName(name); err != nil {
			add(at.with("name"), "%q: %v", name, err)
		} else if prev, dup := names[name]; dup {
			add(at.with("name"), "%q is already the name of %s", name, prev)
		} else {
			names[name] = where
			nameOK = true
		}
		key := "namespace"
		if ns != "" {
			if err := toolmodel.ValidateName(ns); err != nil {
				add(at.with("namespace"), "%q: %v", ns, err)
				return
			}
		} else if key = "name"; !nameOK {
			return // the namespace is the name, whose problem is told
		}
		effective := NamespaceOf(ns, name)
		if prev, dup := namespaces[effective]; dup {
			add(at.with(key), "namespace %q is already the namespace of %s: the tools of two upstreams would share IDs, "+
				"and one upstream would be dropped at start-up; give one a namespace of its own", effective, prev)
			return
		}
		namespaces[effective] = where
	}
	idempotent := func(at keyPath, list ToolPatterns) {
		for i, pattern := range list {
			if err := validToolPattern(pattern); err != nil {
				add(at.with("idempotent", i), "%q: %v", pattern, err)
			}
		}
	}
	trusted := func(at keyPath, t UpstreamTrust) {
		if _, err := trust.ParseMode(string(t.Trust)); err != nil {
			add(at.with("trust"), "%q must be pin, review or trusted", t.Trust)
		}
		for i, f := range t.Approved {
			if !f.Valid() {
				add(at.with("approved", i), "%q is not a fingerprint: 64 lower-case hex digits, as metatools tools review shows them", f)
			}
		}
	}
	for i, s := range c.MCPServers {
		at := keyPath{"mcpServers", i}
		upstream(at, s.Name, s.Namespace)
		idempotent(at, s.Idempotent)
		trusted(at, s.UpstreamTrust)
		validateProcess(at, s, add)
		before := len(p)
		switch {
		case s.Command == "" && s.URL == "":
			add(at, "needs a command (a server to start) or a url (a server to reach)")
		case s.Command != "" && s.URL != "":
			add(at, "has both a command and a url: a server is started or reached, not both")
		case s.URL != "":
			if !isHTTPURL(s.URL) {
				add(at.with("url"), "%q is not an http(s) URL", s.URL)
			}
			for _, f := range []struct {
				key string
				set bool
			}{{"args", len(s.Args) > 0}, {"env", len(s.Env) > 0}, {"dir", s.Dir != ""}} {
				if f.set {
					add(at.with(f.key), "applies to a server started by a command, not to one reached at a url")
				}
			}
		case len(s.Headers) > 0:
			add(at.with("headers"), "apply to a server reached at a url, not to one started by a command")
		}
		if len(p) == before {
			// The session manager's own check, for whatever else it
			// refuses (a NUL byte, an invalid header name).
			exec := mcpexec.ServerConfig{Command: s.Command, Args: s.Args, Env: s.Env, Dir: s.Dir, URL: s.URL, Headers: s.Headers}
			if err := exec.Validate(); err != nil {
				add(at, "%s", strings.TrimPrefix(err.Error(), "invalid MCP server configuration: "))
			}
		}
	}
	for i, o := range c.OpenAPI {
		at := keyPath{"openapi", i}
		upstream(at, o.Name, o.Namespace)
		idempotent(at, o.Idempotent)
		trusted(at, o.UpstreamTrust)
		if o.Spec == "" {
			add(at, "needs a spec: the path or URL of an OpenAPI document")
		}
		if o.BaseURL != "" && !isHTTPURL(o.BaseURL) {
			add(at.with("baseUrl"), "%q is not an http(s) URL", o.BaseURL)
		}
		nonNegative(at.with("maxDocumentBytes"), o.MaxDocumentBytes)
	}
	for i, g := range c.GRPC {
		at := keyPath{"grpc", i}
		upstream(at, g.Name, g.Namespace)
		idempotent(at, g.Idempotent)
		trusted(at, g.UpstreamTrust)
		if g.Address == "" {
			add(at, "needs an address, host:port")
		}
	}
	return p
}

// checkToolPattern reports what is wrong with a pattern of tool IDs of
// the policy or of passthrough: the runner's own check
// (toolrun.AllowDeny), which refuses an invalid glob, and no spaces,
// which no tool ID holds.
func checkToolPattern(pattern string) error {
	if pattern == "" {
		return errors.New(`empty: a pattern is a tool ID ("ns:name") or a glob ("ns:*", "*:delete_*")`)
	}
	if strings.ContainsAny(pattern, " \t") {
		return fmt.Errorf("%q holds a space, which no tool ID does", pattern)
	}
	if err := (toolrun.AllowDeny{Allow: []string{pattern}}).Validate(); err != nil {
		_, matchErr := path.Match(pattern, "")
		if matchErr == nil {
			return err // a check of the runner's own, beyond globs
		}
		return fmt.Errorf("%q is not a valid pattern (%w): a pattern is a tool ID (\"ns:name\") or a glob (\"ns:*\", \"*:delete_*\")", pattern, matchErr)
	}
	return nil
}

func isHTTPURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != ""
}

// Path resolves a path of the configuration against the file's directory.
// URLs and absolute paths are returned as they are.
func (c *Config) Path(p string) string {
	if p == "" || filepath.IsAbs(p) || isHTTPURL(p) || c.dir == "" {
		return p
	}
	return filepath.Join(c.dir, p)
}

// NamespaceOf returns the namespace of an upstream: its own, or its name.
func NamespaceOf(namespace, name string) string {
	if namespace != "" {
		return namespace
	}
	return name
}

// CheckListenAddr refuses an address to serve HTTP on that is not
// HOST:PORT or :PORT, or whose port is a number past 65535; "" is no
// address. A port that is not a number (a service name) is left to the
// listener.
func CheckListenAddr(addr string) error {
	if addr == "" {
		return nil
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%q is not HOST:PORT or :PORT", addr)
	}
	if n, err := strconv.ParseUint(port, 10, 64); err == nil && n > 65535 {
		return fmt.Errorf("%q: port %d is past 65535", addr, n)
	}
	return nil
}

// libraryMessage is the message of a library's check, without the
// operation it names.
func libraryMessage(err error) string {
	var e *errors.Error
	if errors.As(err, &e) && e.Err != nil {
		return e.Err.Error()
	}
	return err.Error()
}

// limitPath is the path, under section, of the setting of the limit a
// library's check refuses (its Meta "limit": tool_calls for toolCalls);
// ok is false when the check names none.
func limitPath(section keyPath, err error) (at keyPath, ok bool) {
	name := toolcode.LimitOf(err)
	if name == "" {
		return section, false
	}
	words := strings.Split(name, "_")
	for i := 1; i < len(words); i++ {
		if words[i] != "" {
			words[i] = strings.ToUpper(words[i][:1]) + words[i][1:]
		}
	}
	return section.with(strings.Join(words, "")), true
}

// TrustStore returns the path of the pin store: [Trust.Store] relative
// to the configuration file, or the user's state directory's
// (trust.DefaultPath).
func (c *Config) TrustStore() (string, error) {
	if c.Trust.Store != "" {
		return c.Path(c.Trust.Store), nil
	}
	return trust.DefaultPath()
}
