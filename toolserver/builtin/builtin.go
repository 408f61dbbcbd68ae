package builtin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// Tool is one tool of the built-in catalogue: its definition, the Go
// function that serves it and examples of calls.
type Tool struct {
	// Definition is the tool's definition, plain data ready for an index.
	Definition toolmodel.Tool
	// Func serves the tool. It is safe for concurrent use.
	Func toolrun.LocalFunc
	// Examples are calls that show how to use the tool; each one succeeds
	// when run with the options the catalogue was built with.
	Examples []Example
}

// Example is an example call of a tool, as plain data.
type Example struct {
	// Name is a short identifier of the example, unique within its tool.
	Name string `json:"name"`
	// Description says what the example does, in one sentence.
	Description string `json:"description"`
	// Args are the call's arguments, a JSON object.
	Args map[string]any `json:"args"`
}

// ID returns the tool's ID, "namespace:name".
func (t *Tool) ID() string { return t.Definition.ID() }

// LocalName returns the name under which the tool's function is
// registered in a [toolrun.LocalExecutor]: "builtin." followed by the
// tool's ID.
func (t *Tool) LocalName() string { return "builtin." + t.ID() }

// Backend returns the local backend that runs the tool's function.
func (t *Tool) Backend() toolmodel.ToolBackend { return toolrun.LocalBackendFor(t.LocalName()) }

// Defaults of the options.
const (
	// DefaultHTTPMaxBytes is the default cap on the body http:fetch reads.
	DefaultHTTPMaxBytes = 1 << 20
	// DefaultHTTPTimeout is the default time limit of one http:fetch call,
	// redirects included.
	DefaultHTTPTimeout = 15 * time.Second
	// DefaultQueryTimeout is the default time limit of one json:query call.
	DefaultQueryTimeout = 2 * time.Second
)

// Option configures the catalogue built by [Tools].
type Option func(*config)

// config is the effect of a list of Options.
type config struct {
	now          func() time.Time
	httpHosts    []string
	httpClient   *http.Client
	httpMaxBytes int64
	httpTimeout  time.Duration
	queryTimeout time.Duration
}

// WithClock sets the clock of the time tools; the default is [time.Now].
// Tests use it to get deterministic results.
func WithClock(now func() time.Time) Option {
	return func(c *config) { c.now = now }
}

// WithHTTPAllowList sets the hosts http:fetch may reach, and so includes
// the tool in the catalogue: without hosts, the catalogue has no
// http:fetch at all, rather than a tool that refuses every URL. An entry
// is [internal:]HOST[:PORT]:
//
//   - HOST is a host name ("api.github.com"), matched exactly; a
//     wildcard "*.example.com", matching every subdomain of example.com
//     but not example.com itself; an IP address ("127.0.0.1", "::1",
//     "[::1]:8080"); or a CIDR range ("10.0.0.0/8").
//   - PORT is a port number or "*" for any; without it, ports 80 and 443.
//   - internal: lets the entry reach internal addresses.
//
// The address each connection reaches is checked once the name is
// resolved, at the first request and at every redirect: an internal
// address (loopback, private, link-local where cloud metadata services
// answer, unique-local, carrier-grade NAT, unspecified, multicast) is
// reached only when an address or range entry names it (with a matching
// port), or when the entry that allowed the host is marked internal:. An
// address entry that reaches the link-local ranges (169.254.0.0/16,
// fe80::/10) must itself be marked internal:. [CheckHTTPAllowList]
// checks entries without building the catalogue. Calls add to the list.
func WithHTTPAllowList(hosts ...string) Option {
	return func(c *config) { c.httpHosts = append(c.httpHosts, hosts...) }
}

// WithHTTPClient sets the client http:fetch sends requests with; the
// default is a client on [http.DefaultTransport]. The catalogue uses a
// copy of the client with its own redirect policy (at most 5 redirects,
// each to an allowed host and port) and, when its transport is an
// [http.Transport], a copy of it that checks the address of every
// connection and uses no proxy; the client's other settings apply.
func WithHTTPClient(client *http.Client) Option {
	return func(c *config) { c.httpClient = client }
}

