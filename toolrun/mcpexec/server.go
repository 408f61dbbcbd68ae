package mcpexec

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"net/http"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpotel"
)

// server is the state of one configured server: its connections (the
// shared one, and one per client that receives the server's requests),
// and the backoff after failed connection attempts, which all of them
// share since they reach the same server.
type server struct {
	m    *Manager
	name string
	cfg  ServerConfig
	// redact removes the secrets the server is given from its errors and
	// from the lines of its standard error.
	redact *toolrun.Redactor
	// For URL servers: the client making the requests, and its transport.
	httpClient *http.Client
	http       *httpTransport

	mu       sync.Mutex
	shared   *conn
	callers  map[Client]*conn // the connections of clients of their own
	failures int              // consecutive failed attempts
	retryAt  time.Time        // no attempt before then
	lastErr  *errors.Error
	closed   bool
	// skipped are the tools of the last listing that could not become
	// metatools tools.
	skipped []SkippedTool
	// For command servers: the process behind each session, whose
	// standard error errors quote; whether a session was ever opened
	// (the first start may take longer, see [PackageRunnerConnectTimeout]);
	// and how the last process that ended by itself did, until the next
	// connection.
	procs         map[*mcp.ClientSession]*process
	connectedOnce bool
	lastExit      string
	// stderrMu makes the lines of the server's processes reach
	// ServerConfig.Stderr one at a time.
	stderrMu sync.Mutex
}

// conn is one connection to a server: an MCP client declaring some
// capabilities, its current session, and the connection attempt under
// way. Its fields are guarded by the server's mutex.
type conn struct {
	s      *server
	client *mcp.Client
	// caller is the client the connection serves alone, or nil for the
	// shared connection.
	caller Client
	sess   *mcp.ClientSession
	dial   *dialAttempt // the connection attempt under way, if any
	calls  []*callInFlight
	// logs counts the log messages read and not forwarded yet, which a
	// call waits for before it ends (see progressConn).
	logs backlog
}

// dialAttempt is a connection attempt; done is closed when it ends, with
// sess or err set.
type dialAttempt struct {
	done chan struct{}
	sess *mcp.ClientSession
	err  *errors.Error
}

// telemetry is the instrumentation of the server's connections.
func (s *server) telemetry() mcpotel.Config {
	cfg := s.m.opts.telemetry
	switch {
	case s.cfg.Command != "":
		cfg.Transport = mcpotel.TransportPipe
	case s.cfg.URL != "":
		cfg.Transport = mcpotel.TransportTCP
	}
	return cfg
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	s := &server{
		m: m, name: name, cfg: cfg, callers: map[Client]*conn{}, procs: map[*mcp.ClientSession]*process{},
		redact: toolrun.NewRedactor(cfg.secrets(os.Environ(), runtime.GOOS)),
	}
	s.shared = s.newConn(nil)
	if cfg.URL != "" {
		s.httpClient, s.http = newHTTPClient(&cfg)
	}
	return s
}

// conn returns the connection that serves calls made with ctx: that of
// the client in ctx when it receives the server's requests
// ([WithClient]), or else the shared one. It must be called with s.mu
// held.
func (s *server) conn(ctx context.Context) *conn {
	caller := clientFrom(ctx)
	if caller == nil || !receivesRequests(caller) {
		return s.shared
	}
	c, ok := s.callers[caller]
	if !ok {
		c = s.newConn(caller)
		s.callers[caller] = c
		s.m.followClient(caller)
	}
	return c
}

// session returns the session of the connection that serves ctx, waiting
// for a connection attempt (its own, or the one under way) when there is
// none.
func (s *server) session(ctx context.Context) (*conn, *mcp.ClientSession, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, nil, errClosed()
	}
	c := s.conn(ctx)
	if c.sess != nil {
		sess := c.sess
		s.mu.Unlock()
		return c, sess, nil
	}
	d := c.dial
	if d == nil {
		if wait := time.Until(s.retryAt); wait > 0 {
			err := s.backoffError(wait)
			s.mu.Unlock()
			return nil, nil, err
		}
		d = &dialAttempt{done: make(chan struct{})}
		c.dial = d
		s.m.wg.Add(1)
		go c.connect(d)
	}
	s.mu.Unlock()

	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, nil, errors.FromContext(ctx, "", nil)
	}
	if d.err != nil {
		e := *d.err
		e.Meta = maps.Clone(e.Meta)
		return nil, nil, &e
	}
	return c, d.sess, nil
}

