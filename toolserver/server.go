package toolserver

import (
	"context"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun/mcpotel"
	"github.com/metatools-go/metatools/toolserver/internal/forward"
	"github.com/metatools-go/metatools/toolserver/internal/transport"
)

// Server is an MCP server that puts a whole tool catalogue behind a few
// meta-tools: search_tools, list_namespaces, describe_tool,
// list_tool_examples, run_tool and run_chain. An agent's context then holds
// six tool definitions instead of hundreds, and the agent reads only the
// documentation of the tools it is about to use.
//
// The catalogue lives in a toolindex.Index; changes to it show at once in
// search results, and are logged. Optionally ([WithPassthrough]) the
// catalogue's tools are also exposed directly, under MCP names, for clients
// that want classic tool lists.
//
// A Server is safe for concurrent use by any number of sessions.
type Server struct {
	// ops are the operations every meta-tool, passthrough tool and code
	// mode's programs call: the server adds no policy, default or check
	// of its own.
	ops    *toolops.Service
	logger *slog.Logger

	impl         *mcp.Implementation
	instructions string
	passthrough  []string
	// shutdownTimeout bounds the wait for running calls once the stdio
	// client has closed its input.
	shutdownTimeout time.Duration

	validator *toolmodel.Validator
	mcp       *mcp.Server

	// Upstream MCP servers whose resources and prompts are served
	// (WithUpstreams), and the namespaces whose tools keep their names.
	upstreamSessions Upstreams
	upstreams        []Upstream
	upstreamTrust    UpstreamTrust
	keepNames        map[string]bool
	forward          *forward.Forwarder
	metaTools        map[string]bool // the meta-tools' names
	// codeMode configures execute_code (nil: off), run by code.
	codeMode *CodeMode
	code     *toolcode.Executor

	mu          sync.Mutex
	exposed     map[string]string // passthrough MCP name -> tool ID
	unsubscribe func()

	// clashMu guards the name clashes found while New builds the server.
	clashMu  sync.Mutex
	building bool
	clashes  []error

	// oauthFilter adds the middleware enforcing OAuth grants once.
	oauthFilter sync.Once
	// telemetry traces and measures the requests, once instrumented.
	telemetry    mcpotel.Config
	instrumented sync.Once
}

// Option configures a [Server].
type Option func(*Server)

// pkgPath is this package's import path, whose module's version the
// implementation reports.
const pkgPath = "github.com/metatools-go/metatools/toolserver"

// WithImplementation sets the name and version the server reports to
// clients; the default is "metatools" and the version of the toolserver
// module in the running binary ([toolmodel.ModuleVersion]).
func WithImplementation(name, version string) Option {
	return func(s *Server) { s.impl = &mcp.Implementation{Name: name, Version: version} }
}

// WithLogger sets the logger for catalogue changes and errors; the default
// is [slog.Default].
func WithLogger(l *slog.Logger) Option {
	return func(s *Server) { s.logger = l }
}

// WithInstructions replaces the instructions the server gives clients on
// initialization, which tell a model how to use the meta-tools.
func WithInstructions(text string) Option {
	return func(s *Server) { s.instructions = text }
}

// WithPassthrough also exposes the catalogue's tools whose IDs match the
// given patterns (as in toolrun.AllowDeny: "ns:name", "ns:*", globs)
// directly as MCP tools. A tool "ns:name" is exposed as "ns.name"; calls
// go through the same runner as run_tool. The exposed list follows
// catalogue changes, and clients are notified of them.
func WithPassthrough(patterns ...string) Option {
	return func(s *Server) { s.passthrough = append(s.passthrough, patterns...) }
}

// DefaultInstructions tell a model how to use the meta-tools.
const DefaultInstructions = `This server gives access to a large catalogue of tools through a few meta-tools.
1. search_tools: find tools for a task with a short natural-language query.
2. describe_tool: read a tool's documentation; level "schema" gives its parameters, "full" adds examples and notes.
3. run_tool: run a tool by ID with arguments that follow its input schema.
run_chain runs several tools in sequence, passing each result to the next; list_namespaces and list_tool_examples help to browse.`