// WithHTTPMaxBytes sets the most bytes of a response body http:fetch
// reads; a longer body is truncated and flagged. The default is
// [DefaultHTTPMaxBytes].
func WithHTTPMaxBytes(n int64) Option {
	return func(c *config) { c.httpMaxBytes = n }
}

// WithHTTPTimeout sets the time limit of one http:fetch call; the
// default is [DefaultHTTPTimeout].
func WithHTTPTimeout(d time.Duration) Option {
	return func(c *config) { c.httpTimeout = d }
}

// WithQueryTimeout sets the time limit of one json:query call; the
// default is [DefaultQueryTimeout].
func WithQueryTimeout(d time.Duration) Option {
	return func(c *config) { c.queryTimeout = d }
}

// newConfig applies opts to the defaults and checks the result.
func newConfig(opts []Option) (*config, error) {
	c := &config{
		now:          time.Now,
		httpClient:   &http.Client{},
		httpMaxBytes: DefaultHTTPMaxBytes,
		httpTimeout:  DefaultHTTPTimeout,
		queryTimeout: DefaultQueryTimeout,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(c)
		}
	}
	var problems []string
	if c.now == nil {
		problems = append(problems, "the clock is nil")
	}
	if c.httpClient == nil {
		problems = append(problems, "the HTTP client is nil")
	}
	if c.httpMaxBytes <= 0 {
		problems = append(problems, fmt.Sprintf("the HTTP body cap is %d bytes, it must be positive", c.httpMaxBytes))
	}
	if c.httpTimeout <= 0 {
		problems = append(problems, fmt.Sprintf("the HTTP timeout is %s, it must be positive", c.httpTimeout))
	}
	if c.queryTimeout <= 0 {
		problems = append(problems, fmt.Sprintf("the query timeout is %s, it must be positive", c.queryTimeout))
	}
	if len(problems) > 0 {
		e := errors.Errorf(errors.InvalidArgument, "invalid options: %s", strings.Join(problems, "; "))
		e.Op = "builtin.Tools"
		return nil, e
	}
	return c, nil
}

// Tools returns the built-in catalogue, sorted by tool ID. Each call
// builds new tools; their functions are safe for concurrent use. It fails
// with an error of code [errors.InvalidArgument] when an option is
// invalid.
func Tools(opts ...Option) ([]Tool, error) {
	cfg, err := newConfig(opts)
	if err != nil {
		return nil, err
	}
	builders := []func(*config) (Tool, error){
		timeNowTool, timeConvertTool, timeAddTool, timeDiffTool,
		mathEvalTool,
		jsonQueryTool,
		textStatsTool, textReplaceTool, textCaseTool, textEncodeTool, textDecodeTool, textHashTool,
	}
	if len(cfg.httpHosts) > 0 {
		builders = append(builders, httpFetchTool)
	}
	tools := make([]Tool, 0, len(builders))
	for _, build := range builders {
		tool, err := build(cfg)
		if err != nil {
			return nil, err
		}
		tools = append(tools, tool)
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.ID(), b.ID()) })
	return tools, nil
}

