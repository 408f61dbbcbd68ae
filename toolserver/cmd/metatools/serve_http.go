package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/config"
	"github.com/metatools-go/metatools/toolserver/internal/console"
)

// HTTP server timeouts that no request may exceed, whatever its kind.
const (
	// readHeaderTimeout bounds the reading of a request's headers.
	readHeaderTimeout = 10 * time.Second
	// idleTimeout closes a kept-alive connection with no request.
	idleTimeout = 2 * time.Minute
)

// listenAddress returns the address to listen on for addr: a port alone
// (":8080") means the loopback interface, so that serving HTTP exposes
// nothing beyond the machine unless a host is named ("0.0.0.0:8080").
func listenAddress(addr string) (string, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return "", usagef("--http %q: want HOST:PORT or :PORT: %v", addr, err)
	}
	if host == "" {
		host = "127.0.0.1"
	}
	return net.JoinHostPort(host, port), nil
}

// serveMetrics serves h at /metrics on the diagnostics address of cfg
// (a port alone is the loopback interface), until stop is called. It
// refuses to listen beyond the loopback interface without a token.
func (e *env) serveMetrics(cfg config.Telemetry, h http.Handler) (stop func(), err error) {
	addr, err := listenAddress(cfg.Prometheus)
	if err != nil {
		return nil, configError{fmt.Errorf("telemetry.prometheus: %w", err)}
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("telemetry.prometheus: %w", err)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && cfg.PrometheusToken == "" {
		_ = ln.Close()
		return nil, configError{fmt.Errorf("refusing to serve the metrics on %s, beyond the loopback interface, without telemetry.prometheusToken", ln.Addr())}
	}
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", h)
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = hs.Serve(ln) }()
	fmt.Fprintf(e.stderr, "metatools: metrics at http://%s/metrics\n", ln.Addr())
	return func() { _ = hs.Close() }, nil
}

// parseTokenFile returns the bearer tokens of a token file: one a line,
// either the token alone or a name and the token separated by spaces
// (a token has none), blank lines and surrounding spaces ignored. A file
// with no token is an error, as every request would be refused.
func parseTokenFile(data []byte) ([]toolserver.BearerToken, error) {
	var tokens []toolserver.BearerToken
	n := 0
	for line := range bytes.Lines(data) {
		n++
		switch fields := strings.Fields(string(line)); len(fields) {
		case 0:
		case 1:
			tokens = append(tokens, toolserver.BearerToken{Token: fields[0]})
		case 2:
			tokens = append(tokens, toolserver.BearerToken{Name: fields[0], Token: fields[1]})
		default:
			return nil, fmt.Errorf("line %d: a line is a token, or a name and a token", n)
		}
	}
	if len(tokens) == 0 {
		return nil, errors.New("it holds no token")
	}
	return tokens, nil
}

// httpTokens gathers the bearer tokens of the flags, the token file, the
// METATOOLS_TOKEN variable and the configuration.
func httpTokens(flagTokens []string, tokenFile string, configured []toolserver.BearerToken) ([]toolserver.BearerToken, error) {
	tokens := slices.Clone(configured)
	for _, t := range flagTokens {
		if t == "" {
			return nil, usagef("--token must not be empty: every request would be refused")
		}
		tokens = append(tokens, toolserver.BearerToken{Token: t})
	}
	if tokenFile != "" {
		data, err := os.ReadFile(tokenFile)
		if err != nil {
			return nil, configError{fmt.Errorf("--token-file: %w", err)}
		}
		fromFile, err := parseTokenFile(data)
		if err != nil {
			return nil, configError{fmt.Errorf("--token-file %s: %w", tokenFile, err)}
		}
		tokens = append(tokens, fromFile...)
	}
	if t := os.Getenv(tokenEnv); t != "" {
		tokens = append(tokens, toolserver.BearerToken{Token: t})
	}
	return tokens, nil
}

