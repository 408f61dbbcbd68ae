package mcpexec

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// ServerConfig says how to reach one MCP server. Exactly one of Command,
// URL and Transport is set:
//
//   - Command runs the server as a child process speaking MCP over its
//     standard input and output, with Args, Env and Dir, in a minimal
//     environment (see Env);
//   - URL reaches a server over the streamable HTTP transport, sending
//     Headers (an "Authorization: Bearer ..." header, for instance) with
//     every request;
//   - Transport returns a fresh [mcp.Transport] for each connection, for
//     servers embedded in the process and for tests (see [InMemory]).
//
// Its JSON form is the usual one of MCP client configurations, such as
// {"command": "github-mcp", "args": ["stdio"], "env": {"TOKEN": "..."}} or
// {"url": "https://example.com/mcp", "headers": {...}}; decoding refuses
// unknown fields, so that a misspelt key is an error rather than a
// setting silently ignored. The fields that hold Go values (Transport,
// HTTPClient, Stderr) have no JSON form.
type ServerConfig struct {
	// Command is the program to run: a path, or a name looked up in PATH.
	Command string `json:"command,omitempty"`
	// Args are the program's arguments.
	Args []string `json:"args,omitempty"`
	// Env holds environment variables set for the program. The program
	// does not get the whole environment of the current process, which
	// may hold secrets meant for it alone: only the variables any program
	// needs (PATH, HOME, USER, the locale, TMPDIR, TERM, proxies and
	// certificate authorities, the settings of npm, uv and pip, and on
	// Windows SystemRoot and the like), those InheritEnv names, and Env,
	// which wins.
	Env map[string]string `json:"env,omitempty"`
	// InheritEnv names more variables of the current process to pass to
	// the program when they are set: a name ("AWS_PROFILE"), a prefix
	// followed by * ("AWS_*"), or * alone for the whole environment.
	InheritEnv []string `json:"inheritEnv,omitempty"`
	// Dir is the program's working directory; empty means the current
	// process's.
	Dir string `json:"dir,omitempty"`
	// TerminateTimeout is how long closing waits for the program to exit
	// once its standard input is closed, before it sends SIGTERM, and then
	// again before SIGKILL. Zero means the manager's default (see
	// [WithTerminateTimeout]).
	TerminateTimeout toolmodel.Duration `json:"terminateTimeout,omitempty"`
	// ConnectTimeout bounds each connection attempt to the server, from
	// starting it to the end of the MCP handshake. Zero means the
	// manager's connect timeout ([WithConnectTimeout]), or, for the first
	// connection to a program started through a package runner (npx,
	// uvx, ...), [PackageRunnerConnectTimeout] when that is longer.
	ConnectTimeout toolmodel.Duration `json:"connectTimeout,omitempty"`
	// Stderr, when set, receives the program's standard error line by
	// line: each line, ending with a newline, in one Write call, one call
	// at a time (a line longer than 4 KiB comes in pieces). It should not
	// block: the program waits while it does. The last lines are kept in
	// any case, and quoted by the errors of failed connections and calls.
	// Lines come without the secrets the program was given (see the
	// package documentation).
	Stderr io.Writer `json:"-"`
	// LogStderr logs each line of the program's standard error, at level
	// Info, through the manager's logger ([WithLogger]), with the
	// server's name.
	LogStderr bool `json:"logStderr,omitempty"`

	// URL is the endpoint of a streamable HTTP server, an absolute http or
	// https URL.
	URL string `json:"url,omitempty"`
	// Headers are sent with every HTTP request to URL.
	Headers map[string]string `json:"headers,omitempty"`
	// HTTPClient, when set, makes the requests to URL; by default each
	// server gets a client of its own.
	HTTPClient *http.Client `json:"-"`

	// Transport returns the transport of a new connection. It is called
	// for each connection, so for each reconnection too, with a context
	// that ends when the connection attempt does.
	Transport func(ctx context.Context) (mcp.Transport, error) `json:"-"`
}