// Register registers tools in an index, each served by its local backend
// ([Tool.Backend]), and their functions in local. The functions are
// registered first, so that a tool the index shows can always run; the
// index registration is atomic ([toolindex.Index.RegisterMany]): when it
// fails, the index is unchanged, and local holds functions that no tool
// of the index refers to, which is harmless. Tools already registered the
// same way are left as they are, so Register may be called again with the
// same tools. It fails with [errors.InvalidArgument] for a tool without a
// function or two tools of one ID, and with the index's error otherwise.
func Register(ctx context.Context, idx toolindex.Index, local *toolrun.LocalExecutor, tools []Tool) error {
	regs := make([]toolindex.Registration, 0, len(tools))
	seen := make(map[string]bool, len(tools))
	for i := range tools {
		t := &tools[i]
		id := t.ID()
		if t.Func == nil {
			return registerError(errors.Errorf(errors.InvalidArgument, "tool %q has no function", id))
		}
		if seen[id] {
			return registerError(errors.Errorf(errors.InvalidArgument, "tool %q is listed twice", id))
		}
		seen[id] = true
		regs = append(regs, toolindex.Registration{Tool: t.Definition, Backend: t.Backend()})
	}
	for i := range tools {
		local.Register(tools[i].LocalName(), tools[i].Func)
	}
	if err := idx.RegisterMany(ctx, regs); err != nil {
		return fmt.Errorf("builtin.Register: %w", err)
	}
	return nil
}

func registerError(e *errors.Error) error {
	e.Op = "builtin.Register"
	return e
}

// spec describes a tool of the catalogue, beyond what its Go input and
// output types say.
type spec struct {
	namespace   string
	name        string
	title       string
	description string
	tags        []string
	// openWorld is set for tools that reach outside the machine.
	openWorld bool
	// input adds to the properties of the input schema derived from the
	// input type what Go types cannot carry: enums, bounds, defaults.
	input    func(props map[string]*jsonschema.Schema)
	examples []Example
}

// newTool builds a tool from its spec and a typed function: the schemas
// come from the types In and Out (descriptions from their jsonschema
// tags), the function decodes arguments into an In.
func newTool[In, Out any](s spec, fn func(ctx context.Context, in In) (Out, error)) (Tool, error) {
	def, local, err := toolrun.NewLocalTool(s.name, s.description, fn)
	if err != nil {
		return Tool{}, err
	}
	def.Namespace = s.namespace
	def.Title = s.title
	def.Tags = toolmodel.NormalizeTags(s.tags)
	def.Annotations = &mcp.ToolAnnotations{
		ReadOnlyHint:    true,
		IdempotentHint:  true,
		DestructiveHint: ptr(false),
		OpenWorldHint:   ptr(s.openWorld),
	}
	// The schemas are derived again, rather than decoded from def, to keep
	// the properties in the order of the fields, the order a model reads
	// best (the most important first).
	if def.InputSchema, err = refineSchema[In](s.input); err != nil {
		return Tool{}, err
	}
	if def.OutputSchema != nil {
		if def.OutputSchema, err = refineSchema[Out](nil); err != nil {
			return Tool{}, err
		}
	}
	if err := def.Validate(); err != nil {
		return Tool{}, err
	}
	return Tool{Definition: def, Func: local, Examples: s.examples}, nil
}

// refineSchema derives the object schema of T, makes its array and
// object properties non-nullable (the catalogue's functions never return
// null for them, and callers should not send null), applies adjust to its
// properties, and returns it as compact JSON.
func refineSchema[T any](adjust func(map[string]*jsonschema.Schema)) (json.RawMessage, error) {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "derive schema: %w", err)
	}
	for _, prop := range s.Properties {
		if len(prop.Types) == 2 && prop.Types[0] == "null" {
			prop.Type, prop.Types = prop.Types[1], nil
		}
	}
	if adjust != nil {
		adjust(s.Properties)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "encode schema: %w", err)
	}
	return raw, nil
}

// ptr returns a pointer to a copy of v, for the optional fields of schemas
// and annotations.
func ptr[T any](v T) *T { return &v }

// validationError reports arguments that the input schema cannot rule
// out: the run fails as it does for arguments the schema refuses.
func validationError(toolID, format string, args ...any) error {
	e := errors.Errorf(errors.Validation, format, args...)
	e.Op = toolID
	return e
}

// checkSize refuses a string argument longer than limit bytes.
func checkSize(toolID, field, value string, limit int) error {
	if len(value) > limit {
		return validationError(toolID, "%s is %d bytes long, the limit is %d", field, len(value), limit)
	}
	return nil
}
