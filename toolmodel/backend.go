package toolmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// BackendKind names the kind of system that executes a tool.
type BackendKind string

// The backend kinds metatools knows.
const (
	// BackendMCP: a tool of an MCP server.
	BackendMCP BackendKind = "mcp"
	// BackendProvider: a tool served by the caller's own provider.
	BackendProvider BackendKind = "provider"
	// BackendLocal: a Go function in the same process.
	BackendLocal BackendKind = "local"
	// BackendHTTP: an HTTP API endpoint.
	BackendHTTP BackendKind = "http"
	// BackendGRPC: a gRPC method.
	BackendGRPC BackendKind = "grpc"
)

// ToolBackend says where a tool executes: its Kind and the matching
// configuration, exactly one of MCP, Provider, Local, HTTP or GRPC. Like
// [Tool], it is plain data; executors turn it into calls.
//
// Its YAML form is its JSON form written as YAML ([ToolBackend.MarshalYAML]).
//
// A kind outside the built-in ones (added by a third-party executor) has no
// configuration field here; it carries its settings in Config.
type ToolBackend struct {
	Kind     BackendKind      `json:"kind"`
	MCP      *MCPBackend      `json:"mcp,omitempty"`
	Provider *ProviderBackend `json:"provider,omitempty"`
	Local    *LocalBackend    `json:"local,omitempty"`
	HTTP     *HTTPBackend     `json:"http,omitempty"`
	GRPC     *GRPCBackend     `json:"grpc,omitempty"`
	// Config holds the settings of a third-party kind, which must name its
	// source in Config["source"] for [ToolBackend.Identity].
	Config map[string]string `json:"config,omitempty"`
}

// MCPBackend is a tool served by an MCP server.
type MCPBackend struct {
	// Server is the name under which the MCP server is configured.
	Server string `json:"server"`
	// ToolName is the tool's name on that server, when it differs from the
	// metatools tool's name.
	ToolName string `json:"toolName,omitempty"`
}

// ProviderBackend is a tool served by a provider of the caller's own.
type ProviderBackend struct {
	// Provider is the name under which the provider is registered.
	Provider string `json:"provider"`
	// ToolName is the tool's name within the provider, when it differs.
	ToolName string `json:"toolName,omitempty"`
}

// LocalBackend is a Go function registered in the same process.
type LocalBackend struct {
	// Name is the name under which the function is registered.
	Name string `json:"name"`
}

// HTTPAuthType names how an HTTP backend authenticates.
type HTTPAuthType string

// The HTTP authentication schemes.
const (
	AuthNone         HTTPAuthType = ""
	AuthBearer       HTTPAuthType = "bearer"
	AuthAPIKey       HTTPAuthType = "api_key"
	AuthBasic        HTTPAuthType = "basic"
	AuthOAuth2Client HTTPAuthType = "oauth2_client_credentials"
)

// HTTPAuth configures HTTP authentication. It holds no secret: secrets are
// named here and looked up in a secret source when a call is made.
type HTTPAuth struct {
	Type HTTPAuthType `json:"type"`
	// Secret names the secret holding the bearer token, the API key, or the
	// basic-auth password, or the OAuth2 client secret.
	Secret string `json:"secret,omitempty"`
	// Username is the basic-auth user, or the OAuth2 client ID.
	Username string `json:"username,omitempty"`
	// In is where an API key goes: "header" (the default) or "query".
	In string `json:"in,omitempty"`
	// Name is the API key's header or query parameter name.
	Name string `json:"name,omitempty"`
	// TokenURL is the OAuth2 token endpoint.
	TokenURL string `json:"tokenUrl,omitempty"`
	// Scopes are the OAuth2 scopes to request.
	Scopes []string `json:"scopes,omitempty"`
}

// HTTPBodyEncoding names how an HTTP backend encodes its request body.
type HTTPBodyEncoding string

// The body encodings.
const (
	// BodyJSON sends the body as JSON (application/json). It is the
	// default.
	BodyJSON HTTPBodyEncoding = ""
	// BodyForm sends the body as an HTML form
	// (application/x-www-form-urlencoded): each property is a field, an
	// array one field per item, an object its JSON text, as query
	// parameters are.
	BodyForm HTTPBodyEncoding = "form"
)

// HTTPBackend is an HTTP API endpoint. Arguments named by the Path
// template's placeholders, QueryParams and HeaderParams go to those places;
// the others form the body, or only the argument named BodyParam when it
// is set, encoded as BodyEncoding says.
type HTTPBackend struct {
	// BaseURL is the API's absolute http or https URL.
	BaseURL string `json:"baseUrl"`
	// Method is the HTTP method, such as "GET".
	Method string `json:"method"`
	// Path is the path template below BaseURL, with {name} placeholders
	// filled from the arguments of the same name.
	Path         string            `json:"path"`
	QueryParams  []string          `json:"queryParams,omitempty"`
	HeaderParams []string          `json:"headerParams,omitempty"`
	BodyParam    string            `json:"bodyParam,omitempty"`
	BodyEncoding HTTPBodyEncoding  `json:"bodyEncoding,omitempty"`
	Headers      map[string]string `json:"headers,omitempty"`
	Auth         *HTTPAuth         `json:"auth,omitempty"`
	Timeout      Duration          `json:"timeout,omitempty"`
}

