package transport

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzOriginAllowed checks the origin check on any Origin header: it never
// fails, lets through what is listed and the server's own origin, and
// refuses what is no web origin unless listed.
func FuzzOriginAllowed(f *testing.F) {
	for _, origin := range []string{"http://evil.example", "null", "http://localhost:3000", "https://app.example.com", "http://[::1", "file://x"} {
		f.Add(origin, "example.com")
	}
	f.Fuzz(func(t *testing.T, origin, host string) {
		allowed := []string{"https://app.example.com"}
		got := OriginAllowed(origin, host, allowed)
		if strings.EqualFold(origin, allowed[0]) {
			assert.True(t, got)
		}
		if !strings.HasPrefix(strings.ToLower(origin), "http://") && !strings.HasPrefix(strings.ToLower(origin), "https://") && !strings.EqualFold(origin, allowed[0]) {
			assert.False(t, got, "%q is no web origin", origin)
		}
		if host != "" && !strings.ContainsAny(host, "/?#@%") && !OriginAllowed("http://"+host, host, nil) {
			u, err := url.Parse("http://" + host)
			if err == nil && u.Host == host {
				t.Errorf("the server's own origin http://%s is refused", host)
			}
		}
	})
}

// TestByRevision sends requests of each revision, and shows which handler
// serves each: the stateless one for 2026-07-28 and later, the one with
// sessions for the others; the served handler reads the body whole.
func TestByRevision(t *testing.T) {
	big := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x","arguments":{"s":"` + strings.Repeat("a", int(maxPeek)) + `"}}}`
	tests := []struct {
		name, method, header, session, body string
		modern                              bool
	}{
		{name: "2026-07-28 header", method: http.MethodPost, header: "2026-07-28", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, modern: true},
		{name: "a later revision's header", method: http.MethodPost, header: "2027-01-01", body: `{}`, modern: true},
		{name: "2025-11-25 header", method: http.MethodPost, header: "2025-11-25", session: "s1", body: `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{name: "initialize", method: http.MethodPost, body: `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25"}}`},
		{name: "discover without a header", method: http.MethodPost, body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`, modern: true},
		{name: "_meta naming 2026-07-28 without a header", method: http.MethodPost,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28"}}}`, modern: true},
		{name: "_meta naming an earlier revision", method: http.MethodPost,
			body: `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"io.modelcontextprotocol/protocolVersion":"2025-06-18"}}}`},
		{name: "a request of a session", method: http.MethodPost, session: "s1", body: `{"jsonrpc":"2.0","id":1,"method":"server/discover"}`},
		{name: "a batch", method: http.MethodPost, body: `[{"jsonrpc":"2.0","id":1,"method":"server/discover"}]`},
		{name: "not JSON", method: http.MethodPost, body: `{"method":`},
		{name: "a body past the peek", method: http.MethodPost, body: big},
		{name: "GET stream", method: http.MethodGet, session: "s1"},
		{name: "DELETE", method: http.MethodDelete, session: "s1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var served string
			var read []byte
			handler := func(name string) http.Handler {
				return http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
					served = name
					read, _ = io.ReadAll(r.Body)
				})
			}
			req := httptest.NewRequest(tt.method, "/mcp", strings.NewReader(tt.body))
			if tt.header != "" {
				req.Header.Set("Mcp-Protocol-Version", tt.header)
			}
			if tt.session != "" {
				req.Header.Set(sessionIDHeader, tt.session)
			}
			ByRevision(handler("legacy"), handler("modern")).ServeHTTP(httptest.NewRecorder(), req)
			want := "legacy"
			if tt.modern {
				want = "modern"
			}
			assert.Equal(t, want, served)
			assert.Equal(t, tt.body, string(read), "the served handler reads the whole body")
		})
	}
}

// FuzzModernRequest checks the revision of any request body: never a
// panic, and a body that is no JSON is never of a later revision.
func FuzzModernRequest(f *testing.F) {
	f.Add([]byte(`{"method":"server/discover"}`))
	f.Add([]byte(`{"params":{"_meta":{"io.modelcontextprotocol/protocolVersion":2026}}}`))
	f.Add([]byte(`{"params":{"_meta":null}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		if modernRequest(body) {
			assert.True(t, json.Valid(body), "%q", body)
		}
	})
}
