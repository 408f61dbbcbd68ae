package toolserver

import (
	"cmp"
	"context"
	"io"
	"net/http"
	"os"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolrun/mcpotel"
	"github.com/metatools-go/metatools/toolserver/internal/oauth"
	"github.com/metatools-go/metatools/toolserver/internal/transport"
)

// DefaultShutdownTimeout bounds how long [Server.ServeStdio] waits, once
// the client has closed its input, for running calls to answer.
const DefaultShutdownTimeout = 10 * time.Second

// MaxStdioLine is the longest line, in bytes, that [Server.ServeStdio]
// reads; a longer one is answered with a parse error.
const MaxStdioLine = mcp.DefaultMaxLineLength

// WithShutdownTimeout bounds how long [Server.ServeStdio] waits, once the
// client has closed its input, for the calls still running to answer; the
// default is [DefaultShutdownTimeout].
func WithShutdownTimeout(d time.Duration) Option {
	return func(s *Server) { s.shutdownTimeout = d }
}

// ServeStdio serves one client over standard input and output until the
// client closes its input or ctx is done.
//
// Each line of input is one JSON-RPC message. A line that is not JSON, is
// longer than [MaxStdioLine] or nests too deeply is answered with a parse
// error (-32700), and one that is JSON but no JSON-RPC message with an
// invalid-request error (-32600), both with a null id; reading goes on
// with the next line. Once the client closes its input, the calls still
// running are let finish and answer, for at most the shutdown timeout
// ([WithShutdownTimeout]).
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.serveLines(ctx, os.Stdin, os.Stdout)
}

// serveLines serves one client reading messages from r and writing them
// to w, as ServeStdio does.
func (s *Server) serveLines(ctx context.Context, r io.Reader, w io.Writer) error {
	timeout := s.shutdownTimeout
	if timeout <= 0 {
		timeout = DefaultShutdownTimeout
	}
	s.instrument(mcpotel.TransportPipe)
	return transport.ServeLines(ctx, s.mcp, r, w, transport.StdioOptions{MaxLine: MaxStdioLine, ShutdownTimeout: timeout, Logger: s.logger})
}

// Defaults of [HTTPOptions] left at zero.
const (
	// DefaultSessionIdleTimeout closes an HTTP session that has had no
	// request for this long.
	DefaultSessionIdleTimeout = 30 * time.Minute
	// DefaultMaxSessions bounds the HTTP sessions alive at once. A
	// session holds about 16 KiB, so the default bounds them to about
	// 16 MiB.
	DefaultMaxSessions = 1000
	// DefaultBodyReadTimeout bounds the reading of one request body.
	DefaultBodyReadTimeout = 30 * time.Second
)

// HTTPOptions configure the streamable HTTP handler.
type HTTPOptions struct {
	// BearerTokens, when not empty, are the tokens a client must present in
	// an "Authorization: Bearer" header; other requests get 401. The
	// requests of a named token have its subject (see [BearerToken]).
	BearerTokens []BearerToken
	// Stateless serves every request without a session, so that requests
	// of one client may reach any of several replicas behind a load
	// balancer. Server-to-client requests and notifications other than a
	// call's own progress are then unavailable to clients of revisions
	// before 2026-07-28. Clients of 2026-07-28 and later are served
	// without sessions either way, as their revision asks.
	Stateless bool
	// SessionIdleTimeout closes a session that has had no request for
	// this long; zero means [DefaultSessionIdleTimeout], a negative value
	// keeps idle sessions until MaxSessions evicts them.
	SessionIdleTimeout time.Duration
	// MaxSessions bounds the sessions alive at once: a new session then
	// closes the one idle the longest, and is refused with 503 when every
	// session has a request running. Zero means [DefaultMaxSessions], a
	// negative value no bound.
	MaxSessions int
	// BodyReadTimeout bounds the reading of each request body; zero means
	// [DefaultBodyReadTimeout], a negative value no bound. Responses, which
	// may stream for as long as a call runs, are not bounded.
	BodyReadTimeout time.Duration
	// AllowedOrigins are web origins ("https://app.example.com") whose
	// pages may call the endpoint from a browser, besides the server's own
	// origin and loopback ones; requests with another Origin header get
	// 403.
	AllowedOrigins []string
	// OAuth, when set, also accepts OAuth access tokens, and serves only
	// the meta-tools that their scopes allow (see [OAuthOptions]).
	OAuth *OAuthOptions
}

