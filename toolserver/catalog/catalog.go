// Package catalog builds the tool catalogue a metatools server serves from
// its configuration: the index and its search engine, the documentation
// store, the executors of every backend kind and the runner, then the
// tools of the built-in catalogue and of every upstream (MCP servers,
// OpenAPI documents, gRPC services), connected concurrently. Secrets of
// HTTP APIs are read from environment variables when a call is made.
//
//	cat, err := catalog.Build(ctx, cfg, catalog.WithProgress(show))
//	if err != nil { ... }
//	defer cat.Close()
//	for _, u := range cat.Upstreams() { ... } // what connected, what failed
//	srv, err := cat.NewServer(toolserver.WithLogger(logger))
//	if err != nil { ... } // a name clash of upstreams that keep their names
//
// An upstream that fails to connect is reported in [Catalog.Upstreams] and
// skipped: the server starts with the others.
//
// [Catalog.NewServer] serves, besides the tools, the resources, resource
// templates and prompts of the MCP upstreams (toolserver.WithUpstreams),
// under their namespace or, for those configured with keepNames, their own
// names, and follows the changes the upstreams report.
package catalog

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/httpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/openapi"
	"github.com/metatools-go/metatools/toolsearch"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/builtin"
	"github.com/metatools-go/metatools/toolserver/config"
)

// Catalog is a built catalogue, ready to serve.
type Catalog struct {
	// Index holds the tools.
	Index *toolindex.MemoryIndex
	// Docs documents them.
	Docs *tooldocs.Store
	// Runner runs them.
	Runner *toolrun.Runner

	executors   *toolrun.ExecutorRegistry
	mcp         *mcpexec.Manager
	grpc        *grpcexec.Executor
	searcher    io.Closer
	stopRefresh func()
	upstreams   []Upstream
	// The MCP upstreams a server aggregates, and the relay of their
	// reports to the servers built over the catalogue.
	mcpUpstreams []toolserver.Upstream
	relay        *relay
}

// The session manager gives servers the sessions of the MCP upstreams.
var _ toolserver.Upstreams = (*mcpexec.Manager)(nil)

// Upstream is the outcome of connecting one source of tools.
type Upstream struct {
	// Kind is "builtin", "mcp", "openapi" or "grpc".
	Kind string `json:"kind"`
	// Name is the upstream's name in the configuration.
	Name string `json:"name"`
	// Tools is the number of tools it brought.
	Tools int `json:"tools"`
	// Duration is how long connecting took.
	Duration time.Duration `json:"duration"`
	// Err is why it failed; its tools are then absent.
	Err error `json:"-"`
	// Skipped lists the tools it offers that were left out, each as its
	// name and the reason ("\"bad name\": ..."): an MCP server's tool
	// whose name or schema no metatools tool can have. The other tools
	// are served.
	Skipped []string `json:"skipped,omitempty"`
}

// Option configures [Build].
type Option func(*options)

type options struct {
	logger   *slog.Logger
	progress func(u Upstream, done bool)
	stderr   io.Writer
	builtin  []builtin.Option
}

// WithLogger sets the logger of the catalogue's components.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithProgress is called when each upstream starts connecting (done
// false) and when it is done (done true, with its tool count or error),
// from several goroutines at once.
func WithProgress(fn func(u Upstream, done bool)) Option {
	return func(o *options) { o.progress = fn }
}

// WithUpstreamStderr streams the standard error of every MCP server
// started as a command to w, line by line, each line prefixed by the
// server's name in brackets ("[github] ..."), but for the servers whose
// configuration says otherwise (stderr: quiet or log). By default only
// the servers configured with stderr: stream are streamed, to the
// process's standard error. The last lines are kept in any case, and
// quoted by the errors of failed connections and calls.
func WithUpstreamStderr(w io.Writer) Option { return func(o *options) { o.stderr = w } }

// WithBuiltinOptions passes options to the built-in tools (a clock, an
// HTTP client), after those the configuration implies.
func WithBuiltinOptions(opts ...builtin.Option) Option {
	return func(o *options) { o.builtin = append(o.builtin, opts...) }
}

