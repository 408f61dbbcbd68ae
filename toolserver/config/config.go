// Package config reads the configuration file of the metatools server: the
// upstream MCP servers, OpenAPI documents and gRPC services whose tools
// make up the catalogue, the built-in tools, and the policies, search
// options and limits that apply to them.
//
// The file is YAML; [Example] is a commented example that documents every
// field. Strings may refer to environment variables as ${NAME} (or
// ${env:NAME}), so that secrets stay out of the file; "$$" is a literal
// "$".
// Errors quote such strings as the file writes them ("${NAME}"), never
// with the values read from the environment, which are often secrets.
//
//	cfg, err := config.Load("metatools.yaml")
//	if err != nil { ... } // every problem, with its place in the file
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
//   - An entry with "disabled": true is skipped. Fields hosts keep for
//     themselves (alwaysAllow, autoApprove, disabledTools, timeout,
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
	"bytes"
	"cmp"
	_ "embed"
	"fmt"
	"maps"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolserver/builtin"
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
	// Builtin configures the built-in tools.
	Builtin Builtin `yaml:"builtin"`
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
}

// HTTP configures the streamable HTTP transport.
type HTTP struct {
	// Addr is the address to listen on, such as "127.0.0.1:8080"; the
	// --http flag overrides it. A port alone (":8080") listens on the
	// loopback interface only. Empty means stdio.
	Addr string `yaml:"addr"`
	// BearerTokens, when set, are required of clients.
	BearerTokens []string `yaml:"bearerTokens"`
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
	// OAuth, when set, also accepts OAuth access tokens.
	OAuth *OAuth `yaml:"oauth"`
}

// Search configures tool search.
type Search struct {
	// Engine is "bm25" (the default) or "lexical".
	Engine string `yaml:"engine"`
	// Limit is the default number of search results.
	Limit int `yaml:"limit"`
	// IndexPath, when set, keeps the BM25 index on disk there.
	IndexPath string `yaml:"indexPath"`
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
}

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
			return fmt.Errorf("line %d: %q is not true or false", n.Line, n.Value)
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
				return fmt.Errorf("line %d: a tool pattern is a string, such as get_*", item.Line)
			}
			list = append(list, item.Value)
		}
		*p = list
	default:
		return fmt.Errorf("line %d: expected true, false, a tool pattern or a list of them", n.Line)
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
		return fmt.Errorf("line %d: %q is not a duration such as 30s", n.Line, n.Value)
	}
	*d = Duration(v)
	return nil
}

// Load reads and checks a configuration file: a metatools YAML file, or
// the configuration file of an MCP host (see [Parse]).
func Load(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "read config: %w", err)
	}
	cfg, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	cfg.dir = filepath.Dir(path)
	return cfg, nil
}

// Parse decodes and checks a configuration. Unknown fields are errors, so
// that a misspelt field does not go unnoticed. References to environment
// variables are expanded in every string; a variable that is not set is an
// error. Every problem found is reported, with code
// [errors.InvalidArgument]. The configuration file of an MCP host (see
// [IsHostConfig]) is read by [ParseHostConfig].
func Parse(data []byte) (*Config, error) {
	if IsHostConfig(data) {
		return ParseHostConfig(data)
	}
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "config: %w", err)
	}
	var problems []string
	var exp expansions
	expandEnv(&root, &problems, &exp)
	if len(problems) > 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "config: %s", strings.Join(problems, "; "))
	}
	var cfg Config
	if len(root.Content) > 0 {
		expanded, err := yaml.Marshal(&root)
		if err != nil {
			return nil, exp.hide(errors.Errorf(errors.InvalidArgument, "config: %w", err))
		}
		dec := yaml.NewDecoder(bytes.NewReader(expanded))
		dec.KnownFields(true)
		if err := dec.Decode(&cfg); err != nil {
			return nil, exp.hide(errors.Errorf(errors.InvalidArgument, "config: %w", err))
		}
	}
	if err := cfg.Validate(); err != nil {
		return nil, exp.hide(err)
	}
	return &cfg, nil
}

