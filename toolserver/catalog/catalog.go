// Package catalog builds the tool catalogue a metatools server serves from
// its configuration: the index and its search engine, the documentation
// store, the executors of every backend kind and the runner, then the
// tools of the built-in catalogue and of every upstream (MCP servers,
// OpenAPI documents, gRPC services), each connected in the background.
// Secrets of HTTP APIs are read from environment variables when a call
// is made.
//
//	cat, err := catalog.Build(ctx, cfg, catalog.WithProgress(show))
//	if err != nil { ... }
//	defer cat.Close()
//	srv, err := cat.NewServer(toolserver.WithLogger(logger)) // serve at once
//	if err != nil { ... } // a name clash of upstreams that keep their names
//	// or, for a one-shot command that needs the tools:
//	err = cat.Wait(ctx) // every upstream up or failed once
//	for _, u := range cat.Upstreams() { ... } // connecting, up or failed
//
// [Build] returns at once. Each upstream then connects on a goroutine of
// its own, and its tools enter the index as it arrives, so a server over
// the catalogue answers before the slowest upstream is there. An upstream
// that fails is reported in [Catalog.Upstreams] (state failed, with the
// error and the time of the next attempt) and tried again with an
// exponential backoff (1s doubling up to 60s, with jitter); the others are
// served meanwhile.
//
// The tools of MCP servers and gRPC services enter the index only
// through its sources ([toolindex.WithSource], [toolindex.Index.Refresh]):
// an MCP server that reports a change of its tools
// (notifications/tools/list_changed) is listed again, and search results
// follow. An OpenAPI document is imported once it is read.
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
	"math/rand/v2"
	"net/http"
	"net/url"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/httpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/openapi"
	"github.com/metatools-go/metatools/toolruntime"
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
	// Ops are the operations over them, as every face offers them: the
	// configuration's policies, search limit, chain and answer limits,
	// and the upstreams' states.
	Ops *toolops.Service

	// cfg is the configuration the catalogue was built from; codeMode is
	// its code mode, made by Build when the configuration turns it on,
	// under the profile codeModeProfile; spares says how many sandboxes
	// code engines keep ready.
	cfg             *config.Config
	codeMode        *toolserver.CodeMode
	codeModeProfile string
	spares          spares
	logger          *slog.Logger
	// sandboxes are the runtimes of code mode made so far, which Close
	// closes; warmed is closed once Build's code mode has its sandboxes
	// started ahead (or failed to start them), and ready waits for it.
	sandboxesMu sync.Mutex
	sandboxes   []*toolruntime.Runtime
	warmed      chan struct{}

	executors   *toolrun.ExecutorRegistry
	telemetry   *telemetry
	trust       *gate
	mcp         *mcpexec.Manager
	grpc        *grpcexec.Executor
	searcher    io.Closer
	stopRefresh func()

	// The connection of the upstreams in the background: ctx ends with
	// Close, wg counts the goroutines, ready closes once every upstream
	// has been up or failed once.
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
	ready   chan struct{}
	settled []chan struct{} // closed once each upstream is up or failed
	backoff backoff

	mu        sync.Mutex
	upstreams []toolops.Upstream
	// keepNames are the upstreams whose tools keep their names, which a
	// server waits for (NewServer).
	keepNames []int
	// The MCP upstreams a server aggregates, and the relay of their
	// reports to the servers built over the catalogue.
	mcpUpstreams []toolserver.Upstream
	relay        *relay
}

// The session manager gives servers the sessions of the MCP upstreams.
var _ toolserver.Upstreams = (*mcpexec.Manager)(nil)

// Option configures [Build].
type Option func(*options)

type options struct {
	logger   *slog.Logger
	progress func(u toolops.Upstream, done bool)
	stderr   io.Writer
	builtin  []builtin.Option
	backoff  backoff
	// publishers receive the runner's events, besides the audit log.
	publishers []toolrun.EventPublisher
	spares     spares
}

// WithLogger sets the logger of the catalogue's components.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithProgress is called on each change of an upstream's state: when a
// connection attempt starts (done false, state [toolops.UpstreamConnecting]) and when it
// ends (done true, state [toolops.UpstreamUp] with its tool count, or [toolops.UpstreamFailed] with its
// error and next retry), from several goroutines at once; the calls for
// one upstream come in order.
func WithProgress(fn func(u toolops.Upstream, done bool)) Option {
	return func(o *options) { o.progress = fn }
}