// Build builds the catalogue of cfg. It fails only when the catalogue
// itself cannot be built: a configuration that [config.Config.Validate]
// refuses (the check that loading a file makes), or a search index path
// that cannot be opened; failing upstreams are reported in
// [Catalog.Upstreams].
func Build(ctx context.Context, cfg *config.Config, opts ...Option) (*Catalog, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{logger: slog.Default()}
	for _, opt := range opts {
		opt(&o)
	}
	c := &Catalog{relay: &relay{pending: map[string]bool{}}}
	searcher, err := newSearcher(cfg.Search)
	if err != nil {
		return nil, err
	}
	if closer, ok := searcher.(io.Closer); ok {
		c.searcher = closer
	}
	// The shared sessions list the upstreams' tools: they declare what the
	// server forwards from an upstream to the client of a call, so that
	// upstreams offering tools only to clients able to answer their
	// requests list those tools too.
	connectTimeout := cmp.Or(time.Duration(cfg.Limits.ConnectTimeout), DefaultConnectTimeout)
	c.mcp, err = mcpexec.NewManager(mcpexec.WithLogger(o.logger), mcpexec.WithServerNotifications(c.relay.notifications()),
		mcpexec.WithConnectTimeout(connectTimeout), mcpexec.WithConnectTimeoutSettings("limits.connectTimeout", "connectTimeout"),
		mcpexec.WithSharedCapabilities(mcp.ClientCapabilities{
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}))
	if err != nil {
		c.Close()
		return nil, err
	}
	// MCP servers are declared first (nothing connects yet), so that the
	// index follows each of them as a source: a server that reports new
	// tools is re-listed.
	indexOpts := []toolindex.Option{toolindex.WithSearcher(searcher)}
	mcpErrs := map[string]error{}
	stderr := newUpstreamStderr(o.stderr)
	for _, s := range cfg.MCPServers {
		if err := c.mcp.AddServer(s.Name, mcpConfig(s, stderr)); err != nil {
			mcpErrs[s.Name] = err
			continue
		}
		namespace := config.NamespaceOf(s.Namespace, s.Name)
		indexOpts = append(indexOpts, toolindex.WithSource(c.mcp.Source(s.Name, namespace)))
		c.mcpUpstreams = append(c.mcpUpstreams, toolserver.Upstream{Server: s.Name, Namespace: namespace, KeepNames: s.KeepNames})
	}
	// gRPC services are followed as sources too.
	c.grpc = grpcexec.New()
	grpcSpecs := make([]grpcexec.ImportSpec, len(cfg.GRPC))
	for i, g := range cfg.GRPC {
		grpcSpecs[i] = grpcSpec(cfg, g)
		indexOpts = append(indexOpts, toolindex.WithSource(c.grpc.Source(grpcSpecs[i])))
	}
	c.Index = toolindex.New(indexOpts...)
	c.Docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(c.Index)))

	local := toolrun.NewLocalExecutor()
	c.executors = toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendLocal: local,
		toolmodel.BackendMCP:   c.mcp,
		toolmodel.BackendGRPC:  c.grpc,
		toolmodel.BackendHTTP:  httpexec.New(),
	})
	c.Runner = newRunner(cfg, c.executors, c.Index)

	var jobs []job
	if !cfg.Builtin.Disabled {
		bopts := append([]builtin.Option{builtin.WithHTTPAllowList(cfg.Builtin.HTTPAllow...)}, o.builtin...)
		jobs = append(jobs, job{Upstream{Kind: "builtin", Name: "builtin"}, func(ctx context.Context) (int, error) {
			return c.addBuiltin(ctx, local, bopts)
		}})
	}
	for _, s := range cfg.MCPServers {
		jobs = append(jobs, job{Upstream{Kind: "mcp", Name: s.Name}, func(ctx context.Context) (int, error) {
			if err := mcpErrs[s.Name]; err != nil {
				return 0, err
			}
			return c.addMCPServer(ctx, s)
		}})
	}
	for i, o := range cfg.OpenAPI {
		jobs = append(jobs, job{Upstream{Kind: "openapi", Name: o.Name}, func(ctx context.Context) (int, error) {
			return c.addOpenAPI(ctx, cfg, i)
		}})
	}
	for i, g := range cfg.GRPC {
		jobs = append(jobs, job{Upstream{Kind: "grpc", Name: g.Name}, func(ctx context.Context) (int, error) {
			return c.addGRPC(ctx, grpcSpecs[i])
		}})
	}
	c.upstreams = connectAll(ctx, jobs, time.Duration(cfg.Limits.ConnectTimeout), o.progress, c.skippedTools)
	c.stopRefresh = c.mcp.AutoRefresh(c.Index)
	return c, nil
}

