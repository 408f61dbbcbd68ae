package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// sessionIDHeader is the header of the streamable HTTP transport that names
// a session.
const sessionIDHeader = "Mcp-Session-Id"

// CheckOrigin answers 403 to a request whose Origin header names a web
// origin other than the server's own, a loopback one or one of allowed, as
// the streamable HTTP transport requires against DNS rebinding: a page of
// another site must not reach a server on the user's machine through the
// user's browser. Requests without an Origin header do not come from a
// browser page and pass.
func CheckOrigin(h http.Handler, allowed []string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !OriginAllowed(origin, r.Host, allowed) {
			http.Error(w, "Forbidden: origin "+origin+" is not allowed", http.StatusForbidden)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// OriginAllowed reports whether origin may reach the server at host.
func OriginAllowed(origin, host string, allowed []string) bool {
	for _, a := range allowed {
		if strings.EqualFold(strings.TrimRight(a, "/"), origin) {
			return true
		}
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return false // "null", and anything that is not a web origin
	}
	if strings.EqualFold(u.Host, host) {
		return true
	}
	return isLoopbackHost(u.Hostname())
}

// isLoopbackHost reports whether host is "localhost" or a loopback IP.
func isLoopbackHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// LimitBodyRead bounds the reading of each request body to d, so that a
// client that sends headers and then trickles or withholds the body does
// not hold a connection forever. The deadline is set per request and
// lifted once the body is read, rather than by http.Server's ReadTimeout or
// WriteTimeout: those bound the whole exchange, and would cut the
// server-sent event streams of long calls and of GET requests, which live
// as long as the client listens.
func LimitBodyRead(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if d > 0 && r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			// Writers that are not connections (as in tests) cannot take a
			// deadline; their bodies are in memory already.
			if err := rc.SetReadDeadline(time.Now().Add(d)); err == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the read deadline of its connection once the body
// has been read to its end: the server then reads the connection only to
// notice that the client went away, which must not time out while a
// response streams.
type deadlineBody struct {
	io.ReadCloser
	once sync.Once
	lift func()
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	// After any other error the deadline stays: the server must not wait
	// for the rest of a body it gave up on.
	if errors.Is(err, io.EOF) {
		b.once.Do(b.lift)
	}
	return n, err
}

// sessionLimiter bounds the sessions of a streamable HTTP handler: when a
// new session would pass the bound, it closes the session that has been
// idle (no request running) the longest; when every session is busy, the
// new one is refused with 503. Eviction scans the sessions, O(max), and
// happens only when the bound is reached.
type sessionLimiter struct {
	next   http.Handler
	server *mcp.Server
	max    int

	mu       sync.Mutex
	sessions map[string]*liveSession
	starting int    // sessions being created, counted against max
	clock    uint64 // orders the ends of requests
}

// liveSession is what the limiter knows of one session.
type liveSession struct {
	session  *mcp.ServerSession
	running  int    // requests running
	lastUsed uint64 // the clock when its last request ended
}

// LimitSessions bounds the sessions of server that next, its streamable
// HTTP handler, keeps alive at once to maxSessions (see sessionLimiter).
func LimitSessions(next http.Handler, server *mcp.Server, maxSessions int) http.Handler {
	return &sessionLimiter{next: next, server: server, max: maxSessions, sessions: map[string]*liveSession{}}
}

func (l *sessionLimiter) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if id := r.Header.Get(sessionIDHeader); id != "" {
		l.serveSession(w, r, id)
		return
	}
	if r.Method != http.MethodPost {
		l.next.ServeHTTP(w, r)
		return
	}
	if !l.reserve() {
		w.Header().Set("Retry-After", "1")
		http.Error(w, "Service Unavailable: too many sessions are busy", http.StatusServiceUnavailable)
		return
	}
	l.next.ServeHTTP(w, r)
	l.register(w.Header().Get(sessionIDHeader))
}

// serveSession serves a request of an existing session, which is busy
// meanwhile. Only POST requests carry client messages: a GET stream open
// for notifications leaves the session idle, as it does for the SDK's
// idle timeout.
func (l *sessionLimiter) serveSession(w http.ResponseWriter, r *http.Request, id string) {
	var s *liveSession
	if r.Method == http.MethodPost {
		l.mu.Lock()
		if s = l.sessions[id]; s != nil {
			s.running++
		}
		l.mu.Unlock()
	}
	l.next.ServeHTTP(w, r)
	if s != nil {
		l.mu.Lock()
		s.running--
		l.clock++
		s.lastUsed = l.clock
		l.mu.Unlock()
	}
}

// reserve makes room for one more session, closing the session idle the
// longest when the bound is reached, and reports whether there is room.
func (l *sessionLimiter) reserve() bool {
	l.mu.Lock()
	var victim *mcp.ServerSession
	if len(l.sessions)+l.starting >= l.max {
		var oldestID string
		var oldest *liveSession
		for id, s := range l.sessions {
			if s.running == 0 && (oldest == nil || s.lastUsed < oldest.lastUsed) {
				oldestID, oldest = id, s
			}
		}
		if oldest == nil {
			l.mu.Unlock()
			return false
		}
		delete(l.sessions, oldestID)
		victim = oldest.session
	}
	l.starting++
	l.mu.Unlock()
	if victim != nil {
		_ = victim.Close()
	}
	return true
}

// register follows the session the request created, if any, until it
// ends (closed by the client, the idle timeout or eviction).
func (l *sessionLimiter) register(id string) {
	var session *mcp.ServerSession
	if id != "" {
		for ss := range l.server.Sessions() {
			if ss.ID() == id {
				session = ss
				break
			}
		}
	}
	l.mu.Lock()
	l.starting--
	if session == nil { // initialization failed, and the SDK closed it
		l.mu.Unlock()
		return
	}
	l.clock++
	l.sessions[id] = &liveSession{session: session, lastUsed: l.clock}
	l.mu.Unlock()
	go func() {
		_ = session.Wait()
		l.mu.Lock()
		if s := l.sessions[id]; s != nil && s.session == session {
			delete(l.sessions, id)
		}
		l.mu.Unlock()
	}()
}

// modernRevision is the first revision of MCP whose requests each carry
// their protocol version, and need no session.
const modernRevision = "2026-07-28"

// maxPeek bounds the part of a request body read to tell its revision:
// the go-sdk refuses larger bodies anyway.
const maxPeek = mcp.DefaultMaxRequestBodyBytes

// ByRevision serves each request of MCP 2026-07-28 or a later revision
// with modern, a stateless handler (such requests need no session, so
// that any replica may answer any of them), and every other request with
// legacy, which keeps the sessions that earlier revisions begin with
// initialize. A request is of the later revisions when its
// MCP-Protocol-Version header names one, or, for a POST outside a
// session, when its JSON-RPC request names one in its _meta or is
// server/discover, the probe by which a client learns which revisions the
// server speaks.
func ByRevision(legacy, modern http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if v := r.Header.Get("Mcp-Protocol-Version"); v != "" {
			if v >= modernRevision {
				modern.ServeHTTP(w, r)
			} else {
				legacy.ServeHTTP(w, r)
			}
			return
		}
		if r.Method != http.MethodPost || r.Header.Get(sessionIDHeader) != "" || r.Body == nil {
			legacy.ServeHTTP(w, r)
			return
		}
		head, err := io.ReadAll(io.LimitReader(r.Body, maxPeek))
		if err != nil {
			http.Error(w, "Bad Request: cannot read the request body", http.StatusBadRequest)
			return
		}
		// The handler reads the body whole: what was peeked, then the rest.
		r.Body = struct {
			io.Reader
			io.Closer
		}{io.MultiReader(bytes.NewReader(head), r.Body), r.Body}
		if modernRequest(head) {
			modern.ServeHTTP(w, r)
			return
		}
		legacy.ServeHTTP(w, r)
	})
}

