package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/config"
)

// announcingBuffer collects a command's standard error, and hands over
// the endpoint the server announces.
type announcingBuffer struct {
	mu       sync.Mutex
	buf      bytes.Buffer
	endpoint chan string
}

var announcement = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)

func (b *announcingBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if m := announcement.FindStringSubmatch(b.buf.String()); m != nil && b.endpoint != nil {
		b.endpoint <- m[1]
		b.endpoint = nil
	}
	return len(p), nil
}

func (b *announcingBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// serveInProcess runs `metatools serve` with args until the test ends or
// it stops by itself; it returns the endpoint it announced (empty if it
// stopped first), its standard error and its exit code once it stops.
// Within the time limit given, a server that should have refused to start
// is stopped, and reports exitOK.
func serveInProcess(t *testing.T, args ...string) (endpoint string, stderr *announcingBuffer, exit func() int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	announced := make(chan string, 1)
	stderr = &announcingBuffer{endpoint: announced}
	done := make(chan int, 1)
	go func() {
		// No drain delay: these servers stop when the test ends, and no
		// load balancer watches them.
		done <- run(ctx, append([]string{"serve", "--drain-delay", "0"}, args...), strings.NewReader(""), io.Discard, stderr)
	}()
	var code int
	exited := false
	wait := func() int {
		if !exited {
			code, exited = <-done, true
		}
		return code
	}
	t.Cleanup(func() { cancel(); wait() })
	select {
	case endpoint = <-announced:
	case code = <-done:
		exited = true
	}
	return endpoint, stderr, func() int { cancel(); return wait() }
}

func TestServeHTTPPortAloneListensOnLoopback(t *testing.T) {
	endpoint, stderr, _ := serveInProcess(t, "--http", ":0")
	require.NotEmpty(t, endpoint, stderr.String())
	assert.True(t, strings.HasPrefix(endpoint, "http://127.0.0.1:"), endpoint)
}

func TestServeHTTPRefusesToServeBeyondLoopbackWithoutAuth(t *testing.T) {
	endpoint, stderr, exit := serveInProcess(t, "--http", "0.0.0.0:0")
	assert.Empty(t, endpoint, "the server must not start")
	assert.Equal(t, exitUsage, exit())
	assert.Contains(t, stderr.String(), "without authentication")
	assert.Contains(t, stderr.String(), "--insecure-no-auth")

	endpoint, stderr, exit = serveInProcess(t, "--http", "0.0.0.0:0", "--insecure-no-auth")
	require.NotEmpty(t, endpoint, stderr.String())
	assert.Contains(t, stderr.String(), "WARNING: serving 0.0.0.0:0 without authentication")
	assert.Equal(t, exitOK, exit())

	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("s3cret\n"), 0o600))
	endpoint, stderr, _ = serveInProcess(t, "--http", "0.0.0.0:0", "--token-file", tokenFile)
	require.NotEmpty(t, endpoint, "with a token the server starts: %s", stderr.String())
}