// New returns a server whose meta-tools answer with the operations ops:
// what the catalogue holds, what a client is offered, the defaults and
// limits of every answer are those of ops.
//
// It fails with code [errors.Conflict] when a tool or prompt of an
// upstream that keeps its names ([Upstream.KeepNames]) has the name of a
// meta-tool, of another upstream's or of another passed-through tool: the
// name would stay with the first. Clashes that appear later, when
// upstreams change, are logged only.
func New(ops *toolops.Service, opts ...Option) (*Server, error) {
	if ops == nil {
		return nil, errors.Opf("toolserver.New", errors.InvalidArgument, "no operations to serve")
	}
	s := &Server{
		ops:          ops,
		logger:       slog.Default(),
		impl:         &mcp.Implementation{Name: "metatools", Version: toolmodel.ModuleVersion(pkgPath)},
		instructions: DefaultInstructions,
		validator:    toolmodel.NewValidator(),
		exposed:      map[string]string{},
		keepNames:    map[string]bool{},
		metaTools:    map[string]bool{},
		building:     true,
	}
	for _, opt := range opts {
		opt(s)
	}
	// An upstream that keeps its names has its tools passed through.
	for _, ns := range forward.KeptNamespaces(s.upstreams) {
		s.keepNames[ns] = true
		s.passthrough = append(s.passthrough, ns+":*")
	}
	mcpOpts := &mcp.ServerOptions{Instructions: s.instructions, Logger: s.logger}
	if s.upstreamSessions != nil && len(s.upstreams) > 0 {
		s.forward = forward.New(forward.Config{
			Sessions: s.upstreamSessions, States: ops, Upstreams: s.upstreams, Trust: s.upstreamTrust,
			Reached: ops.NamespaceReached, Clash: s.clash, Logger: s.logger,
		})
		s.forward.ServerOptions(mcpOpts)
	} else {
		// The SDK answers prompts/list, resources/list and
		// resources/templates/list (with empty lists) whatever the
		// server declares: declare what is answered.
		mcpOpts.Capabilities = &mcp.ServerCapabilities{
			Logging: &mcp.LoggingCapabilities{}, Prompts: &mcp.PromptCapabilities{}, Resources: &mcp.ResourceCapabilities{},
		}
	}
	s.mcp = mcp.NewServer(s.impl, mcpOpts)
	s.mcp.AddReceivingMiddleware(identify, transport.EndWithExchange)
	s.addMetaTools()
	s.addCodeMode()
	s.unsubscribe = ops.Index().OnChange(s.catalogueChanged)
	if len(s.passthrough) > 0 {
		s.exposePassthrough(context.Background())
	}
	if s.forward != nil {
		s.forward.Start(s.mcp)
	}
	s.clashMu.Lock()
	s.building = false
	clashes := s.clashes
	s.clashMu.Unlock()
	if len(clashes) > 0 {
		s.Close()
		return nil, errors.E(errors.Conflict, errors.Join(clashes...))
	}
	return s, nil
}

// clash records a name clash found while New builds the server.
func (s *Server) clash(msg string) {
	s.clashMu.Lock()
	defer s.clashMu.Unlock()
	if s.building {
		s.clashes = append(s.clashes, errors.New(msg))
	}
}

// Operations returns the operations the server answers with.
func (s *Server) Operations() *toolops.Service { return s.ops }

// MCPServer returns the underlying go-sdk server, to connect it to any
// transport.
func (s *Server) MCPServer() *mcp.Server { return s.mcp }

// Close stops following catalogue changes and upstream reports. It does
// not close the index, the runner, the upstreams or open sessions.
func (s *Server) Close() {
	s.unsubscribe()
	if s.forward != nil {
		s.forward.Stop()
	}
}

// catalogueChanged logs a change, and keeps passthrough tools and the
// upstreams' resources and prompts in line with what the policy lets
// through.
func (s *Server) catalogueChanged(ev toolindex.ChangeEvent) {
	s.logger.Info("catalogue changed", "kind", ev.Kind, "tool", ev.ToolID, "backend", ev.Backend, "version", ev.Version)
	if len(s.passthrough) > 0 {
		s.passthroughChanged(context.Background(), ev)
	}
	if s.forward != nil {
		s.forward.CatalogueChanged()
	}
}