// Paths of the probes served next to /mcp, without authentication: a
// probe carries no token, and the answers reveal nothing but the state.
const (
	// healthzPath answers 200 while the process serves (liveness).
	healthzPath = "/healthz"
	// readyzPath answers 200 once the server is ready for calls, and 503
	// before that and from the moment it begins to stop (readiness).
	readyzPath = "/readyz"
)

// tokenEnv is the environment variable serve --http reads a bearer token
// from.
const tokenEnv = "METATOOLS_TOKEN"

// defaultDrainDelay is how long a stopping HTTP server goes on serving
// after /readyz turns 503 when server.http.drainDelay is not set: long
// enough for a load balancer that probes every few seconds, as
// Kubernetes does, to take the server out of rotation.
const defaultDrainDelay = 5 * time.Second

// httpServe is what serveHTTP serves and how.
type httpServe struct {
	// addr is the address to listen on, as --http takes it.
	addr string
	// opts are the HTTP options handler was made with.
	opts toolserver.HTTPOptions
	// handler serves MCP at /mcp.
	handler http.Handler
	// console, when not nil, is the web console, served at /ui behind
	// the authentication of /mcp (authenticate).
	console http.Handler
	// authenticate puts a handler behind the authentication of /mcp.
	authenticate func(http.Handler) http.Handler
	// insecure allows serving beyond the loopback interface without
	// authentication.
	insecure bool
	// ready is closed once the server is ready for calls: its catalogue
	// built and every upstream up or failed once.
	ready <-chan struct{}
	// drainDelay is how long the server goes on serving once /readyz
	// answers 503, before it stops accepting.
	drainDelay time.Duration
	// drainSet says that drainDelay was set (--drain-delay or
	// server.http.drainDelay): it applies whether or not /readyz was
	// asked.
	drainSet bool
	// shutdownTimeout bounds the wait for running requests once the
	// server stops accepting.
	shutdownTimeout time.Duration
	// now is cancelled, with a [stopSignal] as its cause, when a stop
	// must not wait any longer (a second Ctrl-C): the drain delay is cut
	// short and running requests are cut. A nil now never is.
	now context.Context
}

// probes answers the liveness and readiness probes, counts the MCP
// requests running, which a stop waits for, and ends the event streams
// clients listen on, which a stop must not wait for.
type probes struct {
	ready    <-chan struct{}
	draining atomic.Bool
	running  atomic.Int64
	// probed is set once /readyz has been asked: something, a load
	// balancer most likely, routes requests by it.
	probed atomic.Bool

	mu      sync.Mutex
	streams map[*http.Request]context.CancelFunc // GET streams open
}

// plain writes a short plain-text answer no cache keeps.
func plain(w http.ResponseWriter, status int, body string) {
	h := w.Header()
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = io.WriteString(w, body+"\n")
}

// healthz answers 200 as long as the process serves HTTP, stopping
// included: a stopping server is alive, and restarting it would cut the
// calls it is finishing.
func (p *probes) healthz(w http.ResponseWriter, _ *http.Request) {
	plain(w, http.StatusOK, "ok")
}

// readyz answers 200 when the server is ready for calls and is not
// stopping, and 503 otherwise.
func (p *probes) readyz(w http.ResponseWriter, _ *http.Request) {
	p.probed.Store(true)
	switch {
	case p.draining.Load():
		plain(w, http.StatusServiceUnavailable, "stopping")
	case !closed(p.ready):
		plain(w, http.StatusServiceUnavailable, "starting")
	default:
		plain(w, http.StatusOK, "ready")
	}
}

// closed reports whether ch is closed.
func closed(ch <-chan struct{}) bool {
	select {
	case <-ch:
		return true
	default:
		return false
	}
}

// count counts the requests h is serving, and follows the GET requests:
// each opens a session's stream of notifications, which lasts as long as
// the client listens.
func (p *probes) count(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p.running.Add(1)
		defer p.running.Add(-1)
		if r.Method == http.MethodGet {
			ctx, cancel := context.WithCancel(r.Context())
			defer cancel()
			r = r.WithContext(ctx)
			p.mu.Lock()
			if p.streams == nil {
				p.streams = map[*http.Request]context.CancelFunc{}
			}
			p.streams[r] = cancel
			p.mu.Unlock()
			defer func() {
				p.mu.Lock()
				delete(p.streams, r)
				p.mu.Unlock()
			}()
		}
		h.ServeHTTP(w, r)
	})
}