// TestServeHTTPRefusesTheConsoleBeyondLoopbackWithoutAuth checks that
// the web console is never served beyond the loopback interface without
// authentication, --insecure-no-auth or not, and is served with a token
// and on the loopback interface, behind the token when there is one.
func TestServeHTTPRefusesTheConsoleBeyondLoopbackWithoutAuth(t *testing.T) {
	cfg := writeFile(t, "metatools.yaml", "server: {http: {console: {enabled: true}}}\n")
	endpoint, stderr, exit := serveInProcess(t, "--config", cfg, "--http", "0.0.0.0:0", "--insecure-no-auth")
	assert.Empty(t, endpoint, "the server must not start")
	assert.Equal(t, exitUsage, exit())
	assert.Contains(t, stderr.String(), "refusing to serve the web console on 0.0.0.0:0, beyond the loopback interface, without authentication")

	tokenFile := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(tokenFile, []byte("console-s3cret\n"), 0o600))
	endpoint, stderr, _ = serveInProcess(t, "--config", cfg, "--http", "0.0.0.0:0", "--token-file", tokenFile)
	require.NotEmpty(t, endpoint, "with a token the server starts: %s", stderr.String())
	assert.Contains(t, stderr.String(), "serving the web console at ")

	endpoint, stderr, _ = serveInProcess(t, "--config", cfg, "--http", "127.0.0.1:0")
	require.NotEmpty(t, endpoint, stderr.String())
	ui := strings.TrimSuffix(endpoint, "/mcp") + "/ui/api/upstreams"
	resp, err := http.Get(ui)
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode, "on the loopback interface without tokens, the console needs none")

	endpoint, stderr, _ = serveInProcess(t, "--http", "127.0.0.1:0")
	require.NotEmpty(t, endpoint, stderr.String())
	assert.NotContains(t, stderr.String(), "web console", "the console is off by default")
	resp, err = http.Get(strings.TrimSuffix(endpoint, "/mcp") + "/ui/")
	require.NoError(t, err)
	_ = resp.Body.Close()
	assert.Equal(t, http.StatusNotFound, resp.StatusCode)
}

func TestServeHTTPRefusesEmptyTokens(t *testing.T) {
	endpoint, stderr, exit := serveInProcess(t, "--http", "127.0.0.1:0", "--token", "")
	assert.Empty(t, endpoint, "the server must not start")
	assert.Equal(t, exitUsage, exit())
	assert.Contains(t, stderr.String(), "--token must not be empty")

	blank := filepath.Join(t.TempDir(), "token")
	require.NoError(t, os.WriteFile(blank, []byte("\n  \n"), 0o600))
	endpoint, stderr, exit = serveInProcess(t, "--http", "127.0.0.1:0", "--token-file", blank)
	assert.Empty(t, endpoint, "the server must not start")
	assert.Equal(t, exitUsage, exit())
	assert.Contains(t, stderr.String(), "holds no token")

	cfg := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("server:\n  http:\n    bearerTokens: ['']\n"), 0o600))
	endpoint, stderr, exit = serveInProcess(t, "--http", "127.0.0.1:0", "--config", cfg)
	assert.Empty(t, endpoint, "the server must not start")
	assert.Equal(t, exitUsage, exit())
	assert.Contains(t, stderr.String(), "server.http.bearerTokens[0]: empty: every request would be refused")
}

// post sends an initialize request to endpoint with extra headers, and
// returns the status.
func post(t *testing.T, endpoint string, headers ...string) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader(
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode
}

func TestServeHTTPTokenFileAndOrigins(t *testing.T) {
	tokenFile := filepath.Join(t.TempDir(), "tokens")
	require.NoError(t, os.WriteFile(tokenFile, []byte("first\n\n  second  \n"), 0o600))
	cfg := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("server:\n  http:\n    allowedOrigins: ['https://app.example.com']\n"), 0o600))
	endpoint, stderr, _ := serveInProcess(t, "--http", "127.0.0.1:0", "--token-file", tokenFile, "--config", cfg)
	require.NotEmpty(t, endpoint, stderr.String())

	assert.Equal(t, http.StatusUnauthorized, post(t, endpoint))
	assert.Equal(t, http.StatusOK, post(t, endpoint, "Authorization", "Bearer first"))
	assert.Equal(t, http.StatusOK, post(t, endpoint, "Authorization", "Bearer second"))
	assert.Equal(t, http.StatusForbidden, post(t, endpoint, "Authorization", "Bearer first", "Origin", "http://evil.example"))
	assert.Equal(t, http.StatusOK, post(t, endpoint, "Authorization", "Bearer first", "Origin", "https://app.example.com"))
}

func TestListenAddress(t *testing.T) {
	for addr, want := range map[string]string{
		":8080":          "127.0.0.1:8080",
		"0.0.0.0:8080":   "0.0.0.0:8080",
		"localhost:9000": "localhost:9000",
		"[::1]:8080":     "[::1]:8080",
		"[::]:8080":      "[::]:8080",
	} {
		got, err := listenAddress(addr)
		require.NoError(t, err, addr)
		assert.Equal(t, want, got, addr)
	}
	_, err := listenAddress("8080")
	assert.True(t, isUsage(err), "a port without a colon: %v", err)
}