// backoffError is the error of a call made while the server is in its
// backoff after failed connection attempts: the latest failure, with the
// time left.
func (s *server) backoffError(wait time.Duration) *errors.Error {
	e := &errors.Error{
		Code:      s.lastErr.Code,
		Backend:   identity(s.name),
		Retryable: s.lastErr.Retryable,
		Err:       fmt.Errorf("next connection attempt in %s, after: %w", wait.Round(time.Millisecond), s.lastErr.Err),
	}
	// No session, so nothing was sent.
	return toolrun.WithRetryAfter(toolrun.MarkNotSent(e), wait)
}

// connect makes a connection attempt, on its own goroutine so that a
// caller that gives up does not abort an attempt other callers wait for.
func (c *conn) connect(d *dialAttempt) {
	s := c.s
	defer s.m.wg.Done()
	s.mu.Lock()
	budget := s.connectBudget()
	attempt, cause := s.failures+1, s.lastExit
	if s.lastErr != nil {
		cause = s.lastErr.Error()
	}
	s.mu.Unlock()
	if cause != "" {
		msg := "reconnecting to MCP server"
		if s.cfg.Command != "" {
			msg = "restarting MCP server"
		}
		s.m.opts.logger.Warn(msg, "server", s.name, "attempt", attempt, "cause", cause)
	}
	ctx, cancel := context.WithTimeout(s.m.ctx, budget.timeout)
	defer cancel()
	sess, proc, err := c.open(ctx)
	reconnected := false

	s.mu.Lock()
	c.dial = nil
	switch {
	case err != nil:
		stderr := ""
		if proc != nil {
			stderr = proc.stderrSummary()
		}
		s.lastErr = s.connectError(ctx, err, budget, stderr)
		s.failures++
		delay := s.m.opts.backoff(s.failures)
		s.retryAt = time.Now().Add(delay)
		// Callers learn how long to wait before the next attempt.
		e := *s.lastErr
		e.Meta = maps.Clone(e.Meta)
		d.err = toolrun.WithRetryAfter(&e, delay)
		if s.m.ctx.Err() == nil {
			s.m.opts.logger.Warn("MCP server connection failed", "server", s.name, "attempt", s.failures, "error", s.lastErr.Err)
		}
	case s.closed || (c.caller != nil && s.callers[c.caller] != c):
		// The server was closed, or the client went away, while the
		// session was being opened.
		d.err = errClosed()
	default:
		d.sess = sess
		c.sess = sess
		s.failures, s.retryAt, s.lastErr, s.lastExit = 0, time.Time{}, nil, ""
		reconnected = c.caller == nil && s.connectedOnce
		s.connectedOnce = true
		if proc != nil {
			proc.established.Store(true)
			s.procs[sess] = proc
		}
		s.m.wg.Add(1)
		go c.watch(sess)
	}
	s.mu.Unlock()
	if sess != nil && d.sess == nil {
		_ = sess.Close()
	}
	close(d.done)
	if fn := s.m.opts.notifications.Reconnected; reconnected && fn != nil {
		fn(s.name)
	}
}

// connectBudget is the bound of a connection attempt, and where it comes
// from, so that an attempt that runs out of time can say which setting
// raises it.
type connectBudget struct {
	timeout time.Duration
	// own reports a bound set for the server alone
	// (ServerConfig.ConnectTimeout); runner names the package runner whose
	// first start got [PackageRunnerConnectTimeout].
	own    bool
	runner string
}

