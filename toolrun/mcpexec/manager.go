package mcpexec

import (
	"context"
	"io"
	"log/slog"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpotel"
)

// Manager holds the sessions of a set of MCP servers, configured by name,
// and runs their tools: it is the [toolrun.Executor] of
// [toolmodel.BackendMCP] backends, whose Server field names a server of
// the manager.
//
// A server's session is opened on first use and shared by every call to
// that server, except the calls on behalf of a client that answers the
// server's requests, which get a session of their own ([WithClient]).
// When the server goes away (its process exits, its HTTP session ends),
// the next call opens a new session; a call that finds its
// session closed before its request could be sent opens a new one and is
// sent again, once. A connection attempt that fails delays the next one
// by a backoff that doubles with each failure (see
// [WithReconnectBackoff]); calls made meanwhile fail at once with a
// retryable [errors.Unavailable] error that tells the runner's retry
// policy how long to wait ([toolrun.RetryAfter]).
//
// A Manager is safe for concurrent use. [Manager.Close] closes every
// session, ending the processes it started.
type Manager struct {
	opts   options
	ctx    context.Context // ends with Close: cancels connection attempts and refreshes
	cancel context.CancelFunc
	// wg counts the goroutines the manager starts for its servers:
	// connection attempts, session watchers and session closings.
	wg sync.WaitGroup

	mu         sync.RWMutex
	servers    map[string]*server
	refreshers map[*refresher]struct{}
	closed     bool

	progress sync.Map // progress token (string) → *progressSink
	tokens   atomic.Uint64
	clients  clients
}

var (
	_ toolrun.Executor = (*Manager)(nil)
	// The executor registry closes the executors that are closers.
	_ io.Closer = (*Manager)(nil)
)

// options are the settings of a Manager.
type options struct {
	servers        []namedConfig
	client         *mcp.Implementation
	connectTimeout time.Duration
	// discoverTimeout bounds the wait for the answer to server/discover
	// (WithDiscoverTimeout).
	discoverTimeout time.Duration
	terminate       time.Duration
	backoffInitial  time.Duration
	backoffMax      time.Duration
	refreshDelay    time.Duration
	logger          *slog.Logger
	shared          *mcp.ClientCapabilities
	notifications   ServerNotifications
	// telemetry traces and measures the requests sent to the servers.
	telemetry mcpotel.Config
	// maxTools and maxToolBytes bound what one server's listing may make
	// the manager hold (WithToolLimits).
	maxTools, maxToolBytes int
	// The names of the connect timeout settings, for errors (see
	// WithConnectTimeoutSettings).
	globalTimeoutSetting, ownTimeoutSetting string
}

type namedConfig struct {
	name string
	cfg  ServerConfig
}

// Option configures a [Manager].
type Option func(*options)

// WithServer configures a server under a name, which backends refer to
// in [toolmodel.MCPBackend.Server]. The name follows the rules of tool
// names ([toolmodel.ValidateName]).
func WithServer(name string, cfg ServerConfig) Option {
	return func(o *options) { o.servers = append(o.servers, namedConfig{name: name, cfg: cfg}) }
}

// pkgPath is this package's import path, whose module's version the
// implementation reports.
const pkgPath = "github.com/metatools-go/metatools/toolrun/mcpexec"

// WithClientInfo sets the name and version the manager gives servers
// when it connects; the default is "metatools" and the version of this
// package's module in the running binary ([toolmodel.ModuleVersion]).
func WithClientInfo(impl mcp.Implementation) Option {
	return func(o *options) { o.client = &impl }
}

// WithConnectTimeout bounds a connection attempt, from starting the
// server or reaching its URL to the end of the MCP handshake; the default
// is 30 seconds.
func WithConnectTimeout(d time.Duration) Option {
	return func(o *options) { o.connectTimeout = d }
}

// WithTerminateTimeout sets how long closing a command server waits for
// it to exit once its standard input is closed, before sending SIGTERM,
// and again before SIGKILL; the default is 1 second.
// [ServerConfig.TerminateTimeout] overrides it for one server.
func WithTerminateTimeout(d time.Duration) Option {
	return func(o *options) { o.terminate = d }
}

// WithReconnectBackoff sets the delay before a new connection attempt
// after one failed: initial after the first failure, doubling with each
// further one, up to maximum. The defaults are 100 milliseconds and 5
// seconds. A successful connection resets the delay.
func WithReconnectBackoff(initial, maximum time.Duration) Option {
	return func(o *options) { o.backoffInitial, o.backoffMax = initial, maximum }
}