// Defaults of the backoff between connection attempts of a failing
// upstream.
const (
	// DefaultRetryInitial is the delay after the first failure.
	DefaultRetryInitial = time.Second
	// DefaultRetryMax bounds the delay, which doubles with each failure.
	DefaultRetryMax = time.Minute
)

// WithRetryBackoff sets the delay before a failed upstream is tried
// again: initial after the first failure, doubling with each further
// one, up to maximum, each delay shortened by a random part of up to a
// fifth so that upstreams failing together are not retried together. The
// defaults are [DefaultRetryInitial] and [DefaultRetryMax]; values that
// are not positive, or a maximum below initial, keep them.
func WithRetryBackoff(initial, maximum time.Duration) Option {
	return func(o *options) {
		if initial > 0 && maximum >= initial {
			o.backoff.initial, o.backoff.max = initial, maximum
		}
	}
}

// WithUpstreamStderr streams the standard error of every MCP server
// started as a command to w, line by line, each line prefixed by the
// server's name in brackets ("[github] ..."), but for the servers whose
// configuration says otherwise (stderr: quiet or log). By default only
// the servers configured with stderr: stream are streamed, to the
// process's standard error. The last lines are kept in any case, and
// quoted by the errors of failed connections and calls.
func WithUpstreamStderr(w io.Writer) Option { return func(o *options) { o.stderr = w } }

// WithEventPublisher gives the runner's events to p too, besides the
// audit log the configuration may ask for: what the web console's list of
// recent calls is made of.
func WithEventPublisher(p toolrun.EventPublisher) Option {
	return func(o *options) { o.publishers = append(o.publishers, p) }
}

// WithBuiltinOptions passes options to the built-in tools (a clock, an
// HTTP client), after those the configuration implies.
func WithBuiltinOptions(opts ...builtin.Option) Option {
	return func(o *options) { o.builtin = append(o.builtin, opts...) }
}