// connectBudget returns the bound of the server's next connection
// attempt. It must be called with s.mu held.
func (s *server) connectBudget() connectBudget {
	if s.cfg.ConnectTimeout > 0 {
		return connectBudget{timeout: time.Duration(s.cfg.ConnectTimeout), own: true}
	}
	d := s.m.opts.connectTimeout
	if runner := packageRunner(s.cfg.Command); runner != "" && !s.connectedOnce && d < PackageRunnerConnectTimeout {
		return connectBudget{timeout: PackageRunnerConnectTimeout, runner: runner}
	}
	return connectBudget{timeout: d}
}

// explain says, for the error of an attempt that ran out of time, what
// the bound was and which setting raises it.
func (b connectBudget) explain(o *options) string {
	global, own := o.timeoutSettings()
	switch {
	case b.own:
		return fmt.Sprintf("no answer within %s; raise the server's %s", b.timeout, own)
	case b.runner != "":
		return fmt.Sprintf("no answer within %s, the budget of a first start through %s; set the server's %s to wait longer", b.timeout, b.runner, own)
	}
	return fmt.Sprintf("no answer within %s; raise %s, or set the server's %s", b.timeout, global, own)
}

// open starts a session on a new transport. For a command server, it
// also returns the process it started, whose standard error a failure
// may quote.
func (c *conn) open(ctx context.Context) (*mcp.ClientSession, *process, error) {
	s := c.s
	var t mcp.Transport
	var proc *process
	switch {
	case s.cfg.Command != "":
		proc = s.newProcess()
		t = proc
	case s.cfg.URL != "":
		s.http.takeFailedStatus()
		t = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient}
	default:
		var err error
		if t, err = s.cfg.Transport(ctx); err != nil {
			return nil, nil, fmt.Errorf("transport: %w", err)
		}
		if t == nil {
			return nil, nil, errors.New("transport: the configured function returned no transport")
		}
	}
	if _, streamable := t.(*mcp.StreamableClientTransport); !streamable {
		t = discoverTransport{Transport: progressTransport{Transport: t, m: s.m, logs: &c.logs}, timeout: s.m.opts.discoverTimeout}
	}
	sess, err := c.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: c.protocolVersion()})
	if err != nil {
		return nil, proc, err
	}
	followLogs(ctx, sess)
	return sess, proc, nil
}

// protocolVersion is the protocol version the connection asks the server
// for. A connection that serves one client asks for the version that
// client asked the gateway for, so that the server asks for input the
// way the client can be asked: by requests of its own before protocol
// 2026-07-28, in the call's result from then on. The shared connection
// asks for the SDK's latest.
func (c *conn) protocolVersion() string {
	if c.caller == nil {
		return ""
	}
	if p := c.caller.InitializeParams(); p != nil {
		return p.ProtocolVersion
	}
	return ""
}

// connectError classifies the failure of a connection attempt, quoting
// the last lines of the process's standard error, if any.
func (s *server) connectError(ctx context.Context, err error, budget connectBudget, stderr string) *errors.Error {
	var e *errors.Error
	switch {
	case s.m.ctx.Err() != nil:
		return errClosed()
	case ctx.Err() != nil:
		e = errors.Errorf(errors.Unavailable, "%s: %w", budget.explain(&s.m.opts), err)
	case errors.Is(err, exec.ErrNotFound), errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission):
		// The command or its directory is wrong: a configuration problem.
		e = errors.E(errors.InvalidArgument, err)
	default:
		e = callError(err)
		if s.http != nil {
			if status := s.http.takeFailedStatus(); status != 0 {
				e = errors.E(errors.CodeFromHTTPStatus(status), err)
			}
		}
	}
	e.Backend = identity(s.name)
	e.Err = withStderr(fmt.Errorf("connect to MCP server %q: %w", s.name, e.Err), stderr)
	// The call waiting for this connection was not sent.
	return toolrun.MarkNotSent(s.redacted(e))
}