// WithRefreshDelay sets how long an index kept up to date by
// [Manager.AutoRefresh] waits after a server reported that its tools
// changed before it refreshes, so that a burst of reports costs one
// refresh; the default is 100 milliseconds.
func WithRefreshDelay(d time.Duration) Option {
	return func(o *options) { o.refreshDelay = d }
}

// WithSharedCapabilities sets the sampling and elicitation capabilities
// that the session every client shares declares to servers (see
// [WithClient]); by default it declares neither. That session lists the
// servers' tools, so a gateway that forwards its clients' requests
// declares there what it can forward: servers that offer some tools only
// to clients able to answer their requests then list those tools too. A
// request such a tool sends on the shared session reaches the client of
// the call when that client declared the capability, and otherwise gets
// an error.
func WithSharedCapabilities(caps mcp.ClientCapabilities) Option {
	return func(o *options) { o.shared = &caps }
}

// Defaults of [WithToolLimits].
const (
	// DefaultMaxTools is the most tools of one server that are kept.
	DefaultMaxTools = 2000
	// DefaultMaxToolBytes is the most bytes of one tool's definition, as
	// JSON.
	DefaultMaxToolBytes = 256 << 10
)

// WithToolLimits bounds what one server's tools/list may make the
// manager, and the indexes it feeds, hold: at most maxTools tools (a
// listing is not read past them, and the others are left out), each
// defined in at most maxToolBytes bytes of JSON (a larger one is
// skipped). A hostile or broken server can then list a hundred thousand
// tools, or one tool of 15 MB, without the gateway holding them. What is
// left out is reported ([Manager.SkippedTools]) and logged in one warning
// per listing. Zero keeps the defaults, [DefaultMaxTools] and
// [DefaultMaxToolBytes].
func WithToolLimits(maxTools, maxToolBytes int) Option {
	return func(o *options) {
		if maxTools > 0 {
			o.maxTools = maxTools
		}
		if maxToolBytes > 0 {
			o.maxToolBytes = maxToolBytes
		}
	}
}

// WithTracerProvider makes the manager trace the requests it sends to
// its servers with tp: a span of kind CLIENT per request, following
// OpenTelemetry's conventions for MCP, whose context the request's _meta
// carries to the server (traceparent, tracestate, baggage); see
// toolrun/mcpotel. A call's request is the child of the runner's span of
// the call.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(o *options) { o.telemetry.TracerProvider = tp }
}

// WithMeterProvider makes the manager measure the requests it sends with
// mp (mcp.client.operation.duration).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(o *options) { o.telemetry.MeterProvider = mp }
}

// WithLogger sets the logger of events that no caller sees, such as a
// failed background refresh; by default they are discarded.
func WithLogger(l *slog.Logger) Option {
	return func(o *options) { o.logger = l }
}

// NewManager returns a manager of the configured servers. It connects to
// none of them yet. It returns an error of code [errors.InvalidArgument]
// for an invalid server name or configuration, or [errors.Conflict] for
// a name configured twice.
func NewManager(opts ...Option) (*Manager, error) {
	o := options{
		client:          &mcp.Implementation{Name: "metatools", Version: toolmodel.ModuleVersion(pkgPath)},
		connectTimeout:  30 * time.Second,
		discoverTimeout: DefaultDiscoverTimeout,
		terminate:       time.Second,
		backoffInitial:  100 * time.Millisecond,
		backoffMax:      5 * time.Second,
		refreshDelay:    100 * time.Millisecond,
		logger:          slog.New(slog.DiscardHandler),
		shared:          &mcp.ClientCapabilities{},
		maxTools:        DefaultMaxTools,
		maxToolBytes:    DefaultMaxToolBytes,
	}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	if o.connectTimeout <= 0 || o.discoverTimeout <= 0 || o.terminate <= 0 || o.backoffInitial <= 0 || o.backoffMax < o.backoffInitial || o.refreshDelay < 0 {
		return nil, errors.Opf("mcpexec.NewManager", errors.InvalidArgument,
			"the connect, discover and terminate timeouts and the backoff delays must be positive, the maximum backoff no less than the initial one, and the refresh delay not negative")
	}
	ctx, cancel := context.WithCancel(context.Background())
	m := &Manager{opts: o, ctx: ctx, cancel: cancel, servers: map[string]*server{}, refreshers: map[*refresher]struct{}{}}
	for _, s := range o.servers {
		if err := m.addServer(s.name, s.cfg); err != nil {
			cancel()
			return nil, errors.WithOp("mcpexec.NewManager", err)
		}
	}
	return m, nil
}