// skippedTools describes the tools of an upstream that were left out.
func (c *Catalog) skippedTools(u Upstream) []string {
	if u.Kind != "mcp" || u.Err != nil {
		return nil
	}
	var out []string
	for _, s := range c.mcp.SkippedTools(u.Name) {
		out = append(out, fmt.Sprintf("%q: %v", s.Name, s.Err))
	}
	return out
}

// newSearcher returns the search engine the configuration asks for.
func newSearcher(cfg config.Search) (toolindex.Searcher, error) {
	if cfg.Engine == "lexical" {
		return toolindex.NewLexicalSearcher(), nil
	}
	var opts []toolsearch.Option
	if cfg.IndexPath != "" {
		opts = append(opts, toolsearch.WithPath(cfg.IndexPath))
	}
	return toolsearch.New(opts...)
}

// newRunner returns the runner with the configuration's policy and limits.
func newRunner(cfg *config.Config, executors *toolrun.ExecutorRegistry, idx toolindex.Index) *toolrun.Runner {
	opts := []toolrun.Option{toolrun.WithIndex(idx), toolrun.WithIdempotentTools(idempotentTools(cfg)...)}
	if cfg.Limits.Timeout > 0 {
		opts = append(opts, toolrun.WithDefaultTimeout(time.Duration(cfg.Limits.Timeout)))
	}
	if len(cfg.Policy.Allow)+len(cfg.Policy.Deny) > 0 {
		// The patterns were checked by cfg.Validate.
		opts = append(opts, toolrun.WithAuthorization(toolrun.AllowDeny{Allow: cfg.Policy.Allow, Deny: cfg.Policy.Deny}))
	}
	if cfg.Limits.MaxConcurrent > 0 || cfg.Limits.PerBackend > 0 {
		opts = append(opts, toolrun.WithConcurrencyPolicy(toolrun.NewConcurrencyLimit(cfg.Limits.MaxConcurrent, cfg.Limits.PerBackend)))
	}
	if cfg.Limits.Retries > 0 {
		retry := toolrun.DefaultRetryPolicy()
		retry.MaxAttempts = cfg.Limits.Retries
		opts = append(opts, toolrun.WithRetryPolicy(retry))
	}
	return toolrun.New(executors, opts...)
}

// idempotentTools returns the patterns of tool IDs the upstreams declare
// idempotent: each upstream's patterns of its own tool names, in its
// namespace.
func idempotentTools(cfg *config.Config) []string {
	var patterns []string
	add := func(namespace, name string, own config.ToolPatterns) {
		for _, p := range own {
			patterns = append(patterns, config.NamespaceOf(namespace, name)+":"+p)
		}
	}
	for _, s := range cfg.MCPServers {
		add(s.Namespace, s.Name, s.Idempotent)
	}
	for _, o := range cfg.OpenAPI {
		add(o.Namespace, o.Name, o.Idempotent)
	}
	for _, g := range cfg.GRPC {
		add(g.Namespace, g.Name, g.Idempotent)
	}
	return patterns
}

// job connects one upstream and returns the number of tools it brought.
type job struct {
	upstream Upstream
	connect  func(ctx context.Context) (int, error)
}

// DefaultConnectTimeout bounds each upstream's connection when the
// configuration sets no bound.
const DefaultConnectTimeout = 30 * time.Second

