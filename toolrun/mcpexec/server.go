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
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// server is the state of one configured server: its client, its current
// session, and the connection attempt under way.
type server struct {
	m      *Manager
	name   string
	cfg    ServerConfig
	client *mcp.Client
	// For URL servers: the client making the requests, and its transport.
	httpClient *http.Client
	http       *httpTransport

	mu       sync.Mutex
	sess     *mcp.ClientSession
	dial     *dialAttempt // the connection attempt under way, if any
	failures int          // consecutive failed attempts
	retryAt  time.Time    // no attempt before then
	lastErr  *errors.Error
	closed   bool
	// synced reports that a Source listed the server's tools, so that an
	// index refreshes when they change.
	synced bool
}

// dialAttempt is a connection attempt; done is closed when it ends, with
// sess or err set.
type dialAttempt struct {
	done chan struct{}
	sess *mcp.ClientSession
	err  *errors.Error
}

func newServer(m *Manager, name string, cfg ServerConfig) *server {
	s := &server{m: m, name: name, cfg: cfg}
	clientOpts := &mcp.ClientOptions{
		// The SDK's default capabilities: roots, with an empty list, since
		// some servers offer root-related tools only to clients that
		// declare them; no sampling or elicitation.
		Logger:                      m.opts.logger,
		ToolListChangedHandler:      func(context.Context, *mcp.ToolListChangedRequest) { m.toolsChanged(s) },
		ProgressNotificationHandler: m.deliverProgress,
	}
	m.opts.notifications.clientHandlers(name, clientOpts)
	s.client = mcp.NewClient(m.opts.client, clientOpts)
	if cfg.URL != "" {
		s.httpClient, s.http = newHTTPClient(&cfg)
	}
	return s
}

// session returns the server's session, waiting for a connection attempt
// (its own, or the one under way) when there is none.
func (s *server) session(ctx context.Context) (*mcp.ClientSession, error) {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil, errClosed()
	}
	if s.sess != nil {
		sess := s.sess
		s.mu.Unlock()
		return sess, nil
	}
	d := s.dial
	if d == nil {
		if wait := time.Until(s.retryAt); wait > 0 {
			err := s.backoffError(wait)
			s.mu.Unlock()
			return nil, err
		}
		d = &dialAttempt{done: make(chan struct{})}
		s.dial = d
		s.m.wg.Add(1)
		go s.connect(d)
	}
	s.mu.Unlock()

	select {
	case <-d.done:
	case <-ctx.Done():
		return nil, contextError(ctx)
	}
	if d.err != nil {
		c := *d.err
		c.Meta = maps.Clone(c.Meta)
		return nil, &c
	}
	return d.sess, nil
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
	return toolrun.WithRetryAfter(e, wait)
}

// connect makes a connection attempt, on its own goroutine so that a
// caller that gives up does not abort an attempt other callers wait for.
func (s *server) connect(d *dialAttempt) {
	defer s.m.wg.Done()
	ctx, cancel := context.WithTimeout(s.m.ctx, s.m.opts.connectTimeout)
	defer cancel()
	sess, err := s.open(ctx)

	s.mu.Lock()
	s.dial = nil
	switch {
	case err != nil:
		s.lastErr = s.connectError(ctx, err)
		s.failures++
		delay := s.m.opts.backoff(s.failures)
		s.retryAt = time.Now().Add(delay)
		// Callers learn how long to wait before the next attempt.
		e := *s.lastErr
		d.err = toolrun.WithRetryAfter(&e, delay)
	case s.closed:
		d.err = errClosed()
	default:
		d.sess = sess
		s.sess = sess
		s.failures, s.retryAt, s.lastErr = 0, time.Time{}, nil
		s.m.wg.Add(1)
		go s.watch(sess)
	}
	s.mu.Unlock()
	if sess != nil && d.sess == nil {
		// The server was closed while the session was being opened.
		_ = sess.Close()
	}
	close(d.done)
}

// open starts a session on a new transport.
func (s *server) open(ctx context.Context) (*mcp.ClientSession, error) {
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
	return s.client.Connect(ctx, t, nil)
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
	return e
}

// watch forgets the session once it ends, so that the next call opens a
// new one, and closes it: a session the server ended still holds
// resources until it is closed.
func (s *server) watch(sess *mcp.ClientSession) {
	defer s.m.wg.Done()
	_ = sess.Wait()
	s.mu.Lock()
	if s.sess == sess {
		s.sess = nil
	}
	s.mu.Unlock()
	_ = sess.Close()
}

// discard drops a session found broken and closes it in the background,
// so that the caller does not wait for a process to exit.
func (s *server) discard(sess *mcp.ClientSession) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.sess != sess || s.closed {
		// Another caller discarded it already, or close takes care of it.
		return
	}
	s.sess = nil
	s.m.wg.Add(1)
	go func() {
		defer s.m.wg.Done()
		_ = sess.Close()
	}()
}

// do runs fn on the server's session. When fn fails because the session
// broke before its request was sent, or at any point before the answer
// when resending is safe (resend: the request has no effect the server
// would do twice), do runs it again, once, on a new session. Errors are
// classified; see [callError].
func (s *server) do(ctx context.Context, resend bool, fn func(*mcp.ClientSession) error) error {
	for attempt := 1; ; attempt++ {
		sess, err := s.session(ctx)
		if err != nil {
			return err
		}
		err = fn(sess)
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
		s.discard(sess)
		if attempt == 1 && (resend || notSent(err)) {
			continue
		}
		e := callError(err)
		e.Backend = identity(s.name)
		return e
	}
}

// close closes the server's session and makes later calls fail.
func (s *server) close() error {
	s.mu.Lock()
	s.closed = true
	sess := s.sess
	s.sess = nil
	s.mu.Unlock()
	var err error
	if sess != nil {
		if err = sess.Close(); err != nil {
			err = fmt.Errorf("close MCP server %q: %w", s.name, err)
		}
	}
	if s.http != nil {
		s.http.close()
	}
	return err
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