// Build builds the catalogue of cfg and returns at once: it fails only
// when the catalogue itself cannot be built: a configuration that
// [config.Config.Validate] refuses (the check that loading a file makes),
// or a search index path that cannot be opened. The built-in tools are in the index when it returns; every
// other upstream connects in the background, each attempt bounded by the
// configured connect timeout ([DefaultConnectTimeout] by default), and is
// retried while it fails ([WithRetryBackoff]); [Catalog.Upstreams] tells
// where each stands and [Catalog.Wait] waits for them. Their connections
// last until [Catalog.Close], whatever becomes of ctx.
func Build(ctx context.Context, cfg *config.Config, opts ...Option) (*Catalog, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	o := options{logger: slog.Default(), spares: servingSpares,
		backoff: backoff{initial: DefaultRetryInitial, max: DefaultRetryMax, jitter: rand.Float64}}
	for _, opt := range opts {
		opt(&o)
	}
	c := &Catalog{relay: &relay{pending: map[string]bool{}}, ready: make(chan struct{}), backoff: o.backoff, cfg: cfg, spares: o.spares, logger: o.logger}
	// A sandbox this machine cannot run stops the build before any
	// upstream is started.
	var sandboxes *toolruntime.Runtime
	if cfg.CodeMode.Enabled {
		cm, p, rt, err := c.codeModeOf("")
		if err != nil {
			return nil, err
		}
		c.codeMode, c.codeModeProfile, sandboxes = &cm, string(p), rt
	}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(ctx))
	searcher, err := newSearcher(cfg.Search)
	if err != nil {
		c.cancel()
		return nil, errors.Join(err, c.closeSandboxes())
	}
	if sandboxes != nil {
		c.warm(sandboxes)
	}
	if c.telemetry, err = newTelemetry(ctx, cfg, o.logger); err != nil {
		c.Close()
		return nil, fmt.Errorf("telemetry: %w", err)
	}
	if c.trust, err = newGate(cfg, o.logger); err != nil {
		c.Close()
		return nil, fmt.Errorf("trust: %w", err)
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
		mcpexec.WithToolLimits(cfg.Limits.UpstreamTools, cfg.Limits.ToolBytes),
		mcpexec.WithTracerProvider(c.telemetry.tracerProvider()), mcpexec.WithMeterProvider(c.telemetry.meterProvider()),
		mcpexec.WithSharedCapabilities(mcp.ClientCapabilities{
			Sampling:    &mcp.SamplingCapabilities{},
			Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}, URL: &mcp.URLElicitationCapabilities{}},
		}))
	if err != nil {
		c.Close()
		return nil, err
	}
	c.grpc = grpcexec.New(grpcexec.WithTracerProvider(c.telemetry.tracerProvider()))

	// The jobs, in the order of Upstreams: the built-in tools, then MCP
	// servers, OpenAPI documents and gRPC services. MCP servers and gRPC
	// services are declared first (nothing connects yet), so that the
	// index follows each of them as a source.
	var jobs []job
	indexOpts := []toolindex.Option{toolindex.WithSearcher(searcher)}
	if !cfg.Builtin.Disabled {
		jobs = append(jobs, job{upstream: toolops.Upstream{Kind: "builtin", Name: "builtin"}, inline: true})
	}
	stderr := newUpstreamStderr(o.stderr)
	for _, s := range cfg.MCPServers {
		j := job{upstream: toolops.Upstream{Kind: "mcp", Name: s.Name, Namespaces: []string{config.NamespaceOf(s.Namespace, s.Name)}},
			retry: true, keepNames: s.KeepNames}
		if err := c.mcp.AddServer(s.Name, mcpConfig(s, stderr)); err != nil {
			// A fault of the configuration, which no retry cures.
			j.connect, j.retry = func(context.Context) (int, error) { return 0, err }, false
			jobs = append(jobs, j)
			continue
		}
		namespace := config.NamespaceOf(s.Namespace, s.Name)
		src := c.track(len(jobs), s.Name, c.mcp.Source(s.Name, namespace))
		indexOpts = append(indexOpts, toolindex.WithSource(src))
		j.connect = func(ctx context.Context) (int, error) { return c.refresh(ctx, src) }
		// Once up, the servers built over the catalogue list its
		// resources and prompts; a server lists those of an upstream that
		// keeps its names when it is built, which waits for the upstream.
		j.up = func() { c.relay.changed(s.Name) }
		jobs = append(jobs, j)
		c.mcpUpstreams = append(c.mcpUpstreams, toolserver.Upstream{Server: s.Name, Namespace: namespace, KeepNames: s.KeepNames, Deferred: !s.KeepNames})
	}
	for i := range cfg.OpenAPI {
		o, at := cfg.OpenAPI[i], len(jobs)
		jobs = append(jobs, job{upstream: toolops.Upstream{Kind: "openapi", Name: o.Name, Namespaces: []string{config.NamespaceOf(o.Namespace, o.Name)}}, retry: true,
			connect: func(ctx context.Context) (int, error) { return c.addOpenAPI(ctx, cfg, i, at) }})
	}
	for _, g := range cfg.GRPC {
		src := c.track(len(jobs), g.Name, c.grpc.Source(grpcSpec(cfg, g)))
		indexOpts = append(indexOpts, toolindex.WithSource(src))
		jobs = append(jobs, job{upstream: toolops.Upstream{Kind: "grpc", Name: g.Name, Namespaces: []string{config.NamespaceOf(g.Namespace, g.Name)}}, retry: true,
			connect: func(ctx context.Context) (int, error) { return c.refresh(ctx, src) }})
	}
	c.Index = toolindex.New(indexOpts...)
	c.Docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(c.Index)))

	local := toolrun.NewLocalExecutor()
	c.executors = toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendLocal: local,
		toolmodel.BackendMCP:   c.mcp,
		toolmodel.BackendGRPC:  c.grpc,
		toolmodel.BackendHTTP:  httpexec.New(httpexec.WithTracerProvider(c.telemetry.tracerProvider())),
	})
	c.Runner = newRunner(cfg, c.executors, c.Index, c.telemetry, o.publishers)
	opsOpts := []toolops.Option{toolops.WithUpstreams(c.Upstreams), toolops.WithMeterProvider(c.telemetry.meterProvider()), toolops.WithLimits(toolops.Limits{
		SearchResults: cfg.Search.Limit, ChainSteps: cfg.Limits.ChainSteps, AnswerBytes: cfg.Limits.AnswerBytes,
	})}
	if cfg.Server.StateKey != "" {
		opsOpts = append(opsOpts, toolops.WithStateKey([]byte(cfg.Server.StateKey)))
	}
	c.Ops, err = toolops.New(c.Index, c.Docs, c.Runner, opsOpts...)
	if err != nil {
		c.Close()
		return nil, err
	}
	if !cfg.Builtin.Disabled {
		// The built-in tools are local: they are registered before Build
		// returns, and a failure (a bad option) is not retried.
		bopts := append([]builtin.Option{builtin.WithHTTPAllowList(cfg.Builtin.HTTPAllow...)}, o.builtin...)
		jobs[0].upstream.Namespaces = builtinNamespaces(bopts)
		jobs[0].connect = func(ctx context.Context) (int, error) { return c.addBuiltin(ctx, local, bopts) }
	}
	// An upstream's report of a change of its tools refreshes its source,
	// from the moment it connects.
	c.stopRefresh = c.mcp.AutoRefresh(c.Index)
	c.start(jobs, connectTimeout, o.progress)
	relist := map[string]func(context.Context) (int, error){}
	for _, j := range jobs {
		if j.upstream.Kind != "builtin" {
			relist[j.upstream.Name] = j.connect
		}
	}
	c.wg.Go(func() { c.watchApprovals(relist) })
	return c, nil
}