// connectAll runs the jobs concurrently and returns their outcomes in the
// jobs' order.
func connectAll(ctx context.Context, jobs []job, timeout time.Duration, progress func(Upstream, bool), skipped func(Upstream) []string) []Upstream {
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	out := make([]Upstream, len(jobs))
	var wg sync.WaitGroup
	for i, j := range jobs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			u := j.upstream
			if progress != nil {
				progress(u, false)
			}
			start := time.Now()
			bound := timeout
			if u.Kind == "mcp" {
				// The session manager bounds an MCP server's connection
				// itself: with the server's own timeout, or a longer one
				// for a first start through npx, and its error names the
				// setting.
				bound = math.MaxInt64
			}
			jctx, cancel := context.WithTimeout(ctx, bound)
			defer cancel()
			u.Tools, u.Err = j.connect(jctx)
			u.Duration = time.Since(start)
			u.Skipped = skipped(u)
			out[i] = u
			if progress != nil {
				progress(u, true)
			}
		}()
	}
	wg.Wait()
	return out
}

func (c *Catalog) addBuiltin(ctx context.Context, local *toolrun.LocalExecutor, opts []builtin.Option) (int, error) {
	tools, err := builtin.Tools(opts...)
	if err != nil {
		return 0, err
	}
	if err := builtin.Register(ctx, c.Index, local, tools); err != nil {
		return 0, err
	}
	entries := make([]tooldocs.Entry, 0, len(tools))
	for _, t := range tools {
		e := tooldocs.Entry{ToolID: t.ID(), Source: "builtin"}
		for _, ex := range t.Examples {
			e.Examples = append(e.Examples, tooldocs.Example{Name: ex.Name, Description: ex.Description, Args: ex.Args})
		}
		entries = append(entries, e)
	}
	if err := c.Docs.RegisterMany(ctx, entries); err != nil {
		return 0, err
	}
	return len(tools), nil
}

// addMCPServer connects a server and registers the tools it lists.
func (c *Catalog) addMCPServer(ctx context.Context, s config.MCPServer) (int, error) {
	tools, err := c.mcp.ListTools(ctx, s.Name)
	if err != nil {
		return 0, err
	}
	regs := c.mcp.Registrations(s.Name, config.NamespaceOf(s.Namespace, s.Name), tools)
	if err := c.Index.RegisterMany(ctx, regs); err != nil {
		return 0, err
	}
	return len(regs), nil
}

// addOpenAPI imports the operations of the i-th OpenAPI document of cfg,
// from a file or a URL, within ctx (the connect timeout).
func (c *Catalog) addOpenAPI(ctx context.Context, cfg *config.Config, i int) (int, error) {
	o := cfg.OpenAPI[i]
	opts := []openapi.Option{openapi.WithCredentials(func(scheme string) openapi.Credentials {
		return openapi.Credentials{Secret: o.Secrets[scheme], Username: o.Usernames[scheme]}
	}), openapi.WithMaxDocumentBytes(o.MaxDocumentBytes)}
	if o.BaseURL != "" {
		opts = append(opts, openapi.WithBaseURL(o.BaseURL))
	}
	namespace := config.NamespaceOf(o.Namespace, o.Name)
	spec := cfg.Path(o.Spec)
	var regs []toolindex.Registration
	var err error
	if u, perr := url.Parse(spec); perr == nil && (u.Scheme == "http" || u.Scheme == "https") {
		regs, err = openapi.ImportURL(ctx, namespace, spec, opts...)
	} else {
		regs, err = openapi.ImportFile(ctx, namespace, spec, opts...)
	}
	if errors.Is(err, openapi.ErrDocumentTooLarge) {
		return 0, fmt.Errorf("%w; openapi[%d].maxDocumentBytes raises the limit", err, i)
	}
	if err != nil {
		return 0, err
	}
	if err := c.Index.RegisterMany(ctx, regs); err != nil {
		return 0, err
	}
	return len(regs), nil
}

