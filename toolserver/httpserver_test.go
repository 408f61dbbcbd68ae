package toolserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver"
)

// postMCP sends one JSON-RPC message to h, in session sessionID if not
// empty, with extra headers, and returns the recorded response.
func postMCP(h http.Handler, sessionID, body string, headers ...string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(http.MethodPost, "/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if sessionID != "" {
		req.Header.Set("Mcp-Session-Id", sessionID)
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

const initializeRequest = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// initialize opens a session on h and returns its ID.
func initialize(t *testing.T, h http.Handler) string {
	t.Helper()
	rec := postMCP(h, "", initializeRequest)
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	id := rec.Header().Get("Mcp-Session-Id")
	require.NotEmpty(t, id)
	return id
}

// ping sends a ping in session id and returns the HTTP status.
func ping(h http.Handler, id string) int {
	return postMCP(h, id, `{"jsonrpc":"2.0","id":2,"method":"ping"}`).Code
}

func liveSessions(s *toolserver.Server) int {
	n := 0
	for range s.MCPServer().Sessions() {
		n++
	}
	return n
}

func closeSessions(s *toolserver.Server) {
	for ss := range s.MCPServer().Sessions() {
		_ = ss.Close()
	}
}

func TestHTTPSessionsAreCappedByEvictingTheOldestIdle(t *testing.T) {
	srv := newCatalogue(t).server()
	t.Cleanup(func() { closeSessions(srv) })
	h := srv.HTTPHandler(toolserver.HTTPOptions{MaxSessions: 3})

	ids := make([]string, 0, 5)
	for range 5 {
		ids = append(ids, initialize(t, h))
	}
	assert.Equal(t, 3, liveSessions(srv), "live sessions after 5 initializations with a cap of 3")
	assert.Equal(t, http.StatusNotFound, ping(h, ids[0]), "the oldest idle session is closed")
	assert.Equal(t, http.StatusNotFound, ping(h, ids[1]))
	for _, id := range ids[2:] {
		assert.Equal(t, http.StatusOK, ping(h, id), "a recent session still works")
	}

	// Using a session makes it the most recent: the next eviction spares it.
	require.Equal(t, http.StatusOK, ping(h, ids[2]))
	fresh := initialize(t, h)
	assert.Equal(t, http.StatusOK, ping(h, fresh), "a fresh session works")
	assert.Equal(t, http.StatusOK, ping(h, ids[2]))
	assert.Equal(t, http.StatusNotFound, ping(h, ids[3]), "the session idle the longest is closed")
	assert.Equal(t, 3, liveSessions(srv))
}

func TestHTTPIdleSessionsExpire(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := newCatalogue(t).server()
		defer closeSessions(srv)
		h := srv.HTTPHandler(toolserver.HTTPOptions{SessionIdleTimeout: time.Minute})

		idle, used := initialize(t, h), initialize(t, h)
		time.Sleep(40 * time.Second)
		require.Equal(t, http.StatusOK, ping(h, used))
		time.Sleep(30 * time.Second) // idle is 70 s idle, used 30 s
		synctest.Wait()

		assert.Equal(t, http.StatusNotFound, ping(h, idle), "a session idle past the timeout is closed")
		assert.Equal(t, http.StatusOK, ping(h, used), "a session used within the timeout lives")
		assert.Equal(t, 1, liveSessions(srv))
	})
}

func TestHTTPRefusesForeignOrigins(t *testing.T) {
	srv := newCatalogue(t).server()
	t.Cleanup(func() { closeSessions(srv) })
	h := srv.HTTPHandler(toolserver.HTTPOptions{AllowedOrigins: []string{"https://app.example.com"}})

	for origin, want := range map[string]int{
		"http://evil.example":          http.StatusForbidden,
		"null":                         http.StatusForbidden,
		"https://app.example.com.evil": http.StatusForbidden,
		"https://app.example.com":      http.StatusOK,
		"http://localhost:3000":        http.StatusOK,
		"http://127.0.0.1:5173":        http.StatusOK,
		"http://[::1]:8080":            http.StatusOK,
		"http://example.com":           http.StatusOK, // the server's own origin (httptest's Host)
		"":                             http.StatusOK, // not a browser
	} {
		var headers []string
		if origin != "" {
			headers = []string{"Origin", origin}
		}
		rec := postMCP(h, "", initializeRequest, headers...)
		assert.Equal(t, want, rec.Code, "Origin %q: %s", origin, rec.Body.String())
	}
}

// TestHTTPSlowBodiesAreCut sends the headers of a request, then a body
// that never ends (at once, or a byte at a time): the server hangs up
// within the body timeout instead of waiting forever.
func TestHTTPSlowBodiesAreCut(t *testing.T) {
	srv := newCatalogue(t).server()
	ts := httptest.NewServer(srv.HTTPHandler(toolserver.HTTPOptions{BodyReadTimeout: 200 * time.Millisecond}))
	t.Cleanup(ts.Close)

	for _, dribble := range []bool{false, true} {
		t.Run(fmt.Sprintf("dribble=%v", dribble), func(t *testing.T) {
			conn, err := net.Dial("tcp", ts.Listener.Addr().String())
			require.NoError(t, err)
			defer func() { _ = conn.Close() }()
			_, err = fmt.Fprintf(conn, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"+
				"Accept: application/json, text/event-stream\r\nContent-Length: 100000\r\n\r\n{\"jsonrpc\":", ts.Listener.Addr())
			require.NoError(t, err)

			// The server must hang up long before this deadline.
			require.NoError(t, conn.SetDeadline(time.Now().Add(20*time.Second)))
			hungUp := make(chan error, 1)
			go func() {
				_, err := io.Copy(io.Discard, conn)
				hungUp <- err
			}()
			if dribble {
				tick := time.NewTicker(20 * time.Millisecond)
				defer tick.Stop()
			writing:
				for {
					select {
					case err := <-hungUp:
						hungUp <- err
						break writing
					case <-tick.C:
						if _, err := conn.Write([]byte(" ")); err != nil {
							break writing
						}
					}
				}
			}
			err = <-hungUp
			var netErr net.Error
			if errors.As(err, &netErr) {
				assert.False(t, netErr.Timeout(), "the server kept the connection open: %v", err)
			}
		})
	}
}