// skippedTools describes the tools of an MCP server that its last
// listing left out.
func (c *Catalog) skippedTools(u *toolops.Upstream) []string {
	if u.Kind != "mcp" {
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
	if cfg.Feedback {
		opts = append(opts, toolsearch.WithFeedback(toolsearch.DefaultFeedback()))
	}
	if e := cfg.Embeddings; e != nil {
		opts = append(opts, toolsearch.WithEmbedder(&toolsearch.OpenAIEmbedder{
			BaseURL: e.URL, Model: e.Model, APIKey: e.APIKey, Dimensions: e.Dimensions,
		}))
	}
	return toolsearch.New(opts...)
}

// newRunner returns the runner with the configuration's policy and limits.
func newRunner(cfg *config.Config, executors *toolrun.ExecutorRegistry, idx toolindex.Index, t *telemetry, publishers []toolrun.EventPublisher) *toolrun.Runner {
	opts := append([]toolrun.Option{toolrun.WithIndex(idx), toolrun.WithIdempotentTools(idempotentTools(cfg)...)}, t.runnerOptions()...)
	for _, p := range publishers {
		opts = append(opts, toolrun.WithEventPublisher(p))
	}
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

// job connects one upstream.
type job struct {
	upstream toolops.Upstream
	// connect makes one attempt and returns the number of tools the
	// upstream brought.
	connect func(ctx context.Context) (int, error)
	// retry tries again after a failure; inline makes the attempt before
	// Build returns.
	retry, inline bool
	keepNames     bool
	// up, when set, is called once the upstream is up.
	up func()
}

// DefaultConnectTimeout bounds each upstream's connection attempt when
// the configuration sets no bound.
const DefaultConnectTimeout = 30 * time.Second

// backoff is the delay between the connection attempts of a failing
// upstream.
type backoff struct {
	initial, max time.Duration
	// jitter returns a number in [0, 1): the part of a fifth of the
	// delay taken off it.
	jitter func() float64
}

// delay returns the delay after the given number of consecutive failed
// attempts (at least 1).
func (b backoff) delay(failures int) time.Duration {
	d := b.initial
	for i := 1; i < failures && d < b.max; i++ {
		d *= 2
	}
	d = min(d, b.max)
	return d - time.Duration(float64(d/5)*b.jitter())
}

// start sets every upstream connecting and starts following each one.
func (c *Catalog) start(jobs []job, timeout time.Duration, progress func(toolops.Upstream, bool)) {
	now := time.Now()
	c.upstreams = make([]toolops.Upstream, len(jobs))
	c.settled = make([]chan struct{}, len(jobs))
	for i, j := range jobs {
		c.upstreams[i] = j.upstream
		// The first attempt starts now.
		c.upstreams[i].State, c.upstreams[i].Since, c.upstreams[i].Attempts = toolops.UpstreamConnecting, now, 1
		c.settled[i] = make(chan struct{})
		if j.keepNames {
			c.keepNames = append(c.keepNames, i)
		}
	}
	c.wg.Go(func() {
		waits := c.settled
		if c.warmed != nil {
			waits = append(slices.Clone(waits), c.warmed)
		}
		for _, ch := range waits {
			select {
			case <-ch:
			case <-c.ctx.Done():
				return
			}
		}
		close(c.ready)
	})
	for i, j := range jobs {
		if j.inline {
			c.follow(i, j, timeout, progress)
		} else {
			c.wg.Go(func() { c.follow(i, j, timeout, progress) })
		}
	}
}

// follow connects the i-th upstream, trying again after each failure
// when its job says so, until it is up or the catalogue closes.
func (c *Catalog) follow(i int, j job, timeout time.Duration, progress func(toolops.Upstream, bool)) {
	settle := sync.OnceFunc(func() { close(c.settled[i]) })
	for attempt := 1; ; attempt++ {
		start := time.Now()
		c.update(i, progress, false, func(u *toolops.Upstream) {
			u.State, u.Attempts, u.Since, u.NextRetry = toolops.UpstreamConnecting, attempt, start, time.Time{}
		})
		ctx, cancel := context.WithTimeout(c.ctx, timeout)
		if j.upstream.Kind == "mcp" {
			// The session manager bounds an MCP server's connection
			// itself: with the server's own timeout, or a longer one for
			// a first start through npx, and its error names the setting.
			cancel()
			ctx, cancel = context.WithCancel(c.ctx)
		}
		n, err := j.connect(ctx)
		cancel()
		if c.ctx.Err() != nil {
			return // closing
		}
		end := time.Now()
		if err == nil {
			c.update(i, progress, true, func(u *toolops.Upstream) {
				u.State, u.Tools, u.Error, u.ErrorCode, u.Since, u.Duration = toolops.UpstreamUp, n, "", "", end, end.Sub(start)
				u.Skipped = c.skippedTools(u)
			})
			settle()
			if j.up != nil {
				j.up()
			}
			return
		}
		var next time.Time
		delay := c.backoff.delay(attempt)
		if j.retry {
			next = end.Add(delay)
		}
		c.update(i, progress, true, func(u *toolops.Upstream) {
			u.State, u.Tools, u.Since, u.Duration, u.NextRetry = toolops.UpstreamFailed, 0, end, end.Sub(start), next
			u.Error, u.ErrorCode = failureText(err), errors.CodeOf(err)
			u.Skipped = nil
		})
		settle()
		if !j.retry {
			return
		}
		t := time.NewTimer(delay)
		select {
		case <-c.ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
	}
}

// update changes the state of the i-th upstream and reports it.
func (c *Catalog) update(i int, progress func(toolops.Upstream, bool), done bool, fn func(u *toolops.Upstream)) {
	c.mu.Lock()
	fn(&c.upstreams[i])
	u := c.upstreams[i]
	u.Skipped = slices.Clone(u.Skipped)
	c.mu.Unlock()
	if progress != nil {
		progress(u, done)
	}
}

// trackedSource is a source of the i-th upstream, named name, whose
// listings the catalogue watches: what its trust admits of each, the
// outcome of the last one, and, once the upstream is up, its tool count
// after each refresh.
type trackedSource struct {
	toolindex.Source
	c    *Catalog
	i    int
	name string

	mu    sync.Mutex
	tools int
	err   error
}

func (c *Catalog) track(i int, name string, src toolindex.Source) *trackedSource {
	return &trackedSource{Source: src, c: c, i: i, name: name}
}

// ListTools implements [toolindex.Source]: it lists the tools of the
// source that the upstream's trust admits.
func (s *trackedSource) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	regs, err := s.Source.ListTools(ctx)
	if err == nil {
		var withheld []toolops.Quarantined
		if regs, withheld, err = s.c.trust.tools(s.name, regs); err == nil {
			s.c.withhold(s.i, withheld)
		}
	}
	s.mu.Lock()
	s.err = err
	if err == nil {
		s.tools = len(regs)
	}
	s.mu.Unlock()
	if err == nil {
		s.c.mu.Lock()
		if u := &s.c.upstreams[s.i]; u.State == toolops.UpstreamUp {
			u.Tools, u.Skipped = len(regs), s.c.skippedTools(u)
		}
		s.c.mu.Unlock()
	}
	return regs, err
}

// withhold records the tools of the i-th upstream that its trust keeps
// from the catalogue.
func (c *Catalog) withhold(i int, tools []toolops.Quarantined) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.upstreams[i].Quarantined = tools
}

// refresh refreshes a source in the index and returns its tool count, or
// the error of its listing (as the upstream gave it) or of the refresh.
func (c *Catalog) refresh(ctx context.Context, src *trackedSource) (int, error) {
	err := c.Index.Refresh(ctx, src.Identity())
	src.mu.Lock()
	defer src.mu.Unlock()
	if src.err != nil {
		return 0, src.err
	}
	if err != nil {
		return 0, err
	}
	return src.tools, nil
}

func (c *Catalog) addBuiltin(ctx context.Context, local *toolrun.LocalExecutor, opts []builtin.Option) (int, error) {
	tools, err := builtin.Tools(opts...)
	if err != nil {
		return 0, err
	}
	if err := builtin.Register(ctx, c.Index, local, tools); err != nil {
		return 0, err
	}
	ids := make([]string, len(tools))
	for i, t := range tools {
		ids[i] = t.ID()
	}
	c.trust.builtin(ids)
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

// builtinNamespaces returns the namespaces of the built-in tools opts
// give; none when they cannot be made, which their upstream reports.
func builtinNamespaces(opts []builtin.Option) []string {
	tools, err := builtin.Tools(opts...)
	if err != nil {
		return nil
	}
	var out []string
	for _, t := range tools {
		if !slices.Contains(out, t.Definition.Namespace) {
			out = append(out, t.Definition.Namespace)
		}
	}
	return out
}

// addOpenAPI imports the operations of the i-th OpenAPI document of cfg,
// the upstream at, from a file or a URL, within ctx (the connect
// timeout): those its trust admits.
func (c *Catalog) addOpenAPI(ctx context.Context, cfg *config.Config, i, at int) (int, error) {
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
	regs, withheld, err := c.trust.tools(o.Name, regs)
	if err != nil {
		return 0, err
	}
	c.withhold(at, withheld)
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

// NewServer returns the configured server over the catalogue: its tools
// behind the meta-tools (and execute_code when the configuration turns
// code mode on), the tools the configuration passes through, the
// resources, resource templates, prompts and completions of its MCP
// upstreams, whose changes it follows, the state of every upstream in
// list_namespaces, and the configuration's server name and shutdown
// timeout. opts come after the configuration's options and win over
// them. It does not wait for the upstreams to connect, except for those
// configured with keepNames: their tools, prompts and resources are
// exposed under their own names, so NewServer waits until each has been
// up or failed once (within the connect timeout), and a name one of them
// shares with a meta-tool or another upstream is an error of code
// [errors.Conflict], and no server is returned. Close the server before
// the catalogue.
func (c *Catalog) NewServer(opts ...toolserver.Option) (*toolserver.Server, error) {
	for _, i := range c.keepNames {
		select {
		case <-c.settled[i]:
		case <-c.ctx.Done():
		}
	}
	srv, err := toolserver.New(c.Ops, append(c.serverOptions(), opts...)...)
	if err != nil {
		return nil, fmt.Errorf("keepNames: %w", err)
	}
	c.relay.attach(srv)
	return srv, nil
}

// MetricsHandler serves the metrics in Prometheus' text format, asking
// for telemetry.prometheusToken when one is configured; nil unless
// telemetry.prometheus is. The metatools command serves it at /metrics
// on that address.
func (c *Catalog) MetricsHandler() http.Handler {
	if c.telemetry == nil {
		return nil
	}
	return c.telemetry.metrics
}

// serverOptions are the options of the configured server.
func (c *Catalog) serverOptions() []toolserver.Option {
	opts := []toolserver.Option{
		toolserver.WithUpstreams(c.mcp, c.mcpUpstreams...),
		toolserver.WithUpstreamTrust(c.trust.upstreamTrust()),
		toolserver.WithPassthrough(c.cfg.Server.Passthrough...),
		toolserver.WithTracerProvider(c.telemetry.tracerProvider()),
		toolserver.WithMeterProvider(c.telemetry.meterProvider()),
	}
	if c.cfg.Server.Name != "" {
		opts = append(opts, toolserver.WithImplementation(c.cfg.Server.Name, toolmodel.ModuleVersion(serverPackage)))
	}
	if c.cfg.Server.ShutdownTimeout > 0 {
		opts = append(opts, toolserver.WithShutdownTimeout(time.Duration(c.cfg.Server.ShutdownTimeout)))
	}
	if c.codeMode != nil {
		opts = append(opts, toolserver.WithCodeMode(*c.codeMode))
	}
	return opts
}

// serverPackage is the package of the server, whose module's version the
// configured server reports under the configuration's name.
const serverPackage = "github.com/metatools-go/metatools/toolserver"

// HTTPOptions returns the options of the configured server's streamable
// HTTP endpoint (server.http): sessions, bounds, origins, bearer tokens
// and OAuth.
func (c *Catalog) HTTPOptions() toolserver.HTTPOptions {
	h := c.cfg.Server.HTTP
	opts := toolserver.HTTPOptions{
		Stateless:          h.Stateless,
		SessionIdleTimeout: time.Duration(h.SessionIdleTimeout),
		MaxSessions:        h.MaxSessions,
		BodyReadTimeout:    time.Duration(h.BodyReadTimeout),
		AllowedOrigins:     h.AllowedOrigins,
		BearerTokens:       slices.Clone(h.BearerTokens),
	}
	if h.OAuth != nil {
		opts.OAuth = h.OAuth.Options()
	}
	return opts
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
		// A reconnected upstream is listed again, and subscribed to again.
		Reconnected: r.changed,
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

// Upstreams returns the current state of each upstream, in the order of
// the configuration, the built-in tools first. It is safe for concurrent
// use.
func (c *Catalog) Upstreams() []toolops.Upstream {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := slices.Clone(c.upstreams)
	for i := range out {
		out[i].Skipped = slices.Clone(out[i].Skipped)
		out[i].Quarantined = slices.Clone(out[i].Quarantined)
	}
	return out
}

// failureText is the text of an upstream's failure, for the agents that
// read it in list_namespaces and the people who watch start-up: the
// cause, without the operation and backend that a log names.
func failureText(err error) string {
	var e *errors.Error
	if errors.As(err, &e) && e == err && e.Err != nil { //nolint:errorlint // the top of the chain itself
		return e.Err.Error()
	}
	return err.Error()
}

// Ready returns a channel that is closed once every upstream has been up
// or failed at least once: the moment a one-shot command has every tool
// it will get without waiting for retries.
func (c *Catalog) Ready() <-chan struct{} { return c.ready }

// Wait waits until every upstream has been up or failed at least once
// ([Catalog.Ready]), which takes at most the connect timeout since each
// attempt is bounded by it, or until ctx ends, and returns ctx's error
// then. It returns an error of code [errors.Unavailable] once the
// catalogue is closed.
func (c *Catalog) Wait(ctx context.Context) error {
	select {
	case <-c.ready:
		return nil
	case <-ctx.Done():
		return errors.E(errors.CodeOf(ctx.Err()), ctx.Err())
	case <-c.ctx.Done():
		return errors.Errorf(errors.Unavailable, "the catalogue is closed")
	}
}

// Close stops connecting the upstreams, their sessions and processes and
// the search engine.
func (c *Catalog) Close() error {
	var errs []error
	if c.cancel != nil {
		c.cancel()
	}
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
	// The connections under way end with the sessions.
	c.wg.Wait()
	errs = append(errs, c.closeSandboxes())
	if c.searcher != nil {
		errs = append(errs, c.searcher.Close())
	}
	// Last: the spans and measures of everything above are exported.
	errs = append(errs, c.telemetry.shutdown())
	return errors.Join(errs...)
}