// expandEnv expands the environment variables of every scalar of the
// tree (see [expandString]), recording what changed in exp. Unset
// variables are reported with their line.
func expandEnv(n *yaml.Node, problems *[]string, exp *expansions) {
	if n.Kind == yaml.ScalarNode {
		n.Value = exp.expand(n.Value, func(msg string) {
			*problems = append(*problems, fmt.Sprintf("line %d: %s", n.Line, msg))
		})
	}
	for _, c := range n.Content {
		expandEnv(c, problems, exp)
	}
}

// expansions remembers the strings of a file that environment variables
// changed, so that errors show them as the file writes them: a value
// taken from the environment is often a secret.
type expansions struct {
	// written maps an expanded value to its form in the file.
	written map[string]string
}

// expand returns s expanded as [expandString] does, and records it when
// the expansion changed it.
func (x *expansions) expand(s string, report func(msg string)) string {
	v := expandString(s, report)
	if v != s {
		if x.written == nil {
			x.written = map[string]string{}
		}
		x.written[v] = s
	}
	return v
}

// hide returns err, of code [errors.InvalidArgument], with every expanded
// value that its message quotes (as Go and YAML quote values: "v", `v`,
// and YAML's `first-7-bytes...` of a longer value) replaced by its form in
// the file. The returned error does not wrap err, whose chain would still
// hold the values.
func (x *expansions) hide(err error) error {
	if err == nil || len(x.written) == 0 {
		return err
	}
	values := slices.Collect(maps.Keys(x.written))
	// Longest first: a value is replaced before another that is part of it.
	slices.SortFunc(values, func(a, b string) int { return cmp.Or(len(b)-len(a), strings.Compare(a, b)) })
	pairs := make([]string, 0, 6*len(values))
	for _, v := range values {
		raw := x.written[v]
		pairs = append(pairs, strconv.Quote(v), strconv.Quote(raw), "`"+v+"`", "`"+raw+"`")
		if len(v) > 10 {
			// go-yaml quotes a longer value by its first 7 bytes.
			pairs = append(pairs, "`"+v[:7]+"...`", "`"+raw+"`")
		}
	}
	msg := strings.NewReplacer(pairs...).Replace(err.Error())
	return errors.E(errors.InvalidArgument, errors.New(msg))
}

// expandString replaces ${NAME} (or $NAME) in s by the variable's value,
// ${env:NAME} likewise (the spelling of VS Code and Cursor), and "$$" by
// "$". An unset variable, or a host's own variable such as
// ${input:token}, is passed to report.
func expandString(s string, report func(msg string)) string {
	if !strings.Contains(s, "$") {
		return s
	}
	return os.Expand(s, func(name string) string {
		if name == "$" {
			return "$"
		}
		if env, ok := strings.CutPrefix(name, "env:"); ok {
			name = env
		} else if strings.Contains(name, ":") {
			report(fmt.Sprintf("${%s} is a variable of an MCP host, which metatools cannot resolve: use an environment variable, ${NAME}", name))
			return ""
		}
		v, ok := os.LookupEnv(name)
		if !ok {
			report(fmt.Sprintf("environment variable %s is not set", name))
		}
		return v
	})
}

