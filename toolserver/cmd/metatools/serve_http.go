package main

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/config"
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

// parseTokenFile returns the bearer tokens of a token file: one a line,
// blank lines and surrounding spaces ignored. A file with no token is an
// error, as every request would be refused.
func parseTokenFile(data []byte) ([]string, error) {
	var tokens []string
	for line := range bytes.Lines(data) {
		if t := bytes.TrimSpace(line); len(t) > 0 {
			tokens = append(tokens, string(t))
		}
	}
	if len(tokens) == 0 {
		return nil, errors.New("it holds no token")
	}
	return tokens, nil
}

// httpTokens gathers the bearer tokens of the flags, the token file, the
// METATOOLS_TOKEN variable and the configuration.
func httpTokens(flagTokens []string, tokenFile string, configured []string) ([]string, error) {
	tokens := append([]string(nil), configured...)
	for _, t := range flagTokens {
		if t == "" {
			return nil, usagef("--token must not be empty: every request would be refused")
		}
		tokens = append(tokens, t)
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
	if t := os.Getenv("METATOOLS_TOKEN"); t != "" {
		tokens = append(tokens, t)
	}
	return tokens, nil
}

// serveHTTP serves h at /mcp on addr, and the protected-resource metadata
// of opts.OAuth, when set, at its well-known paths, until ctx is done, then lets running
// requests finish for at most shutdownTimeout. It refuses to listen beyond
// the loopback interface without authentication unless insecure is set.
func (e *env) serveHTTP(ctx context.Context, addr string, opts toolserver.HTTPOptions, h http.Handler, insecure bool, shutdownTimeout time.Duration) error {
	addr, err := listenAddress(addr)
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && !tcp.IP.IsLoopback() && !opts.Authenticated() {
		if !insecure {
			_ = ln.Close()
			return configError{fmt.Errorf("refusing to serve HTTP on %s, beyond the loopback interface, without authentication: "+
				"give bearer tokens (--token-file, METATOOLS_TOKEN or server.http.bearerTokens) or configure server.http.oauth, "+
				"or pass --insecure-no-auth to serve anyone who can reach it", addr)}
		}
		fmt.Fprintf(e.stderr, "metatools: WARNING: serving %s without authentication (--insecure-no-auth): anyone who can reach it can run every tool\n", addr)
	}
	mux := http.NewServeMux()
	mux.Handle("/mcp", h)
	if opts.OAuth != nil {
		for _, path := range opts.OAuth.MetadataPaths() {
			mux.Handle(path, opts.OAuth.MetadataHandler())
		}
	}
	fmt.Fprintf(e.stderr, "metatools: serving MCP at http://%s/mcp\n", ln.Addr())
	// No ReadTimeout or WriteTimeout: they bound a whole exchange and would
	// cut the event streams of long calls and of GET requests. The
	// handler bounds the reading of each request body instead
	// (HTTPOptions.BodyReadTimeout); these bound the headers and the
	// connections kept alive between requests.
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: idleTimeout}
	go func() {
		<-ctx.Done()
		shutdown, cancel := context.WithTimeout(context.Background(), shutdownTimeout)
		defer cancel()
		_ = hs.Shutdown(shutdown)
	}()
	if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// shutdownTimeout returns how long a stopping server lets running calls
// finish.
func shutdownTimeout(cfg *config.Config) time.Duration {
	if cfg.Server.ShutdownTimeout > 0 {
		return time.Duration(cfg.Server.ShutdownTimeout)
	}
	return toolserver.DefaultShutdownTimeout
}
