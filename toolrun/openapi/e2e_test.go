package openapi_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

// trackerServer implements part of the API of testdata/tracker-*: issues,
// their labels, search and webhooks, with its OAuth2 token endpoint.
type trackerServer struct {
	t      *testing.T
	mu     sync.Mutex
	issues []map[string]any
}

func newTrackerServer(t *testing.T) *httptest.Server {
	ts := &trackerServer{t: t}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v2/repos/{owner}/{repo}/issues", ts.bearer(ts.createIssue))
	mux.HandleFunc("GET /v2/repos/{owner}/{repo}/issues", ts.bearer(ts.listIssues))
	mux.HandleFunc("GET /v2/repos/{owner}/{repo}/issues/{number}", ts.bearer(ts.getIssue))
	mux.HandleFunc("PUT /v2/repos/{owner}/{repo}/issues/{number}/labels", ts.bearer(ts.setLabels))
	mux.HandleFunc("PUT /v2/repos/{owner}/{repo}/issues/{number}/lock", ts.bearer(ts.lock))
	mux.HandleFunc("GET /v2/search/issues", ts.search)
	mux.HandleFunc("POST /oauth/token", ts.token)
	mux.HandleFunc("POST /v2/webhooks", ts.createWebhook)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func reply(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (ts *trackerServer) bearer(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer issues-token" {
			reply(w, http.StatusUnauthorized, map[string]any{"message": "Requires authentication"})
			return
		}
		h(w, r)
	}
}

func (ts *trackerServer) createIssue(w http.ResponseWriter, r *http.Request) {
	var in struct {
		Title  string   `json:"title"`
		Body   string   `json:"body"`
		Labels []string `json:"labels"`
	}
	if err := json.NewDecoder(r.Body).Decode(&in); err != nil || in.Title == "" {
		reply(w, http.StatusUnprocessableEntity, map[string]any{"message": "title is required"})
		return
	}
	ts.mu.Lock()
	defer ts.mu.Unlock()
	n := len(ts.issues) + 1
	labels := []any{}
	for _, l := range in.Labels {
		labels = append(labels, map[string]any{"id": len(l), "name": l})
	}
	issue := map[string]any{"id": 1000 + n, "number": n, "title": in.Title, "body": nil, "state": "open", "labels": labels,
		"user": map[string]any{"login": r.PathValue("owner")}, "created_at": "2025-01-02T03:04:05Z", "closed_at": nil}
	if in.Body != "" {
		issue["body"] = in.Body
	}
	ts.issues = append(ts.issues, issue)
	reply(w, http.StatusCreated, issue)
}

func (ts *trackerServer) find(w http.ResponseWriter, r *http.Request) map[string]any {
	n, err := strconv.Atoi(r.PathValue("number"))
	if err != nil || n < 1 || n > len(ts.issues) {
		reply(w, http.StatusNotFound, map[string]any{"message": "Not Found"})
		return nil
	}
	return ts.issues[n-1]
}

func (ts *trackerServer) getIssue(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	if issue := ts.find(w, r); issue != nil {
		reply(w, http.StatusOK, issue)
	}
}

func (ts *trackerServer) listIssues(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	want := r.URL.Query()["labels"]
	out := []any{}
	for _, issue := range ts.issues {
		var names []string
		for _, l := range issue["labels"].([]any) {
			names = append(names, l.(map[string]any)["name"].(string))
		}
		if !slices.ContainsFunc(want, func(l string) bool { return !slices.Contains(names, l) }) {
			out = append(out, issue)
		}
	}
	reply(w, http.StatusOK, out)
}

func (ts *trackerServer) setLabels(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	issue := ts.find(w, r)
	if issue == nil {
		return
	}
	var names []string
	if err := json.NewDecoder(r.Body).Decode(&names); err != nil {
		reply(w, http.StatusBadRequest, map[string]any{"message": err.Error()})
		return
	}
	labels := []any{}
	for _, l := range names {
		labels = append(labels, map[string]any{"id": len(l), "name": l})
	}
	issue["labels"] = labels
	reply(w, http.StatusOK, labels)
}

// lock reads its body as a form, as the operation declares.
func (ts *trackerServer) lock(w http.ResponseWriter, r *http.Request) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	issue := ts.find(w, r)
	if issue == nil {
		return
	}
	if r.Header.Get("Content-Type") != "application/x-www-form-urlencoded" || r.ParseForm() != nil {
		reply(w, http.StatusUnsupportedMediaType, map[string]any{"message": "a form is expected"})
		return
	}
	issue["locked"] = r.PostForm.Get("lock_reason")
	w.WriteHeader(http.StatusNoContent)
}

func (ts *trackerServer) search(w http.ResponseWriter, r *http.Request) {
	// The operation declares no security: no credentials may be sent.
	assert.Empty(ts.t, r.Header.Get("Authorization"))
	assert.Equal(ts.t, "req-1", r.Header.Get("X-Request-Id"))
	ts.mu.Lock()
	defer ts.mu.Unlock()
	out := []any{}
	for _, issue := range ts.issues {
		if issue["title"] == r.URL.Query().Get("q") {
			out = append(out, issue)
		}
	}
	reply(w, http.StatusOK, map[string]any{"total_count": len(out), "incomplete_results": false, "items": out})
}

func (ts *trackerServer) token(w http.ResponseWriter, r *http.Request) {
	id, secret, _ := r.BasicAuth()
	if id != "tracker-cli" || secret != "client-secret" || r.PostFormValue("scope") != "webhooks:write" {
		reply(w, http.StatusUnauthorized, map[string]any{"error": "invalid_client"})
		return
	}
	reply(w, http.StatusOK, map[string]any{"access_token": "hook-token", "token_type": "bearer", "expires_in": 3600})
}