// modernRequest reports whether a JSON-RPC message is a request of a
// revision that needs no session: server/discover, or a request whose
// _meta names the revision. A batch is not: later revisions have none.
func modernRequest(body []byte) bool {
	var msg struct {
		Method string `json:"method"`
		Params struct {
			Meta map[string]any `json:"_meta"`
		} `json:"params"`
	}
	if json.Unmarshal(body, &msg) != nil {
		return false
	}
	if msg.Method == "server/discover" {
		return true
	}
	v, _ := msg.Params.Meta[mcp.MetaKeyProtocolVersion].(string)
	return v >= modernRevision
}

// exchangeKey is the context key of the HTTP exchange that carries a
// request without a session.
type exchangeKey struct{}

// CancelWithExchange returns h, a handler of requests without a session
// (each HTTP exchange carries one request, as MCP 2026-07-28 has it),
// whose requests end when their exchange does: a client that closes the
// response stream cancels the request ([EndWithExchange] does it). The
// SDK keeps a stateless request running after its client left, until
// the handler returns on its own.
func CancelWithExchange(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), exchangeKey{}, r.Context())))
	})
}

// EndWithExchange is the MCP middleware that ends a request served by a
// handler of [CancelWithExchange] when its HTTP exchange ends: its
// context is cancelled, and with it what it asked of upstreams.
func EndWithExchange(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		exchange, ok := ctx.Value(exchangeKey{}).(context.Context)
		if !ok {
			return next(ctx, method, req)
		}
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		stop := context.AfterFunc(exchange, func() { cancel(context.Cause(exchange)) })
		defer stop()
		return next(ctx, method, req)
	}
}