// TestHTTPLongResponsesOutliveTheBodyTimeout checks that the body timeout
// does not cut a response that streams for longer.
func TestHTTPLongResponsesOutliveTheBodyTimeout(t *testing.T) {
	c := newCatalogue(t)
	release := make(chan struct{})
	c.add(t, `{"name":"wait","namespace":"slow","description":"Wait to be released.","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, _ map[string]any) (any, error) {
			select {
			case <-release:
				return "released", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	ts := httptest.NewServer(c.server().HTTPHandler(toolserver.HTTPOptions{BodyReadTimeout: 50 * time.Millisecond}))
	t.Cleanup(ts.Close)

	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).
		Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	// Release the call well after the body timeout has passed.
	timer := time.AfterFunc(300*time.Millisecond, func() { close(release) })
	defer timer.Stop()
	res := call(t, cs, "run_tool", map[string]any{"id": "slow:wait", "args": map[string]any{}})
	assert.Contains(t, text(res), "released")
}

// BenchmarkHTTPSessions opens b.N sessions over real HTTP with the default
// limits, none of them closed by its client, and reports the heap in use
// after them: bounded by DefaultMaxSessions, it does not grow with b.N.
// Run with -benchtime=30000x for the figure in the README.
func BenchmarkHTTPSessions(b *testing.B) {
	srv := newCatalogue(b).server()
	ts := httptest.NewServer(srv.HTTPHandler(toolserver.HTTPOptions{}))
	b.Cleanup(ts.Close)
	b.Cleanup(func() { closeSessions(srv) })
	client := ts.Client()
	heapBefore := heapInUse()
	rssBefore, _ := residentMiB()
	b.ReportAllocs()
	for b.Loop() {
		req, err := http.NewRequest(http.MethodPost, ts.URL, strings.NewReader(initializeRequest))
		require.NoError(b, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := client.Do(req)
		require.NoError(b, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		require.Equal(b, http.StatusOK, resp.StatusCode)
	}
	b.StopTimer()
	b.ReportMetric(float64(liveSessions(srv)), "sessions")
	b.ReportMetric(float64(heapBefore)/(1<<20), "heap-MiB-before")
	b.ReportMetric(float64(heapInUse())/(1<<20), "heap-MiB-after")
	if rss, ok := residentMiB(); ok {
		b.ReportMetric(rssBefore, "rss-MiB-before")
		b.ReportMetric(rss, "rss-MiB-after")
	}
}

// residentMiB returns the resident memory of the process, where the
// system tells it (/proc on Linux).
func residentMiB() (float64, bool) {
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(status)) {
		if kb, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			var n float64
			if _, err := fmt.Sscan(strings.TrimSuffix(strings.TrimSpace(kb), " kB"), &n); err == nil {
				return n / 1024, true
			}
		}
	}
	return 0, false
}

// heapInUse returns the bytes of the heap in use after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapInuse
}

// TestHTTPServesBothRevisions shows one endpoint with sessions answering
// a 2026-07-28 client without a session, and listing every revision it
// speaks to server/discover, while a client of an earlier revision gets
// its session.
func TestHTTPServesBothRevisions(t *testing.T) {
	srv := newCatalogue(t).server()
	t.Cleanup(func() { closeSessions(srv) })
	h := srv.HTTPHandler(toolserver.HTTPOptions{})

	meta := `"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientInfo":{"name":"t","version":"1"},"io.modelcontextprotocol/clientCapabilities":{}}`
	rec := postMCP(h, "", `{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{`+meta+`}}`, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "server/discover")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Empty(t, rec.Header().Get("Mcp-Session-Id"), "no session for 2026-07-28")
	var discover struct {
		Result struct {
			SupportedVersions []string `json:"supportedVersions"`
		} `json:"result"`
	}
	require.NoError(t, json.Unmarshal(sseData(t, rec.Body.String()), &discover), rec.Body.String())
	assert.Contains(t, discover.Result.SupportedVersions, "2026-07-28")
	assert.Contains(t, discover.Result.SupportedVersions, "2025-11-25")

	rec = postMCP(h, "", `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"search_tools","arguments":{"query":"issue"},`+meta+`}}`, "Mcp-Protocol-Version", "2026-07-28", "Mcp-Method", "tools/call", "Mcp-Name", "search_tools")
	require.Equal(t, http.StatusOK, rec.Code, rec.Body.String())
	assert.Contains(t, rec.Body.String(), "github:create_issue", "a 2026-07-28 call is answered without a session")

	assert.Equal(t, 0, liveSessions(srv))
	initialize(t, h)
	assert.Equal(t, 1, liveSessions(srv), "a 2025-11-25 client gets its session")
}

// sseData returns the data of the first event of a server-sent event
// stream, or the body itself when it is plain JSON.
func sseData(t *testing.T, body string) []byte {
	t.Helper()
	for line := range strings.Lines(body) {
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			return []byte(strings.TrimSpace(data))
		}
	}
	return []byte(body)
}
