package httpexec_test

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// newServer starts a real HTTP server on loopback, closed with the test.
func newServer(t testing.TB, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv
}

// newExecutor returns an executor sending through srv's client, so that
// closing the server also closes the client's connections.
func newExecutor(srv *httptest.Server, opts ...httpexec.Option) *httpexec.Executor {
	return httpexec.New(append([]httpexec.Option{httpexec.WithHTTPClient(srv.Client())}, opts...)...)
}

// httpCall returns a call of a tool served by b.
func httpCall(b *toolmodel.HTTPBackend, args map[string]any) *toolrun.Call {
	return &toolrun.Call{
		Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: "t", InputSchema: json.RawMessage(`{"type":"object"}`)}},
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: b},
		Args:    args,
	}
}

// seen is what the recording handler saw of a request.
type seen struct {
	Method  string      `json:"method"`
	Path    string      `json:"path"`
	Query   string      `json:"query"`
	Header  http.Header `json:"header"`
	Body    string      `json:"body"`
	HasBody bool        `json:"hasBody"`
}

// recorder answers every request with a JSON description of it.
func recorder(t testing.TB) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The handler runs outside the test goroutine: assert, never require.
		body, err := io.ReadAll(r.Body)
		assert.NoError(t, err)
		w.Header().Set("Content-Type", "application/json")
		assert.NoError(t, json.NewEncoder(w).Encode(seen{
			Method: r.Method, Path: r.URL.EscapedPath(), Query: r.URL.RawQuery,
			Header: r.Header, Body: string(body), HasBody: len(body) > 0,
		}))
	})
}

// decodeSeen decodes the recorder's answer from an output.
func decodeSeen(t testing.TB, out toolrun.Output) seen {
	t.Helper()
	raw, err := json.Marshal(out.Structured)
	require.NoError(t, err)
	var s seen
	require.NoError(t, json.Unmarshal(raw, &s))
	return s
}

// inMemory is a RoundTripper that serves requests with a handler in the
// calling goroutine: no network, so it runs inside a synctest bubble.
type inMemory struct{ h http.Handler }

func (m inMemory) RoundTrip(req *http.Request) (*http.Response, error) {
	if err := req.Context().Err(); err != nil {
		return nil, err
	}
	rec := httptest.NewRecorder()
	m.h.ServeHTTP(rec, req)
	resp := rec.Result()
	resp.Request = req
	return resp, nil
}

// roundTripFunc adapts a function to http.RoundTripper, to answer with
// responses a real server would not send.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