func (ts *trackerServer) createWebhook(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "Bearer hook-token" {
		reply(w, http.StatusUnauthorized, map[string]any{"message": "bad token"})
		return
	}
	var hook map[string]any
	_ = json.NewDecoder(r.Body).Decode(&hook)
	// The secret is write-only: received, never shown.
	assert.Equal(ts.t, "s", hook["secret"])
	delete(hook, "secret")
	hook["id"] = 7
	reply(w, http.StatusCreated, hook)
}

func TestEndToEnd(t *testing.T) {
	ctx := context.Background()
	srv := newTrackerServer(t)
	regs, _ := importFixture(t, "tracker-3.1.json", openapi.WithBaseURL(srv.URL+"/v2"), openapi.WithTimeout(10*time.Second))
	idx := toolindex.New()
	require.NoError(t, idx.RegisterMany(ctx, regs))

	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "open a new issue", Limit: 3})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	assert.Equal(t, "tracker:createIssue", page.Items[0].ID)

	exec := httpexec.New(httpexec.WithHTTPClient(srv.Client()), httpexec.WithSecrets(httpexec.MapSecrets{
		"TRACKER_BEARER_AUTH":   "issues-token",
		"TRACKER_CLIENT_SECRET": "client-secret",
	}))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendHTTP: exec}),
		toolrun.WithIndex(idx))
	run := func(id string, args map[string]any) (*toolrun.RunResult, error) {
		return runner.Run(ctx, id, args)
	}

	t.Run("create, get and list issues", func(t *testing.T) {
		res, err := run(page.Items[0].ID, map[string]any{"owner": "octo", "repo": "hello", "title": "Crash on start",
			"labels": []any{"bug"}})
		require.NoError(t, err)
		require.NoError(t, res.Err())
		issue := res.Structured.(map[string]any)
		assert.InDelta(t, 1, issue["number"], 0)
		assert.Equal(t, "open", issue["state"])

		res, err = run("tracker:getIssue", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 1})
		require.NoError(t, err)
		assert.Equal(t, "Crash on start", res.Structured.(map[string]any)["title"])

		_, err = run("tracker:createIssue", map[string]any{"owner": "octo", "repo": "hello", "title": "Slow search"})
		require.NoError(t, err)
		res, err = run("tracker:listIssues", map[string]any{"owner": "octo", "repo": "hello", "labels": []any{"bug"}, "state": "open"})
		require.NoError(t, err)
		require.Len(t, res.Structured, 1)
		assert.Equal(t, "Crash on start", res.Structured.([]any)[0].(map[string]any)["title"])
	})
	t.Run("a body argument", func(t *testing.T) {
		res, err := run("tracker:setLabels", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 2, "body": []any{"perf", "search"}})
		require.NoError(t, err)
		assert.Len(t, res.Structured, 2)
	})
	t.Run("a form body", func(t *testing.T) {
		res, err := run("tracker:put_repos_by_owner_by_repo_issues_by_issue_number_lock",
			map[string]any{"owner": "octo", "repo": "hello", "issue_number": 2, "lock_reason": "too heated"})
		require.NoError(t, err)
		require.NoError(t, res.Err())
		res, err = run("tracker:getIssue", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 2})
		require.NoError(t, err)
		assert.Equal(t, "too heated", res.Structured.(map[string]any)["locked"])
	})
	t.Run("an operation without security, with a header parameter", func(t *testing.T) {
		res, err := run("tracker:searchIssues", map[string]any{"q": "Slow search", "X-Request-Id": "req-1"})
		require.NoError(t, err)
		assert.InDelta(t, 1, res.Structured.(map[string]any)["total_count"], 0)
	})
	t.Run("OAuth2 client credentials", func(t *testing.T) {
		res, err := run("tracker:create_webhook", map[string]any{"url": "https://hooks.example/in", "events": []any{"issues"}, "secret": "s"})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"id": 7.0, "url": "https://hooks.example/in", "events": []any{"issues"}}, res.Structured)
	})
	t.Run("input validation rejects bad arguments", func(t *testing.T) {
		for _, tt := range []struct {
			tool string
			args map[string]any
			want string
		}{
			{"tracker:createIssue", map[string]any{"owner": "octo", "repo": "hello"}, "title"},
			{"tracker:getIssue", map[string]any{"owner": "octo", "repo": "hello", "issue_number": "one"}, "issue_number"},
			{"tracker:getIssue", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 1, "verbose": true}, "verbose"},
			{"tracker:listIssues", map[string]any{"owner": "octo", "repo": "hello", "per_page": 500}, "per_page"},
			{"tracker:setLabels", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 1, "body": []any{}}, "body"},
		} {
			_, err := run(tt.tool, tt.args)
			var e *errors.Error
			require.ErrorAs(t, err, &e, "%s %v", tt.tool, tt.args)
			assert.Equal(t, errors.Validation, e.Code)
			assert.Equal(t, toolrun.OpValidateInput, e.Op)
			assert.Contains(t, err.Error(), tt.want)
		}
	})
	t.Run("API errors keep their code", func(t *testing.T) {
		_, err := run("tracker:getIssue", map[string]any{"owner": "octo", "repo": "hello", "issue_number": 99})
		require.ErrorIs(t, err, errors.ErrNotFound)
		assert.Contains(t, err.Error(), "HTTP 404: Not Found")
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "404", e.Meta["status"])
	})
}