// GRPCTLS configures a gRPC connection's transport security. The zero
// value uses TLS with the system's roots.
type GRPCTLS struct {
	// Insecure disables TLS; it is refused for other than loopback
	// addresses by the executor.
	Insecure bool `json:"insecure,omitempty"`
	// CAFile is a PEM file of roots to trust instead of the system's.
	CAFile string `json:"caFile,omitempty"`
	// ServerName overrides the name checked in the server's certificate.
	ServerName string `json:"serverName,omitempty"`
}

// GRPCBackend is a gRPC method of a service offering server reflection.
type GRPCBackend struct {
	// Address is host:port.
	Address string `json:"address"`
	// Method is the full method name, "/package.Service/Method".
	Method   string            `json:"method"`
	TLS      *GRPCTLS          `json:"tls,omitempty"`
	Metadata map[string]string `json:"metadata,omitempty"`
	Timeout  Duration          `json:"timeout,omitempty"`
}

// Clone returns a deep copy of b: changing the copy's configuration never
// changes b.
func (b ToolBackend) Clone() ToolBackend {
	c := b
	c.Config = maps.Clone(b.Config)
	if b.MCP != nil {
		m := *b.MCP
		c.MCP = &m
	}
	if b.Provider != nil {
		p := *b.Provider
		c.Provider = &p
	}
	if b.Local != nil {
		l := *b.Local
		c.Local = &l
	}
	if b.HTTP != nil {
		h := *b.HTTP
		h.QueryParams = slices.Clone(h.QueryParams)
		h.HeaderParams = slices.Clone(h.HeaderParams)
		h.Headers = maps.Clone(h.Headers)
		if h.Auth != nil {
			a := *h.Auth
			a.Scopes = slices.Clone(a.Scopes)
			h.Auth = &a
		}
		c.HTTP = &h
	}
	if b.GRPC != nil {
		g := *b.GRPC
		g.Metadata = maps.Clone(g.Metadata)
		if g.TLS != nil {
			t := *g.TLS
			g.TLS = &t
		}
		c.GRPC = &g
	}
	return c
}

// Equal reports whether b and c have the same JSON form: the same kind and
// the same configuration.
func (b ToolBackend) Equal(c ToolBackend) bool {
	a, errA := json.Marshal(b)
	d, errC := json.Marshal(c)
	return errA == nil && errC == nil && bytes.Equal(a, d)
}

// Identity returns a stable string naming the source that serves the
// tool: "mcp:<server>", "provider:<provider>", "local:<name>",
// "http:<base URL>", "grpc:<address>", or "<kind>:<Config["source"]>". All
// the tools of one MCP server, provider or API share an identity, which is
// how an index removes a whole source at once and how a caller states a
// preferred backend.
func (b *ToolBackend) Identity() string {
	source := ""
	switch b.Kind {
	case BackendMCP:
		if b.MCP != nil {
			source = b.MCP.Server
		}
	case BackendProvider:
		if b.Provider != nil {
			source = b.Provider.Provider
		}
	case BackendLocal:
		if b.Local != nil {
			source = b.Local.Name
		}
	case BackendHTTP:
		if b.HTTP != nil {
			source = b.HTTP.BaseURL
		}
	case BackendGRPC:
		if b.GRPC != nil {
			source = b.GRPC.Address
		}
	default:
		source = b.Config["source"]
	}
	return string(b.Kind) + ":" + source
}