// endStreams ends the GET streams open. They carry no call: a call's
// answer comes on the response to its POST, and a GET cannot replay one
// since the handler keeps no event store (HTTPOptions sets none). Left
// open, they would hold a stop for its whole timeout; a client reopens its
// stream, to another replica or to the restarted server.
func (p *probes) endStreams() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, cancel := range p.streams {
		cancel()
	}
}

// serveHTTP serves s.handler at /mcp on s.addr, the probes at /healthz
// and /readyz, and the protected-resource metadata of s.opts.OAuth, when
// set, at its well-known paths, until ctx is done. Then it drains: /readyz
// answers 503 at once, connections are no longer kept alive, and serving
// goes on for s.drainDelay, so that a load balancer sends new requests
// elsewhere; then it stops accepting and lets running requests finish for
// at most s.shutdownTimeout, and returns once they have. It refuses to
// listen beyond the loopback interface without authentication unless
// s.insecure is set.
func (e *env) serveHTTP(ctx context.Context, s httpServe) error {
	addr, err := listenAddress(s.addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !s.opts.Authenticated() {
		if !s.insecure {
			_ = ln.Close()
			return configError{fmt.Errorf("refusing to serve HTTP on %s, beyond the loopback interface, without authentication: "+
				"give bearer tokens (--token-file, "+tokenEnv+" or server.http.bearerTokens) or configure server.http.oauth, "+
				"or pass --insecure-no-auth to serve anyone who can reach it", addr)}
		}
		fmt.Fprintf(e.stderr, "metatools: WARNING: serving %s without authentication (--insecure-no-auth): anyone who can reach it can run every tool\n", addr)
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !s.opts.Authenticated() && s.console != nil {
		_ = ln.Close()
		return configError{fmt.Errorf("refusing to serve the web console on %s, beyond the loopback interface, without authentication "+
			"(--insecure-no-auth does not cover it): give bearer tokens or configure server.http.oauth, or turn server.http.console off", addr)}
	}
	p := &probes{ready: s.ready}
	mux := http.NewServeMux()
	mux.Handle("/mcp", p.count(s.handler))
	if s.console != nil {
		ui := s.console
		if s.opts.Authenticated() {
			// Behind the authentication of /mcp, with a sign-in page for
			// browsers.
			ui = console.WithLogin(ui, s.authenticate)
		}
		mux.Handle(console.Path, p.count(ui))
		mux.Handle(strings.TrimSuffix(console.Path, "/"), ui)
	}
	mux.HandleFunc("GET "+healthzPath, p.healthz)
	mux.HandleFunc("GET "+readyzPath, p.readyz)
	if s.opts.OAuth != nil {
		for _, path := range s.opts.OAuth.MetadataPaths() {
			mux.Handle(path, s.opts.OAuth.MetadataHandler())
		}
	}
	// The console's line comes first: clients wait for the MCP line,
	// which says that everything is served.
	if s.console != nil {
		fmt.Fprintf(e.stderr, "metatools: serving the web console at http://%s%s\n", ln.Addr(), console.Path)
	}
	fmt.Fprintf(e.stderr, "metatools: serving MCP at http://%s/mcp (probes at %s and %s)\n", ln.Addr(), healthzPath, readyzPath)
	// No ReadTimeout or WriteTimeout: they bound a whole exchange and would
	// cut the event streams of long calls and of GET requests. The
	// handler bounds the reading of each request body instead
	// (HTTPOptions.BodyReadTimeout); these bound the headers and the
	// connections kept alive between requests.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	failed, stopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-s.ready:
			fmt.Fprintf(e.stderr, "metatools: ready: %s answers 200\n", readyzPath)
		case <-ctx.Done():
		case <-failed:
			return
		}
		select {
		case <-ctx.Done():
			e.drain(hs, p, s)
		case <-failed:
		}
	}()
	err = hs.Serve(ln)
	if !errors.Is(err, http.ErrServerClosed) {
		close(failed)
		<-stopped
		return err
	}
	// Serve returns as soon as the stop begins; the running requests are
	// done when the stop is.
	<-stopped
	return nil
}

