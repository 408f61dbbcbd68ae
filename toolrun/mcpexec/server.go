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
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// server is the state of one configured server: its connections (the
// shared one, and one per client that receives the server's requests),
// and the backoff after failed connection attempts, which all of them
// share since they reach the same server.
type server struct {
	m    *Manager
	name string
	cfg  ServerConfig
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
}

// dialAttempt is a connection attempt; done is closed when it ends, with
// sess or err set.
type dialAttempt struct {
	done chan struct{}
	sess *mcp.ClientSession
	err  *errors.Error
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	s := &server{m: m, name: name, cfg: cfg, callers: map[Client]*conn{}}
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
		return nil, nil, contextError(ctx)
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
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.connectTimeout)
	defer cancel()
	sess, err := c.open(ctx)

	s.mu.Lock()
	c.dial = nil
	switch {
	case err != nil:
		s.lastErr = s.connectError(ctx, err)
		s.failures++
		delay := s.m.opts.backoff(s.failures)
		s.retryAt = time.Now().Add(delay)
		// Callers learn how long to wait before the next attempt.
		e := *s.lastErr
		e.Meta = maps.Clone(e.Meta)
		d.err = toolrun.WithRetryAfter(&e, delay)
	case s.closed || (c.caller != nil && s.callers[c.caller] != c):
		// The server was closed, or the client went away, while the
		// session was being opened.
		d.err = errClosed()
	default:
		d.sess = sess
		c.sess = sess
		s.failures, s.retryAt, s.lastErr = 0, time.Time{}, nil
		s.m.wg.Add(1)
		go c.watch(sess)
	}
	s.mu.Unlock()
	if sess != nil && d.sess == nil {
		_ = sess.Close()
	}
	close(d.done)
}

// open starts a session on a new transport.
func (c *conn) open(ctx context.Context) (*mcp.ClientSession, error) {
	s := c.s
	var t mcp.Transport
	switch {
	case s.cfg.Command != "":
		t = s.cfg.commandTransport(s.m.opts.terminate)
	case s.cfg.URL != "":
		s.http.takeFailedStatus()
		t = &mcp.StreamableClientTransport{Endpoint: s.cfg.URL, HTTPClient: s.httpClient}
	default:
		var err error
		if t, err = s.cfg.Transport(ctx); err != nil {
			return nil, fmt.Errorf("transport: %w", err)
		}
		if t == nil {
			return nil, errors.New("transport: the configured function returned no transport")
		}
	}
	sess, err := c.client.Connect(ctx, t, &mcp.ClientSessionOptions{ProtocolVersion: c.protocolVersion()})
	if err != nil {
		return nil, err
	}
	followLogs(ctx, sess)
	return sess, nil
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

// connectError classifies the failure of a connection attempt.
func (s *server) connectError(ctx context.Context, err error) *errors.Error {
	var e *errors.Error
	switch {
	case s.m.ctx.Err() != nil:
		return errClosed()
	case ctx.Err() != nil:
		e = errors.Errorf(errors.Unavailable, "no answer within %s: %w", s.m.opts.connectTimeout, err)
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
	e.Err = fmt.Errorf("connect to MCP server %q: %w", s.name, e.Err)
	// The call waiting for this connection was not sent.
	return toolrun.MarkNotSent(e)
}

// watch forgets the session once it ends, so that the next call opens a
// new one, and closes it: a session the server ended still holds
// resources until it is closed.
func (c *conn) watch(sess *mcp.ClientSession) {
	defer c.s.m.wg.Done()
	_ = sess.Wait()
	c.s.mu.Lock()
	if c.sess == sess {
		c.sess = nil
	}
	c.s.mu.Unlock()
	_ = sess.Close()
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
// classified; see [callError].
func (s *server) do(ctx context.Context, resend func(error) bool, fn func(*mcp.ClientSession) error) error {
	for attempt := 1; ; attempt++ {
		c, sess, err := s.session(ctx)
		if err != nil {
			return err
		}
		done := c.track(ctx)
		err = fn(sess)
		done()
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return contextError(ctx)
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
			errs = append(errs, fmt.Errorf("close MCP server %q: %w", s.name, err))
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
// server answered with keeps its code (see [errors.FromWire]); anything
// else is a failure to reach the server, [errors.Unavailable] and
// retryable.
func callError(err error) *errors.Error {
	var w *jsonrpc.Error
	if isJSONRPCError(err) && errors.As(err, &w) {
		e := errors.FromWire(&errors.WireError{Code: w.Code, Message: w.Message, Data: w.Data})
		if e.Err == nil {
			e.Err = errors.New(w.Message)
		}
		return e
	}
	return errors.E(errors.Unavailable, err)
}

// contextError returns ctx's error classified as a timeout or a
// cancellation.
func contextError(ctx context.Context) *errors.Error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		return errors.E(errors.Timeout, err)
	}
	return errors.E(errors.Canceled, err)
}