// Validate reports whether b is well formed: a kind, the configuration of
// that kind and no other, and valid settings. Errors have code
// [errors.InvalidArgument] and list every problem.
func (b *ToolBackend) Validate() error {
	var problems []string
	set := 0
	for _, present := range []bool{b.MCP != nil, b.Provider != nil, b.Local != nil, b.HTTP != nil, b.GRPC != nil} {
		if present {
			set++
		}
	}
	check := func(present bool, validate func() []string) {
		switch {
		case !present:
			problems = append(problems, fmt.Sprintf("kind %q needs its %q configuration", b.Kind, b.Kind))
		case set > 1:
			problems = append(problems, fmt.Sprintf("kind %q must carry only its own configuration", b.Kind))
		default:
			problems = append(problems, validate()...)
		}
	}
	switch b.Kind {
	case "":
		problems = append(problems, "kind is missing")
	case BackendMCP:
		check(b.MCP != nil, func() []string { return b.MCP.problems() })
	case BackendProvider:
		check(b.Provider != nil, func() []string { return b.Provider.problems() })
	case BackendLocal:
		check(b.Local != nil, func() []string { return b.Local.problems() })
	case BackendHTTP:
		check(b.HTTP != nil, func() []string { return b.HTTP.problems() })
	case BackendGRPC:
		check(b.GRPC != nil, func() []string { return b.GRPC.problems() })
	default:
		if set > 0 {
			problems = append(problems, fmt.Sprintf("kind %q is not built in and takes its settings in config only", b.Kind))
		}
		if b.Config["source"] == "" {
			problems = append(problems, fmt.Sprintf("kind %q needs config.source", b.Kind))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	e := errors.Errorf(errors.InvalidArgument, "invalid %s backend: %s", b.Kind, strings.Join(problems, "; "))
	e.Op = "toolmodel.ToolBackend.Validate"
	return e
}

func (m *MCPBackend) problems() []string {
	var p []string
	if m.Server == "" {
		p = append(p, "mcp.server is missing")
	}
	return p
}

func (pb *ProviderBackend) problems() []string {
	var p []string
	if pb.Provider == "" {
		p = append(p, "provider.provider is missing")
	}
	return p
}

func (l *LocalBackend) problems() []string {
	var p []string
	if l.Name == "" {
		p = append(p, "local.name is missing")
	}
	return p
}

func (h *HTTPBackend) problems() []string {
	var p []string
	if u, err := url.Parse(h.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		p = append(p, fmt.Sprintf("http.baseUrl %q is not an absolute http(s) URL", h.BaseURL))
	}
	switch strings.ToUpper(h.Method) {
	case "GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS":
	default:
		p = append(p, fmt.Sprintf("http.method %q is not an HTTP method", h.Method))
	}
	if h.Path != "" && !strings.HasPrefix(h.Path, "/") {
		p = append(p, fmt.Sprintf("http.path %q must start with '/'", h.Path))
	}
	if strings.Count(h.Path, "{") != strings.Count(h.Path, "}") {
		p = append(p, fmt.Sprintf("http.path %q has unbalanced braces", h.Path))
	}
	if h.Timeout < 0 {
		p = append(p, "http.timeout is negative")
	}
	switch h.BodyEncoding {
	case BodyJSON, BodyForm:
	default:
		p = append(p, fmt.Sprintf("http.bodyEncoding %q must be empty (JSON) or form", h.BodyEncoding))
	}
	if h.Auth != nil {
		p = append(p, h.Auth.problems()...)
	}
	return p
}

func (a *HTTPAuth) problems() []string {
	var p []string
	switch a.Type {
	case AuthNone:
	case AuthBearer:
		if a.Secret == "" {
			p = append(p, "http.auth.secret is missing for bearer auth")
		}
	case AuthAPIKey:
		if a.Secret == "" || a.Name == "" {
			p = append(p, "http.auth needs secret and name for api_key auth")
		}
		if a.In != "" && a.In != "header" && a.In != "query" {
			p = append(p, fmt.Sprintf("http.auth.in %q must be header or query", a.In))
		}
	case AuthBasic:
		if a.Username == "" || a.Secret == "" {
			p = append(p, "http.auth needs username and secret for basic auth")
		}
	case AuthOAuth2Client:
		if a.Username == "" || a.Secret == "" || a.TokenURL == "" {
			p = append(p, "http.auth needs username (client ID), secret and tokenUrl for OAuth2 client credentials")
		}
	default:
		p = append(p, fmt.Sprintf("http.auth.type %q is unknown", a.Type))
	}
	return p
}

func (g *GRPCBackend) problems() []string {
	var p []string
	if g.Address == "" {
		p = append(p, "grpc.address is missing")
	}
	service, method, ok := strings.Cut(strings.TrimPrefix(g.Method, "/"), "/")
	if !strings.HasPrefix(g.Method, "/") || !ok || service == "" || method == "" || strings.Contains(method, "/") {
		p = append(p, fmt.Sprintf("grpc.method %q is not of the form /package.Service/Method", g.Method))
	}
	if g.Timeout < 0 {
		p = append(p, "grpc.timeout is negative")
	}
	return p
}

// Duration is a [time.Duration] whose JSON form is a string such as "1.5s"
// (a number is also accepted, as seconds), so that configuration files stay
// readable.
type Duration time.Duration

// MarshalJSON encodes d as a duration string.
func (d Duration) MarshalJSON() ([]byte, error) {
	return json.Marshal(time.Duration(d).String())
}

// UnmarshalJSON decodes a duration string ("250ms", "1m") or a number of
// seconds.
func (d *Duration) UnmarshalJSON(data []byte) error {
	var s string
	if err := json.Unmarshal(data, &s); err == nil {
		v, err := time.ParseDuration(s)
		if err != nil {
			return fmt.Errorf("duration %q: %w", s, err)
		}
		*d = Duration(v)
		return nil
	}
	var secs float64
	if err := json.Unmarshal(data, &secs); err != nil {
		return fmt.Errorf("duration must be a string like \"30s\" or a number of seconds, not %s", data)
	}
	// A float64 number of nanoseconds converts to an int64 exactly up to
	// 2^63 (excluded), the first float64 past the largest Duration.
	ns := secs * float64(time.Second)
	if ns >= math.MaxInt64 || ns < math.MinInt64 {
		return fmt.Errorf("duration of %s seconds is out of range (at most %.0f)", data, time.Duration(math.MaxInt64).Seconds())
	}
	*d = Duration(ns)
	return nil
}