// InMemory returns the configuration of a server that runs in the same
// process: each connection is a pair of in-memory transports, one of them
// connected to srv.
func InMemory(srv *mcp.Server) ServerConfig {
	return ServerConfig{Transport: func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		if _, err := srv.Connect(ctx, server, nil); err != nil {
			return nil, err
		}
		return client, nil
	}}
}

// UnmarshalJSON decodes c from its JSON form, refusing unknown fields. It
// does not validate the result: see [ServerConfig.Validate].
func (c *ServerConfig) UnmarshalJSON(data []byte) error {
	// The alias has the fields and tags of ServerConfig but not this
	// method, so the decoder does not recurse into it.
	type plain ServerConfig
	var p plain
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return fmt.Errorf("MCP server configuration: %w", err)
	}
	*c = ServerConfig(p)
	return nil
}

// Validate reports whether c is usable: exactly one way to reach the
// server, and only the settings of that way, each well formed. The error
// has code [errors.InvalidArgument] and lists every problem.
func (c *ServerConfig) Validate() error {
	var problems []string
	kinds := 0
	for _, set := range []bool{c.Command != "", c.URL != "", c.Transport != nil} {
		if set {
			kinds++
		}
	}
	if kinds != 1 {
		problems = append(problems, fmt.Sprintf("exactly one of command, url and transport must be set, not %d", kinds))
	}
	if c.Command == "" && (len(c.Args) > 0 || len(c.Env) > 0 || len(c.InheritEnv) > 0 || c.Dir != "" || c.TerminateTimeout != 0 || c.Stderr != nil || c.LogStderr) {
		problems = append(problems, "args, env, inheritEnv, dir, terminateTimeout, stderr and logStderr apply to a command only")
	}
	if c.URL == "" && (len(c.Headers) > 0 || c.HTTPClient != nil) {
		problems = append(problems, "headers and the HTTP client apply to a url only")
	}
	if strings.ContainsRune(c.Command, 0) || strings.ContainsRune(c.Dir, 0) || slices.ContainsFunc(c.Args, func(a string) bool { return strings.ContainsRune(a, 0) }) {
		problems = append(problems, "command, args and dir must not contain NUL bytes")
	}
	for _, k := range sortedKeys(c.Env) {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(c.Env[k], 0) {
			problems = append(problems, fmt.Sprintf("env %q: a name must be non-empty without '=' or NUL, and a value without NUL", k))
		}
	}
	for _, pattern := range c.InheritEnv {
		if problem := validInheritEnv(pattern); problem != "" {
			problems = append(problems, fmt.Sprintf("inheritEnv %q: %s", pattern, problem))
		}
	}
	if c.TerminateTimeout < 0 {
		problems = append(problems, "terminateTimeout is negative")
	}
	if c.ConnectTimeout < 0 {
		problems = append(problems, "connectTimeout is negative")
	}
	if c.URL != "" {
		if u, err := url.Parse(c.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			problems = append(problems, fmt.Sprintf("url %q is not an absolute http(s) URL", c.URL))
		}
	}
	for _, k := range sortedKeys(c.Headers) {
		if !validHeaderName(k) || strings.ContainsAny(c.Headers[k], "\r\n\x00") {
			problems = append(problems, fmt.Sprintf("header %q: a name must be an HTTP token, and a value without CR, LF or NUL", k))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	return errors.Errorf(errors.InvalidArgument, "invalid MCP server configuration: %s", strings.Join(problems, "; "))
}

// validHeaderName reports whether s is an HTTP token (RFC 9110).
func validHeaderName(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0) {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// clone returns a copy of c that shares no map or slice with it.
func (c *ServerConfig) clone() ServerConfig {
	d := *c
	d.Args = slices.Clone(c.Args)
	d.Env = maps.Clone(c.Env)
	d.InheritEnv = slices.Clone(c.InheritEnv)
	d.Headers = maps.Clone(c.Headers)
	return d
}