// watch forgets the session once it ends, so that the next call opens a
// new one, and closes it: a session the server ended still holds
// resources until it is closed.
func (c *conn) watch(sess *mcp.ClientSession) {
	s := c.s
	defer s.m.wg.Done()
	_ = sess.Wait()
	s.mu.Lock()
	if c.sess == sess {
		c.sess = nil
	}
	s.mu.Unlock()
	_ = sess.Close()
	s.mu.Lock()
	delete(s.procs, sess)
	s.mu.Unlock()
}

// processEnded reports a process of the server that ended by itself once
// its session was open: a crash, or an exit the manager did not ask for.
// It is logged, and the next connection attempt says it follows it.
func (s *server) processEnded(p *process, exit error) {
	status := "exit status 0"
	if exit != nil {
		status = exit.Error()
	}
	stderr := p.tail.summary(stderrTailLines)
	s.m.opts.logger.Warn("MCP server exited", "server", s.name, "status", status, "stderr", stderr)
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed {
		s.lastExit = withStderr(fmt.Errorf("the process exited (%s)", status), p.tail.summary(errorTailLines)).Error()
	}
}

// stderrLine passes on a line of the standard error of a process of the
// server, as its configuration asks.
func (s *server) stderrLine(line []byte) {
	if s.cfg.Stderr != nil {
		s.stderrMu.Lock()
		_, _ = s.cfg.Stderr.Write(append(line, '\n'))
		s.stderrMu.Unlock()
	}
	if s.cfg.LogStderr {
		s.m.opts.logger.Info("MCP server stderr", "server", s.name, "line", string(line))
	}
}

// procOf returns the process behind a session, or nil.
func (s *server) procOf(sess *mcp.ClientSession) *process {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[sess]
}

// discard drops a session found broken and closes it in the background,
// so that the caller does not wait for a process to exit.
func (c *conn) discard(sess *mcp.ClientSession) {
	s := c.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if c.sess != sess || s.closed {
		// Another caller discarded it already, or close takes care of it.
		return
	}
	c.sess = nil
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		_ = sess.Close()
	}()
}

// do runs fn on the session that serves ctx. When fn fails because its
// session broke, and resend allows it for that failure (classified, and
// marked [toolrun.MarkNotSent] when the request was not sent), do runs it
// again, once, on a new session: executions pass
// [toolrun.SafeToRepeat], requests without effect [always]. While fn
// runs, the call is in flight on its connection, so that the server's
// requests and log messages reach the call's client. Errors are
// classified (see [callError]), and come without the server's secrets.
func (s *server) do(ctx context.Context, resend func(error) bool, fn func(*mcp.ClientSession) error) error {
	if err := s.send(ctx, resend, fn); err != nil {
		// What the server and its transport say may quote the secrets
		// the server is given.
		return s.redact.RedactError(err)
	}
	return nil
}

// send is do, without the redaction of its error.
func (s *server) send(ctx context.Context, resend func(error) bool, fn func(*mcp.ClientSession) error) error {
	for attempt := 1; ; attempt++ {
		c, sess, err := s.session(ctx)
		if err != nil {
			return err
		}
		// Looked up now: once the session ends, the server forgets it.
		proc := s.procOf(sess)
		done := c.track(ctx)
		err = fn(sess)
		// The log messages read before the answer reach the client of
		// the call while it is still in flight.
		c.logs.await(ctx)
		done()
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return errors.FromContext(ctx, "", err)
		case isJSONRPCError(err):
			// The server answered: the session is fine.
			e := callError(err)
			e.Backend = identity(s.name)
			return e
		case isEncodeError(err):
			// Nothing was sent: the request cannot be encoded.
			e := errors.Errorf(errors.InvalidArgument, "encode the request: %w", err)
			e.Backend = identity(s.name)
			return e
		}
		c.discard(sess)
		if proc != nil {
			// The process may have crashed: what it said last tells why.
			err = withStderr(err, proc.stderrSummary())
		}
		e := callError(err)
		e.Backend = identity(s.name)
		if notSent(err) {
			e = toolrun.MarkNotSent(e)
		}
		if attempt == 1 && resend(e) {
			continue
		}
		return e
	}
}

