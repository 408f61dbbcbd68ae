package console_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
	"github.com/metatools-go/metatools/toolserver/internal/console"
)

// fixture is a real catalogue (the built-in tools, math denied by the
// policy, and an MCP upstream under review whose tool waits in the pin
// store) with the console over it, served by a real HTTP server.
type fixture struct {
	cat   *catalog.Catalog
	calls *console.Calls
	pins  string
	url   string       // the server's root
	h     http.Handler // what it serves
}

// reviewed serves a real MCP server with one tool, which an upstream
// under review withholds until it is approved.
func reviewed(t testing.TB) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "notes", Version: "1"}, nil)
	type in struct {
		Text string `json:"text" jsonschema:"what to note"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "add_note", Description: "Add a note to the notebook."},
		func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "noted"}}}, nil, nil
		})
	hs := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(hs.Close)
	return hs.URL
}

func newFixture(t testing.TB, opts console.Options, tokens ...toolserver.BearerToken) *fixture {
	t.Helper()
	pins := filepath.Join(t.TempDir(), "pins.db")
	cfg, err := config.Parse(fmt.Appendf(nil, "search: {engine: lexical}\npolicy: {deny: [\"math:*\"]}\ntrust: {store: %q}\n"+
		"mcpServers:\n  - name: notes\n    trust: review\n    url: %q\n", pins, reviewed(t)))
	require.NoError(t, err)
	calls := console.NewCalls(console.DefaultCalls)
	cat, err := catalog.Build(context.Background(), cfg, catalog.WithEventPublisher(calls),
		catalog.WithLogger(slog.New(slog.DiscardHandler)))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cat.Close()) })
	require.NoError(t, cat.Wait(context.Background()))
	srv, err := cat.NewServer()
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	opts.Calls, opts.Pins = calls, pins
	var h http.Handler = console.New(cat.Ops, opts)
	if len(tokens) > 0 {
		// As serve --http mounts it.
		h = console.WithLogin(h, func(h http.Handler) http.Handler {
			return srv.Authenticate(toolserver.HTTPOptions{BearerTokens: tokens}, h)
		})
	}
	hs := httptest.NewServer(h)
	t.Cleanup(hs.Close)
	return &fixture{cat: cat, calls: calls, pins: pins, url: hs.URL, h: h}
}

// request is one request to the console.
type request struct {
	method, path, body string
	header             map[string]string
}

// do sends req, as the console's own page does unless req's header says
// otherwise, and returns the status and the body.
func (f *fixture) do(t *testing.T, req request) (int, http.Header, []byte) {
	t.Helper()
	method := req.method
	if method == "" {
		method = http.MethodGet
	}
	r, err := http.NewRequestWithContext(t.Context(), method, f.url+req.path, strings.NewReader(req.body))
	require.NoError(t, err)
	if method == http.MethodPost {
		r.Header.Set("Content-Type", "application/json")
		r.Header.Set(console.HeaderName, "1")
		r.Header.Set("Origin", f.url)
		r.Header.Set("Sec-Fetch-Site", "same-origin")
	}
	for k, v := range req.header {
		if v == "" {
			r.Header.Del(k)
		} else {
			r.Header.Set(k, v)
		}
	}
	resp, err := http.DefaultClient.Do(r)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, body
}

// get decodes the JSON answer of a GET that must succeed.
func (f *fixture) get(t *testing.T, path string, v any) {
	t.Helper()
	status, _, body := f.do(t, request{path: path})
	require.Equal(t, http.StatusOK, status, string(body))
	require.NoError(t, json.Unmarshal(body, v), string(body))
}

// apiError is an error answer's body.
type apiError struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// failure asserts that req fails with status and code, and returns the
// message.
func (f *fixture) failure(t *testing.T, req request, status int, code string) string {
	t.Helper()
	got, h, body := f.do(t, req)
	require.Equal(t, status, got, string(body))
	assert.Equal(t, "application/json; charset=utf-8", h.Get("Content-Type"))
	var e apiError
	require.NoError(t, json.Unmarshal(body, &e), string(body))
	assert.Equal(t, code, e.Error.Code)
	assert.NotEmpty(t, e.Error.Message)
	return e.Error.Message
}

func TestSearchIsTheOperations(t *testing.T) {
	f := newFixture(t, console.Options{})
	for _, c := range []struct{ name, query, want string }{
		{"ranked", "q=what+time+is+it", ""},
		{"listing", "", ""},
		{"namespace", "q=convert&namespace=text", ""},
		{"upstream of several namespaces", "q=time&upstream=builtin", ""},
	} {
		t.Run(c.name, func(t *testing.T) {
			params, err := url.ParseQuery(c.query)
			require.NoError(t, err)
			var got toolops.SearchResult
			f.get(t, "/ui/api/search?"+c.query, &got)
			want, err := f.cat.Ops.Search(context.Background(), toolops.SearchRequest{Query: params.Get("q"), Namespace: params.Get("namespace")})
			require.NoError(t, err)
			require.NotEmpty(t, want.Tools)
			assert.Equal(t, ids(want), ids(got), "the operations' ranking")
		})
	}
	var got toolops.SearchResult
	f.get(t, "/ui/api/search?q=add&upstream=builtin&namespace=notes", &got)
	assert.Empty(t, got.Tools, "a namespace of another upstream keeps nothing")
	f.failure(t, request{path: "/ui/api/search?upstream=nowhere"}, http.StatusNotFound, "not_found")
	f.failure(t, request{path: "/ui/api/search?limit=ten"}, http.StatusBadRequest, "invalid_argument")
	f.failure(t, request{path: "/ui/api/search?limit=100000"}, http.StatusBadRequest, "invalid_argument")
	f.failure(t, request{path: "/ui/api/search?cursor=forged"}, http.StatusBadRequest, "invalid_argument")
}

func ids(res toolops.SearchResult) []string {
	var out []string
	for _, t := range res.Tools {
		out = append(out, t.ID)
	}
	return out
}

func TestDeniedToolIsInvisible(t *testing.T) {
	f := newFixture(t, console.Options{Run: true})
	var res toolops.SearchResult
	f.get(t, "/ui/api/search?q=evaluate+arithmetic+expression", &res)
	for _, id := range ids(res) {
		assert.NotContains(t, id, "math:", "the policy denies math")
	}
	unknown := f.failure(t, request{path: "/ui/api/tool?id=nowhere:tool"}, http.StatusNotFound, "not_found")
	denied := f.failure(t, request{path: "/ui/api/tool?id=math:eval"}, http.StatusNotFound, "not_found")
	assert.Equal(t, strings.ReplaceAll(unknown, "nowhere:tool", "math:eval"), denied, "answered as an unknown tool")
	f.failure(t, request{method: http.MethodPost, path: "/ui/api/run", body: `{"id": "math:eval", "args": {"expression": "1+1"}}`}, http.StatusNotFound, "not_found")
	f.failure(t, request{path: "/ui/api/tool?id=notes:add_note"}, http.StatusNotFound, "not_found")
	var calls struct {
		Calls []map[string]any `json:"calls"`
	}
	f.get(t, "/ui/api/calls", &calls)
	assert.Empty(t, calls.Calls, "no call of a hidden tool shows")
	var ns struct {
		Namespaces []string `json:"namespaces"`
	}
	f.get(t, "/ui/api/namespaces", &ns)
	assert.NotContains(t, ns.Namespaces, "math")
}

func TestToolPage(t *testing.T) {
	f := newFixture(t, console.Options{})
	var page struct {
		Doc struct {
			ID          string         `json:"id"`
			Summary     string         `json:"summary"`
			InputSchema map[string]any `json:"inputSchema"`
		} `json:"doc"`
		Examples    []map[string]any `json:"examples"`
		Declaration string           `json:"declaration"`
		Run         bool             `json:"run"`
	}
	f.get(t, "/ui/api/tool?id=time:now", &page)
	doc, err := f.cat.Ops.Describe(context.Background(), toolops.DescribeRequest{ID: "time:now", Level: "full"})
	require.NoError(t, err)
	decl, err := f.cat.Ops.Declare(context.Background(), toolops.DeclareRequest{IDs: []string{"time:now"}})
	require.NoError(t, err)
	examples, err := f.cat.Ops.Examples(context.Background(), toolops.ExamplesRequest{ID: "time:now"})
	require.NoError(t, err)
	assert.Equal(t, "time:now", page.Doc.ID)
	assert.Equal(t, doc.Summary, page.Doc.Summary)
	assert.Equal(t, "object", page.Doc.InputSchema["type"])
	assert.Equal(t, decl, page.Declaration)
	assert.Len(t, page.Examples, len(examples))
	assert.False(t, page.Run, "running is off")
	f.failure(t, request{path: "/ui/api/tool"}, http.StatusBadRequest, "invalid_argument")
}

func TestRunNeedsThePermission(t *testing.T) {
	body := `{"id": "text:case", "args": {"text": "Hello", "to": "upper"}}`
	off := newFixture(t, console.Options{})
	msg := off.failure(t, request{method: http.MethodPost, path: "/ui/api/run", body: body}, http.StatusForbidden, "permission_denied")
	assert.Contains(t, msg, "server.http.console.run")

	on := newFixture(t, console.Options{Run: true})
	status, _, out := on.do(t, request{method: http.MethodPost, path: "/ui/api/run", body: body})
	require.Equal(t, http.StatusOK, status, string(out))
	var res struct {
		Structured map[string]any `json:"structured"`
		Attempts   int            `json:"attempts"`
	}
	require.NoError(t, json.Unmarshal(out, &res))
	assert.Equal(t, "HELLO", res.Structured["text"])
	assert.Equal(t, 1, res.Attempts)

	var calls struct {
		Calls []struct {
			Tool    string `json:"tool"`
			Outcome string `json:"outcome"`
		} `json:"calls"`
	}
	on.get(t, "/ui/api/calls", &calls)
	require.Len(t, calls.Calls, 1)
	assert.Equal(t, "text:case", calls.Calls[0].Tool)
	assert.Equal(t, "ok", calls.Calls[0].Outcome)

	for _, c := range []struct {
		name, body string
		status     int
		code       string
	}{
		{"not JSON", `{"id":`, http.StatusBadRequest, "invalid_argument"},
		{"unknown field", `{"id": "text:case", "arguments": {}}`, http.StatusBadRequest, "invalid_argument"},
		{"two values", `{"id": "text:case"} {}`, http.StatusBadRequest, "invalid_argument"},
		{"no tool", `{"args": {}}`, http.StatusBadRequest, "invalid_argument"},
		{"arguments off the schema", `{"id": "text:case", "args": {"text": 5}}`, http.StatusUnprocessableEntity, "validation"},
	} {
		t.Run(c.name, func(t *testing.T) {
			on.failure(t, request{method: http.MethodPost, path: "/ui/api/run", body: c.body}, c.status, c.code)
		})
	}
}

func TestCrossSiteRequestsAreRefused(t *testing.T) {
	f := newFixture(t, console.Options{Run: true, Approve: true})
	body := `{"id": "time:now"}`
	for _, c := range []struct {
		name   string
		header map[string]string
		status int
	}{
		{"another origin", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"a loopback origin of another port", map[string]string{"Origin": "http://127.0.0.1:1"}, http.StatusForbidden},
		{"cross-site fetch", map[string]string{"Sec-Fetch-Site": "cross-site"}, http.StatusForbidden},
		{"same-site fetch", map[string]string{"Sec-Fetch-Site": "same-site"}, http.StatusForbidden},
		{"without the console's header", map[string]string{console.HeaderName: ""}, http.StatusForbidden},
		{"a form's body", map[string]string{"Content-Type": "application/x-www-form-urlencoded"}, http.StatusBadRequest},
		{"a plain text body", map[string]string{"Content-Type": "text/plain"}, http.StatusBadRequest},
	} {
		t.Run(c.name, func(t *testing.T) {
			for _, path := range []string{"/ui/api/run", "/ui/api/approve"} {
				status, _, out := f.do(t, request{method: http.MethodPost, path: path, body: body, header: c.header})
				assert.Equal(t, c.status, status, "%s: %s", path, out)
			}
		})
	}
	status, _, out := f.do(t, request{method: http.MethodPost, path: "/ui/api/run", body: body})
	assert.Equal(t, http.StatusOK, status, "the console's own request: %s", out)
	var calls struct {
		Calls []any `json:"calls"`
	}
	f.get(t, "/ui/api/calls", &calls)
	assert.Len(t, calls.Calls, 1, "no refused request ran")
}

func TestSecurityHeaders(t *testing.T) {
	f := newFixture(t, console.Options{})
	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/app.css", "/ui/api/upstreams", "/ui/api/nothing"} {
		_, h, _ := f.do(t, request{path: path})
		assert.Contains(t, h.Get("Content-Security-Policy"), "script-src 'self'", path)
		assert.Contains(t, h.Get("Content-Security-Policy"), "frame-ancestors 'none'", path)
		assert.NotContains(t, h.Get("Content-Security-Policy"), "unsafe-inline", path)
		assert.Equal(t, "nosniff", h.Get("X-Content-Type-Options"), path)
	}
	status, h, body := f.do(t, request{path: "/ui/"})
	require.Equal(t, http.StatusOK, status)
	assert.Equal(t, "text/html; charset=utf-8", h.Get("Content-Type"))
	assert.NotContains(t, string(body), "<script>", "no inline script")
	assert.Contains(t, string(body), `<script src="app.js" defer></script>`)
	f.failure(t, request{path: "/ui/api/nothing"}, http.StatusNotFound, "not_found")
}

func TestPathWithoutItsSlashRedirects(t *testing.T) {
	f := newFixture(t, console.Options{})
	h := http.NewServeMux()
	h.Handle(console.Path, f.h)
	h.Handle(strings.TrimSuffix(console.Path, "/"), f.h)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequestWithContext(t.Context(), http.MethodGet, "/ui", http.NoBody))
	assert.Equal(t, http.StatusSeeOther, rec.Code)
	assert.Equal(t, "/ui/", rec.Header().Get("Location"))
}

func TestAuthentication(t *testing.T) {
	f := newFixture(t, console.Options{Run: true}, toolserver.BearerToken{Name: "ops", Token: "console-secret"})
	for _, path := range []string{"/ui/", "/ui/app.js", "/ui/api/upstreams", "/ui/api/search?q=time", "/ui/api/calls", "/ui/api/quarantine"} {
		status, h, _ := f.do(t, request{path: path})
		assert.Equal(t, http.StatusUnauthorized, status, path)
		assert.Contains(t, h.Get("WWW-Authenticate"), "Bearer", path)
		status, _, _ = f.do(t, request{path: path, header: map[string]string{"Authorization": "Bearer wrong"}})
		assert.Equal(t, http.StatusUnauthorized, status, path)
	}
	status, _, _ := f.do(t, request{method: http.MethodPost, path: "/ui/api/run", body: `{"id": "time:now"}`})
	assert.Equal(t, http.StatusUnauthorized, status)

	auth := map[string]string{"Authorization": "Bearer console-secret"}
	status, _, out := f.do(t, request{method: http.MethodPost, path: "/ui/api/run", body: `{"id": "time:now"}`, header: auth})
	require.Equal(t, http.StatusOK, status, string(out))
	status, _, out = f.do(t, request{path: "/ui/api/calls", header: auth})
	require.Equal(t, http.StatusOK, status)
	var calls struct {
		Calls []struct {
			Caller map[string]string `json:"caller"`
		} `json:"calls"`
	}
	require.NoError(t, json.Unmarshal(out, &calls))
	require.Len(t, calls.Calls, 1)
	assert.Equal(t, map[string]string{toolserver.MetadataSubject: "token:ops"}, calls.Calls[0].Caller, "the token's name is the caller, as on /mcp")
}

func TestUpstreams(t *testing.T) {
	f := newFixture(t, console.Options{})
	var got struct {
		Upstreams []struct {
			Name        string   `json:"name"`
			State       string   `json:"state"`
			Tools       int      `json:"tools"`
			Attempts    int      `json:"attempts"`
			Namespaces  []string `json:"namespaces"`
			Quarantined []struct {
				ID     string `json:"id"`
				Reason string `json:"reason"`
			} `json:"quarantined"`
		} `json:"upstreams"`
		Status string `json:"status"`
	}
	f.get(t, "/ui/api/upstreams", &got)
	want := f.cat.Ops.Upstreams(context.Background())
	require.Len(t, got.Upstreams, len(want))
	for i, u := range want {
		assert.Equal(t, u.Name, got.Upstreams[i].Name)
		assert.Equal(t, u.State, got.Upstreams[i].State)
		assert.Equal(t, u.Tools, got.Upstreams[i].Tools)
		assert.Equal(t, u.Attempts, got.Upstreams[i].Attempts)
	}
	notes := got.Upstreams[len(got.Upstreams)-1]
	assert.Equal(t, "notes", notes.Name)
	assert.Equal(t, []string{"notes"}, notes.Namespaces)
	require.Len(t, notes.Quarantined, 1)
	assert.Equal(t, "notes:add_note", notes.Quarantined[0].ID)
	assert.Contains(t, got.Status, "notes (mcp): up")
}

func TestQuarantineReviewAndApproval(t *testing.T) {
	type review struct {
		Approve bool `json:"approve"`
		Items   []struct {
			ID      string `json:"id"`
			Kind    string `json:"kind"`
			Reason  string `json:"reason"`
			Diff    string `json:"diff"`
			Changed bool   `json:"changed"`
		} `json:"items"`
	}
	approve := request{method: http.MethodPost, path: "/ui/api/approve", body: `{"ids": ["notes:add_note"]}`}

	off := newFixture(t, console.Options{})
	var r review
	off.get(t, "/ui/api/quarantine", &r)
	assert.False(t, r.Approve)
	require.Len(t, r.Items, 1, "the review shows without the permission to approve")
	msg := off.failure(t, approve, http.StatusForbidden, "permission_denied")
	assert.Contains(t, msg, "server.http.console.approve")

	f := newFixture(t, console.Options{Approve: true})
	f.get(t, "/ui/api/quarantine", &r)
	assert.True(t, r.Approve)
	require.Len(t, r.Items, 1)
	item := r.Items[0]
	assert.Equal(t, "notes:add_note", item.ID)
	assert.Equal(t, "tool", item.Kind)
	assert.Contains(t, item.Reason, "review")
	assert.False(t, item.Changed, "nothing was approved before")
	assert.Contains(t, item.Diff, "Add a note to the notebook.", "the diff shows the new tool's description")

	f.failure(t, request{method: http.MethodPost, path: "/ui/api/approve", body: `{"ids": ["notes:nothing"]}`}, http.StatusNotFound, "not_found")
	f.failure(t, request{method: http.MethodPost, path: "/ui/api/approve", body: `{"ids": []}`}, http.StatusBadRequest, "invalid_argument")
	status, _, out := f.do(t, approve)
	require.Equal(t, http.StatusOK, status, string(out))
	assert.JSONEq(t, fmt.Sprintf(`{"approved": ["notes:add_note"], "admittedWithin": %q}`, catalog.TrustPoll), string(out))
	pending, err := catalog.Review(f.pins)
	require.NoError(t, err)
	assert.Empty(t, pending, "approved in the pin store, as `metatools tools approve` does")
	f.get(t, "/ui/api/quarantine", &r)
	assert.Empty(t, r.Items)
}