// grpcSpec returns the import of a configured gRPC service.
func grpcSpec(cfg *config.Config, g config.GRPC) grpcexec.ImportSpec {
	spec := grpcexec.ImportSpec{Address: g.Address, Namespace: config.NamespaceOf(g.Namespace, g.Name), Services: g.Services}
	if g.TLS != (config.TLS{}) {
		spec.TLS = &toolmodel.GRPCTLS{Insecure: g.TLS.Insecure, CAFile: cfg.Path(g.TLS.CAFile), ServerName: g.TLS.ServerName}
	}
	return spec
}

// addGRPC imports the methods of a gRPC service through its reflection.
func (c *Catalog) addGRPC(ctx context.Context, spec grpcexec.ImportSpec) (int, error) {
	res, err := c.grpc.Import(ctx, spec)
	if err != nil {
		return 0, err
	}
	if err := c.Index.RegisterMany(ctx, res.Registrations); err != nil {
		return 0, err
	}
	return len(res.Registrations), nil
}

// NewServer returns a server over the catalogue, with opts: its tools
// behind the meta-tools, and the resources, resource templates, prompts
// and completions of its MCP upstreams, whose changes it follows. The
// tools, prompts and resources of an upstream configured with keepNames
// are exposed under their own names; a name one of them shares with a
// meta-tool or another upstream is an error of code [errors.Conflict]
// ([toolserver.Server.Err]), and no server is returned. Close the server
// before the catalogue.
func (c *Catalog) NewServer(opts ...toolserver.Option) (*toolserver.Server, error) {
	all := append([]toolserver.Option{toolserver.WithUpstreams(c.mcp, c.mcpUpstreams...)}, opts...)
	srv := toolserver.New(c.Index, c.Docs, c.Runner, all...)
	if err := srv.Err(); err != nil {
		srv.Close()
		return nil, fmt.Errorf("keepNames: %w", err)
	}
	c.relay.attach(srv)
	return srv, nil
}

// relay passes the reports of the MCP upstreams to the servers built over
// the catalogue. A server attached later is told of every upstream that
// reported a change so far, since its first listing, made while it was
// built, may have preceded the report.
type relay struct {
	mu      sync.Mutex
	servers []*toolserver.Server
	pending map[string]bool
}

func (r *relay) notifications() mcpexec.ServerNotifications {
	return mcpexec.ServerNotifications{
		ResourceListChanged: r.changed,
		PromptListChanged:   r.changed,
		ResourceUpdated: func(server string, params *mcp.ResourceUpdatedNotificationParams) {
			for _, s := range r.attached() {
				s.UpstreamResourceUpdated(server, params)
			}
		},
	}
}

func (r *relay) attached() []*toolserver.Server {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.servers)
}

func (r *relay) changed(server string) {
	r.mu.Lock()
	r.pending[server] = true
	servers := slices.Clone(r.servers)
	r.mu.Unlock()
	for _, s := range servers {
		s.UpstreamChanged(server)
	}
}

func (r *relay) attach(s *toolserver.Server) {
	r.mu.Lock()
	r.servers = append(r.servers, s)
	pending := slices.Sorted(maps.Keys(r.pending))
	r.mu.Unlock()
	for _, server := range pending {
		s.UpstreamChanged(server)
	}
}

// Upstreams returns the outcome of connecting each upstream, in the order
// of the configuration, the built-in tools first.
func (c *Catalog) Upstreams() []Upstream { return slices.Clone(c.upstreams) }

// Close stops the upstream sessions and processes and the search engine.
func (c *Catalog) Close() error {
	var errs []error
	if c.stopRefresh != nil {
		c.stopRefresh()
	}
	if c.executors != nil {
		errs = append(errs, c.executors.Close())
	} else {
		if c.mcp != nil {
			errs = append(errs, c.mcp.Close())
		}
		if c.grpc != nil {
			errs = append(errs, c.grpc.Close())
		}
	}
	if c.searcher != nil {
		errs = append(errs, c.searcher.Close())
	}
	return errors.Join(errs...)
}