// AddServer configures one more server. It returns an error of code
// [errors.InvalidArgument] for an invalid name or configuration,
// [errors.Conflict] for a name already in use, and [errors.Unavailable]
// once the manager is closed.
func (m *Manager) AddServer(name string, cfg ServerConfig) error {
	if err := m.addServer(name, cfg); err != nil {
		return errors.WithOp("mcpexec.AddServer", err)
	}
	return nil
}

func (m *Manager) addServer(name string, cfg ServerConfig) *errors.Error {
	if err := toolmodel.ValidateName(name); err != nil {
		return errors.Errorf(errors.InvalidArgument, "server name %q: %w", name, err)
	}
	if err := cfg.Validate(); err != nil {
		return errors.Errorf(errors.InvalidArgument, "server %q: %w", name, err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return errClosed()
	}
	if _, ok := m.servers[name]; ok {
		return errors.Errorf(errors.Conflict, "server %q is already configured", name)
	}
	m.servers[name] = newServer(m, name, cfg.clone())
	return nil
}

// RemoveServer closes the session of a server, if it has one, and forgets
// the server. It returns an error of code [errors.NotFound] for an
// unknown name, or the error of closing the session.
func (m *Manager) RemoveServer(name string) error {
	m.mu.Lock()
	s, ok := m.servers[name]
	delete(m.servers, name)
	m.mu.Unlock()
	if !ok {
		return errors.WithOp("mcpexec.RemoveServer", unknownServer(name))
	}
	return s.close()
}

// Servers returns the names of the configured servers, sorted.
func (m *Manager) Servers() []string {
	m.mu.RLock()
	defer m.mu.RUnlock()
	names := make([]string, 0, len(m.servers))
	for name := range m.servers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}

// Session returns the session of a server, connecting first if needed,
// for what the executor does not cover (resources, prompts, ...): the
// session of the client in ctx when it has one of its own
// ([WithClient]), or else the shared one. The
// session belongs to the manager: do not close it. It may end at any
// time, when the server goes away; call Session again for the next one.
func (m *Manager) Session(ctx context.Context, server string) (*mcp.ClientSession, error) {
	s, err := m.server(server)
	if err != nil {
		return nil, errors.WithOp("mcpexec.Session", err)
	}
	_, sess, err := s.session(ctx)
	if err != nil {
		return nil, errors.WithOp("mcpexec.Session", err)
	}
	return sess, nil
}

// Redact returns text without the secrets the named server is given (see
// the package documentation), each replaced by [toolrun.Masked]: for the
// errors of requests made on a [Manager.Session], which the manager does
// not see. The manager's own errors come redacted already. An unknown
// server has no secrets.
func (m *Manager) Redact(server, text string) string {
	m.mu.RLock()
	s, ok := m.servers[server]
	m.mu.RUnlock()
	if !ok {
		return text
	}
	return s.redact.Redact(text)
}

// ListTools returns every tool a server lists, following its pagination.
func (m *Manager) ListTools(ctx context.Context, server string) ([]*mcp.Tool, error) {
	const op = "mcpexec.ListTools"
	s, err := m.server(server)
	if err != nil {
		return nil, errors.WithOp(op, err)
	}
	var tools []*mcp.Tool
	// Listing has no effect on the server: it is safe to do again.
	err = s.do(ctx, always, func(sess *mcp.ClientSession) error {
		tools = tools[:0]
		for tool, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			tools = append(tools, tool)
			if len(tools) > m.opts.maxTools {
				// One past the limit says there are more: the pages
				// after it are not asked for.
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, errors.WithOp(op, err)
	}
	return tools, nil
}

// GetPrompt gets a prompt of the named server on behalf of the client of
// ctx ([WithClient]), relaying the server's requests for input as
// [Manager.Execute] relays a tool's: when in is set (the caller answers
// them by asking again, with in), it returns either the prompt or the
// requests, with the state the next attempt needs; otherwise a server that
// needs input fails the request with code [errors.Unsupported].
// params.InputResponses, RequestState and Meta are set from in.
func (m *Manager) GetPrompt(ctx context.Context, server string, params *mcp.GetPromptParams, in *toolrun.Input) (*mcp.GetPromptResult, *toolrun.InputRequired, error) {
	return relayed(ctx, m, "mcpexec.GetPrompt", server, in,
		func(ctx context.Context, sess *mcp.ClientSession, at attempt) (*mcp.GetPromptResult, error) {
			p := *params
			p.InputResponses, p.RequestState, p.Meta = at.Responses, at.State, at.Meta()
			return sess.GetPrompt(ctx, &p)
		},
		func(res *mcp.GetPromptResult) (mcp.InputRequestMap, string) {
			return res.InputRequests, res.RequestState
		})
}

// ReadResource reads a resource of the named server as [Manager.GetPrompt]
// gets a prompt.
func (m *Manager) ReadResource(ctx context.Context, server string, params *mcp.ReadResourceParams, in *toolrun.Input) (*mcp.ReadResourceResult, *toolrun.InputRequired, error) {
	return relayed(ctx, m, "mcpexec.ReadResource", server, in,
		func(ctx context.Context, sess *mcp.ClientSession, at attempt) (*mcp.ReadResourceResult, error) {
			p := *params
			p.InputResponses, p.RequestState, p.Meta = at.Responses, at.State, at.Meta()
			return sess.ReadResource(ctx, &p)
		},
		func(res *mcp.ReadResourceResult) (mcp.InputRequestMap, string) {
			return res.InputRequests, res.RequestState
		})
}

// relayed makes a request that has no effect on the server (it may always
// be sent again) through [relay], for op.
func relayed[R inputResult](ctx context.Context, m *Manager, op, server string, in *toolrun.Input,
	send func(context.Context, *mcp.ClientSession, attempt) (R, error),
	asks func(R) (mcp.InputRequestMap, string),
) (R, *toolrun.InputRequired, error) {
	var zero R
	s, err := m.server(server)
	if err != nil {
		return zero, nil, errors.WithOp(op, err)
	}
	res, ir, err := relay(ctx, s, in, always, send, asks)
	switch {
	case err != nil:
		return zero, nil, errors.WithOp(op, err)
	case ir != nil && in == nil:
		e := errors.WithOp(op, ir.Unanswerable())
		e.Backend = identity(s.name)
		return zero, nil, e
	}
	return res, ir, nil
}

// Close stops every [Manager.AutoRefresh], closes every session and
// waits for the processes the manager started to end: a process that
// does not exit once its standard input is closed is sent SIGTERM, then
// SIGKILL, after the terminate timeout. Calls still running fail, and
// later ones fail with code [errors.Unavailable]. Close returns the errors
// of closing the sessions (such as a process that had to be killed);
// calling it again does nothing.
func (m *Manager) Close() error {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil
	}
	m.closed = true
	servers := make([]*server, 0, len(m.servers))
	for _, s := range m.servers {
		servers = append(servers, s)
	}
	refreshers := make([]*refresher, 0, len(m.refreshers))
	for r := range m.refreshers {
		refreshers = append(refreshers, r)
	}
	m.mu.Unlock()

	m.cancel()
	for _, r := range refreshers {
		r.stop()
	}
	// Servers close in parallel: each may wait for its process to exit.
	errs := make([]error, len(servers))
	var wg sync.WaitGroup
	for i, s := range servers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = s.close()
		}()
	}
	wg.Wait()
	m.wg.Wait()
	return errors.Join(errs...)
}

// server returns the server of the given name.
func (m *Manager) server(name string) (*server, error) {
	m.mu.RLock()
	s, ok := m.servers[name]
	closed := m.closed
	m.mu.RUnlock()
	switch {
	case closed:
		return nil, errClosed()
	case !ok:
		return nil, unknownServer(name)
	}
	return s, nil
}

func unknownServer(name string) *errors.Error {
	e := errors.Errorf(errors.NotFound, "no MCP server %q is configured", name)
	e.Backend = identity(name)
	return e
}

func errClosed() *errors.Error {
	// Not retryable: a closed manager stays closed.
	return &errors.Error{Code: errors.Unavailable, Err: errors.New("the MCP manager is closed")}
}

// identity returns the backend identity of a server's tools.
func identity(server string) string {
	b := Backend(server)
	return b.Identity()
}

// backoff returns the delay after the given number of consecutive failed
// connection attempts.
func (o *options) backoff(failures int) time.Duration {
	d := o.backoffInitial
	for i := 1; i < failures && d < o.backoffMax; i++ {
		d *= 2
	}
	return min(d, o.backoffMax)
}