func FuzzParseTokenFile(f *testing.F) {
	f.Add([]byte("tok\n"))
	f.Add([]byte("\n \r\n a b \n\tc"))
	f.Add([]byte(""))
	f.Add([]byte("ci tok\nplain\n"))
	f.Add([]byte("a b c\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		tokens, err := parseTokenFile(data)
		if err != nil {
			tooMany := slices.ContainsFunc(strings.Split(string(data), "\n"), func(line string) bool { return len(strings.Fields(line)) > 2 })
			assert.True(t, tooMany || len(bytes.TrimSpace(data)) == 0, "%v", err)
			return
		}
		require.NotEmpty(t, tokens)
		for _, tok := range tokens {
			assert.NotEmpty(t, tok.Token)
			for _, s := range []string{tok.Name, tok.Token} {
				assert.Equal(t, strings.Join(strings.Fields(s), ""), s, "no space in %q", s)
			}
		}
	})
}

func TestParseTokenFile(t *testing.T) {
	tokens, err := parseTokenFile([]byte("  ci   ci-secret \n\nplain-secret\n"))
	require.NoError(t, err)
	assert.Equal(t, []toolserver.BearerToken{{Name: "ci", Token: "ci-secret"}, {Token: "plain-secret"}}, tokens)
	_, err = parseTokenFile([]byte("ok\nname token more\n"))
	require.ErrorContains(t, err, "line 2: a line is a token, or a name and a token")
}

func TestProbesAnswerTheState(t *testing.T) {
	starting, ready := make(chan struct{}), make(chan struct{})
	close(ready)
	tests := []struct {
		name     string
		ready    chan struct{}
		draining bool
		status   int
		body     string
	}{
		{"starting", starting, false, http.StatusServiceUnavailable, "starting\n"},
		{"ready", ready, false, http.StatusOK, "ready\n"},
		{"stopping", ready, true, http.StatusServiceUnavailable, "stopping\n"},
		{"stopping while starting", starting, true, http.StatusServiceUnavailable, "stopping\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &probes{ready: tt.ready}
			p.draining.Store(tt.draining)
			rec := httptest.NewRecorder()
			p.readyz(rec, httptest.NewRequest(http.MethodGet, readyzPath, http.NoBody))
			assert.Equal(t, tt.status, rec.Code)
			assert.Equal(t, tt.body, rec.Body.String())
			assert.Equal(t, "no-store", rec.Header().Get("Cache-Control"))

			rec = httptest.NewRecorder()
			p.healthz(rec, httptest.NewRequest(http.MethodGet, healthzPath, http.NoBody))
			assert.Equal(t, http.StatusOK, rec.Code, "alive whatever the readiness")
			assert.Equal(t, "ok\n", rec.Body.String())
		})
	}
}

func TestDrainDelayPrecedence(t *testing.T) {
	zero, seven := config.Duration(0), config.Duration(7*time.Second)
	flagZero, flagTwo := time.Duration(0), 2*time.Second
	tests := []struct {
		name       string
		configured *config.Duration
		flag       *time.Duration
		want       time.Duration
	}{
		{"default", nil, nil, defaultDrainDelay},
		{"configured", &seven, nil, 7 * time.Second},
		{"configured zero", &zero, nil, 0},
		{"flag over configuration", &seven, &flagTwo, 2 * time.Second},
		{"flag zero over configuration", &seven, &flagZero, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := &config.Config{}
			cfg.Server.HTTP.DrainDelay = tt.configured
			assert.Equal(t, tt.want, drainDelay(cfg, tt.flag))
		})
	}
}

func TestServeRefusesANegativeDrainDelay(t *testing.T) {
	code, _, stderr := cli(t, "", "serve", "--http", "127.0.0.1:0", "--drain-delay", "-1s")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "--drain-delay must not be negative")
}