// always is the resend rule of requests that have no effect on the
// server, such as listing its tools: they can always be sent again.
func always(error) bool { return true }

// close closes the server's sessions and makes later calls fail.
func (s *server) close() error {
	s.mu.Lock()
	s.closed = true
	var sessions []*mcp.ClientSession
	for _, c := range append([]*conn{s.shared}, slices.Collect(maps.Values(s.callers))...) {
		if sess := s.detach(c); sess != nil {
			sessions = append(sessions, sess)
		}
	}
	clear(s.callers)
	s.mu.Unlock()
	var errs []error
	for _, sess := range sessions {
		if err := sess.Close(); err != nil {
			errs = append(errs, s.redact.RedactError(fmt.Errorf("close MCP server %q: %w", s.name, err)))
		}
	}
	if s.http != nil {
		s.http.close()
	}
	return errors.Join(errs...)
}

// detach detaches the session of a connection, to be closed, and returns
// it, or nil. It must be called with s.mu held.
func (s *server) detach(c *conn) *mcp.ClientSession {
	sess := c.sess
	c.sess = nil
	return sess
}

// dropClient closes the connection of a client that went away.
func (s *server) dropClient(caller Client) {
	s.mu.Lock()
	c, ok := s.callers[caller]
	delete(s.callers, caller)
	var sess *mcp.ClientSession
	if ok {
		sess = s.detach(c)
	}
	s.mu.Unlock()
	if sess != nil {
		_ = sess.Close()
	}
}

// notSent reports whether a request failed before the server could have
// received it: its session was closed, or known to be gone, or writing it
// failed (a pipe whose reader is gone, a refused connection). It is then
// safe to send it again on a new session. A failure to read the answer
// is not one of these: the server may have acted on the request.
func notSent(err error) bool {
	return errors.Is(err, mcp.ErrConnectionClosed) || errors.Is(err, mcp.ErrSessionMissing) ||
		errors.Is(err, io.ErrClosedPipe) || errors.Is(err, syscall.EPIPE) || errors.Is(err, os.ErrClosed) ||
		errors.Is(err, syscall.ECONNREFUSED)
}

// The JSON-RPC codes the SDK uses for its own transport conditions
// (closing connections, requests the transport refused): these are not
// answers of the server.
const (
	rpcClientClosing = -32003
	rpcServerClosing = -32004
	rpcRejected      = -32005
)

// isJSONRPCError reports whether err carries a JSON-RPC error the server
// answered with.
func isJSONRPCError(err error) bool {
	var w *jsonrpc.Error
	if !errors.As(err, &w) {
		return false
	}
	switch w.Code {
	case rpcClientClosing, rpcServerClosing, rpcRejected:
		return false
	}
	return true
}

// isEncodeError reports whether err is the failure to encode a request in
// JSON, such as arguments holding a channel or a NaN.
func isEncodeError(err error) bool {
	var (
		typeErr      *json.UnsupportedTypeError
		valueErr     *json.UnsupportedValueError
		marshalerErr *json.MarshalerError
	)
	return errors.As(err, &typeErr) || errors.As(err, &valueErr) || errors.As(err, &marshalerErr)
}

// callError classifies the failure of a request: a JSON-RPC error the
// server answered with keeps its code (see [errors.FromWire]), and when it
// is not one of this taxonomy it stays the cause, so that a gateway can
// pass it on as the server sent it; anything else is a failure to reach
// the server, [errors.Unavailable] and retryable.
func callError(err error) *errors.Error {
	var w *jsonrpc.Error
	if isJSONRPCError(err) && errors.As(err, &w) {
		e := errors.FromWire(&errors.WireError{Code: w.Code, Message: w.Message, Data: w.Data})
		if e.Err == nil || e.Err.Error() == w.Message {
			e.Err = w
		}
		return e
	}
	return errors.E(errors.Unavailable, err)
}