// Validate reports every problem of the configuration, with code
// [errors.InvalidArgument].
func (c *Config) Validate() error {
	var p []string
	add := func(format string, args ...any) { p = append(p, fmt.Sprintf(format, args...)) }
	switch c.Search.Engine {
	case "", "bm25", "lexical":
	default:
		add("search.engine %q must be bm25 or lexical", c.Search.Engine)
	}
	if c.Search.Limit < 0 || c.Search.Limit > 50 {
		add("search.limit %d must be between 0 and 50", c.Search.Limit)
	}
	for _, pattern := range append(append(append([]string(nil), c.Policy.Allow...), c.Policy.Deny...), c.Server.Passthrough...) {
		if pattern == "" || strings.ContainsAny(pattern, " \t") {
			add("tool pattern %q is malformed", pattern)
		}
	}
	if err := builtin.CheckHTTPAllowList(c.Builtin.HTTPAllow...); err != nil {
		var e *errors.Error
		msg := err.Error()
		if errors.As(err, &e) && e.Err != nil {
			msg = e.Err.Error()
		}
		add("builtin.httpAllow: %s", msg)
	}
	if c.Limits.Timeout < 0 || c.Limits.ConnectTimeout < 0 || c.Limits.MaxConcurrent < 0 || c.Limits.PerBackend < 0 || c.Limits.Retries < 0 ||
		c.Limits.ChainSteps < 0 || c.Limits.AnswerBytes < 0 {
		add("limits must not be negative")
	}
	if h := c.Server.HTTP; h.SessionIdleTimeout < 0 || h.MaxSessions < 0 || h.BodyReadTimeout < 0 || c.Server.ShutdownTimeout < 0 {
		add("server timeouts and limits must not be negative")
	}
	for i, t := range c.Server.HTTP.BearerTokens {
		if strings.TrimSpace(t) == "" {
			add("server.http.bearerTokens[%d] is empty: every request would be refused", i)
		}
	}
	names := map[string]string{}
	unique := func(kind, name string, i int) {
		where := fmt.Sprintf("%s[%d]", kind, i)
		if err := toolmodel.ValidateName(name); err != nil {
			add("%s.name %q: %v", where, name, err)
			return
		}
		if prev, dup := names[name]; dup {
			add("%s.name %q is already used by %s", where, name, prev)
		}
		names[name] = where
	}
	namespace := func(where, ns string) {
		if ns != "" {
			if err := toolmodel.ValidateName(ns); err != nil {
				add("%s.namespace %q: %v", where, ns, err)
			}
		}
	}
	idempotent := func(where string, patterns ToolPatterns) {
		for _, pattern := range patterns {
			if err := validToolPattern(pattern); err != nil {
				add("%s.idempotent %q: %v", where, pattern, err)
			}
		}
	}
	for i, s := range c.MCPServers {
		unique("mcpServers", s.Name, i)
		where := fmt.Sprintf("mcpServers[%d]", i)
		namespace(where, s.Namespace)
		idempotent(where, s.Idempotent)
		validateProcess(where, s, add)
		switch {
		case s.Command == "" && s.URL == "":
			add("%s needs a command or a url", where)
		case s.Command != "" && s.URL != "":
			add("%s has both a command and a url", where)
		case s.URL != "" && !isHTTPURL(s.URL):
			add("%s.url %q is not an http(s) URL", where, s.URL)
		}
	}
	for i, o := range c.OpenAPI {
		unique("openapi", o.Name, i)
		where := fmt.Sprintf("openapi[%d]", i)
		namespace(where, o.Namespace)
		idempotent(where, o.Idempotent)
		if o.Spec == "" {
			add("%s.spec is missing", where)
		}
		if o.BaseURL != "" && !isHTTPURL(o.BaseURL) {
			add("%s.baseUrl %q is not an http(s) URL", where, o.BaseURL)
		}
		if o.MaxDocumentBytes < 0 {
			add("%s.maxDocumentBytes must not be negative", where)
		}
	}
	for i, g := range c.GRPC {
		unique("grpc", g.Name, i)
		where := fmt.Sprintf("grpc[%d]", i)
		namespace(where, g.Namespace)
		idempotent(where, g.Idempotent)
		if g.Address == "" {
			add("%s.address is missing", where)
		}
	}
	if c.Server.HTTP.OAuth != nil {
		c.Server.HTTP.OAuth.validate(add)
	}
	if len(p) == 0 {
		return nil
	}
	return errors.Errorf(errors.InvalidArgument, "config: %s", strings.Join(p, "; "))
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