// Authenticated reports whether the options ask clients to authenticate:
// with a static bearer token or an OAuth access token.
func (o HTTPOptions) Authenticated() bool {
	return len(o.BearerTokens) > 0 || o.OAuth != nil
}

// OAuthOptions make the streamable HTTP handler an OAuth 2.1 resource
// server, as the MCP authorization specification asks: clients present
// access tokens that an authorization server issued for this server
// (JWTs checked against the issuer's keys), and the token's scopes say
// which meta-tools they may call; tools passed through ([WithPassthrough])
// and the upstreams' resources and prompts count as run_tool. Its fields
// and methods (the protected-resource metadata to serve) are documented
// on the type it names.
type OAuthOptions = oauth.Options

// BearerToken is a static token HTTP clients may present, with the name
// its requests are known by: their caller's subject ([MetadataSubject]) is
// "token:" and the name, which the policies and the audit log see and to
// which sessions and waiting calls are bound. Its fields are documented on
// the type it names.
type BearerToken = oauth.BearerToken

// withDefaults returns o with its zero limits replaced by the defaults.
func (o HTTPOptions) withDefaults() HTTPOptions {
	o.SessionIdleTimeout = cmp.Or(o.SessionIdleTimeout, DefaultSessionIdleTimeout)
	o.MaxSessions = cmp.Or(o.MaxSessions, DefaultMaxSessions)
	o.BodyReadTimeout = cmp.Or(o.BodyReadTimeout, DefaultBodyReadTimeout)
	return o
}

// HTTPHandler returns a streamable HTTP handler serving the MCP endpoint;
// mount it at "/mcp".
//
// Clients of MCP 2026-07-28 and later revisions are served without
// sessions, each request on its own, and clients of earlier revisions
// with the sessions they open, side by side on the one endpoint; with
// Stateless, every client is served without sessions.
//
// The handler bounds what clients may hold: sessions idle longer than
// SessionIdleTimeout are closed, at most MaxSessions live at once, and a
// request body must arrive within BodyReadTimeout. Requests from browser
// pages of other origins are refused.
func (s *Server) HTTPHandler(opts HTTPOptions) http.Handler {
	opts = opts.withDefaults()
	server := func(*http.Request) *mcp.Server { return s.mcp }
	stateless := transport.CancelWithExchange(mcp.NewStreamableHTTPHandler(server, &mcp.StreamableHTTPOptions{Stateless: true, Logger: s.logger}))
	h := stateless
	if !opts.Stateless {
		var sessions http.Handler = mcp.NewStreamableHTTPHandler(server,
			&mcp.StreamableHTTPOptions{Logger: s.logger, SessionTimeout: max(opts.SessionIdleTimeout, 0)})
		if opts.MaxSessions > 0 {
			sessions = transport.LimitSessions(sessions, s.mcp, opts.MaxSessions)
		}
		h = transport.ByRevision(sessions, stateless)
	}
	if opts.Authenticated() {
		if opts.OAuth != nil {
			s.oauthFilter.Do(func() { s.mcp.AddReceivingMiddleware(oauth.EnforceGrants) })
		}
		tools := oauth.Tools{Meta: func(name string) bool { return s.metaTools[name] }, Run: ToolRun}
		h = oauth.NewGuard(opts.BearerTokens, opts.OAuth, tools, s.logger).Handler(h)
	}
	s.instrument(mcpotel.TransportTCP)
	h = transport.LimitBodyRead(h, opts.BodyReadTimeout)
	h = mcpotel.HTTPHandler(s.telemetry, h)
	return transport.CheckOrigin(h, opts.AllowedOrigins)
}