// drain stops hs as serveHTTP says, telling how it goes on e.stderr.
//
// The drain delay gives a load balancer time to see /readyz turn 503 and
// send requests elsewhere. The default delay is skipped when nothing has
// asked /readyz since the server started: no one routes by it, and a
// person who stops a server at a terminal should not wait for nothing. A
// delay that is set applies always, for load balancers that learn of a
// stop otherwise (Kubernetes removes a stopping pod from its endpoints
// whatever its probes say). A second signal (s.now) cuts the delay short
// and the running requests too.
func (e *env) drain(hs *http.Server, p *probes, s httpServe) {
	now := s.now
	if now == nil {
		now = context.Background()
	}
	p.draining.Store(true)
	// Without keep-alive, each client opens a new connection for its next
	// request, which a load balancer routes to another server.
	hs.SetKeepAlivesEnabled(false)
	delay := s.drainDelay
	switch {
	case delay > 0 && !s.drainSet && !p.probed.Load():
		fmt.Fprintf(e.stderr, "metatools: stopping: %s answers 503; no drain delay, as nothing has asked it (--drain-delay sets one that always applies)\n", readyzPath)
		delay = 0
	case delay > 0:
		fmt.Fprintf(e.stderr, "metatools: stopping: %s answers 503; serving on for %s (drain delay; a second Ctrl-C or SIGTERM stops at once)\n", readyzPath, delay)
	default:
		fmt.Fprintf(e.stderr, "metatools: stopping: %s answers 503\n", readyzPath)
	}
	if delay > 0 {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-now.Done():
			t.Stop()
			var sig stopSignal
			if errors.As(context.Cause(now), &sig) {
				fmt.Fprintf(e.stderr, "metatools: %s received again: drain delay cut short\n", sig.name())
			}
		}
	}
	// Shutdown runs the functions registered here once it has closed the
	// listeners: from then on, new connections are refused.
	listenersClosed := make(chan struct{})
	hs.RegisterOnShutdown(func() { close(listenersClosed) })
	ctx, cancel := context.WithTimeout(now, s.shutdownTimeout)
	defer cancel()
	shut := make(chan error, 1)
	go func() { shut <- hs.Shutdown(ctx) }()
	<-listenersClosed
	p.endStreams()
	fmt.Fprintf(e.stderr, "metatools: no longer accepting; requests running: %d, given %s to finish\n", p.running.Load(), s.shutdownTimeout)
	if err := <-shut; err != nil {
		n := p.running.Load()
		_ = hs.Close()
		var sig stopSignal
		if errors.As(context.Cause(now), &sig) {
			fmt.Fprintf(e.stderr, "metatools: %s received again: stopped at once, requests cut: %d\n", sig.name(), n)
			return
		}
		fmt.Fprintf(e.stderr, "metatools: requests still running after %s (server.shutdownTimeout), cut: %d\n", s.shutdownTimeout, n)
		return
	}
	fmt.Fprintf(e.stderr, "metatools: every request finished\n")
}

// drainDelay returns how long a stopping HTTP server serves on once
// /readyz answers 503: flag when the --drain-delay flag was given, else
// the configuration's, else the default.
func drainDelay(cfg *config.Config, flag *time.Duration) time.Duration {
	switch {
	case flag != nil:
		return *flag
	case cfg.Server.HTTP.DrainDelay != nil:
		return time.Duration(*cfg.Server.HTTP.DrainDelay)
	}
	return defaultDrainDelay
}

// shutdownTimeout returns how long a stopping server lets running calls
// finish.
func shutdownTimeout(cfg *config.Config) time.Duration {
	if cfg.Server.ShutdownTimeout > 0 {
		return time.Duration(cfg.Server.ShutdownTimeout)
	}
	return toolserver.DefaultShutdownTimeout
}
