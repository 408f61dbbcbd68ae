package httpexec_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

func TestRequestMapping(t *testing.T) {
	srv := newServer(t, recorder(t))
	exec := newExecutor(srv)
	tests := []struct {
		name    string
		backend toolmodel.HTTPBackend
		args    map[string]any
		check   func(t *testing.T, s seen)
	}{
		{
			name:    "path parameters are escaped below the base path",
			backend: toolmodel.HTTPBackend{Method: "get", Path: "/repos/{owner}/{repo}/issues/{number}"},
			args:    map[string]any{"owner": "a b", "repo": "x/y?", "number": 7.0},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "GET", s.Method)
				assert.Equal(t, "/v1/repos/a%20b/x%2Fy%3F/issues/7", s.Path)
				assert.False(t, s.HasBody, "a GET without other arguments sends no body")
				assert.Empty(t, s.Header.Get("Content-Type"))
			},
		},
		{
			name: "query parameters: arrays repeated, scalars as text, objects as JSON",
			backend: toolmodel.HTTPBackend{Method: "GET", Path: "/issues",
				QueryParams: []string{"labels", "state", "per_page", "big", "open", "filter", "absent"}},
			args: map[string]any{"labels": []any{"bug", "ui"}, "state": "open", "per_page": 50.0, "big": 1e6,
				"open": true, "filter": map[string]any{"a": 1.0}},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "big=1000000&filter=%7B%22a%22%3A1%7D&labels=bug&labels=ui&open=true&per_page=50&state=open&v=2", s.Query)
			},
		},
		{
			name: "header parameters and static headers",
			backend: toolmodel.HTTPBackend{Method: "GET", Path: "/h", HeaderParams: []string{"X-Trace", "X-List"},
				Headers: map[string]string{"X-Static": "yes", "Accept": "text/plain"}},
			args: map[string]any{"X-Trace": "abc", "X-List": []any{1.0, 2.0}},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "abc", s.Header.Get("X-Trace"))
				assert.Equal(t, "1,2", s.Header.Get("X-List"))
				assert.Equal(t, "yes", s.Header.Get("X-Static"))
				assert.Equal(t, "text/plain", s.Header.Get("Accept"), "a static header wins over the default")
			},
		},
		{
			name:    "the remaining arguments form the JSON body",
			backend: toolmodel.HTTPBackend{Method: "POST", Path: "/issues/{id}", QueryParams: []string{"dry"}},
			args:    map[string]any{"id": "7", "dry": true, "title": "t", "labels": []any{"a"}},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "/v1/issues/7", s.Path)
				assert.Equal(t, "dry=true&v=2", s.Query)
				assert.JSONEq(t, `{"title":"t","labels":["a"]}`, s.Body)
				assert.Equal(t, "application/json", s.Header.Get("Content-Type"))
			},
		},
		{
			name:    "only the body parameter forms the body when declared",
			backend: toolmodel.HTTPBackend{Method: "PUT", Path: "/labels", BodyParam: "body"},
			args:    map[string]any{"body": []any{"bug", "ui"}, "stray": 1.0},
			check: func(t *testing.T, s seen) {
				assert.JSONEq(t, `["bug","ui"]`, s.Body)
			},
		},
		{
			name: "a form body: fields in name order, arrays repeated, objects as JSON, nulls left out",
			backend: toolmodel.HTTPBackend{Method: "POST", Path: "/charges", QueryParams: []string{"dry"},
				BodyEncoding: toolmodel.BodyForm},
			args: map[string]any{"dry": true, "amount": 2000.0, "currency": "eur", "expand": []any{"customer", "invoice"},
				"metadata": map[string]any{"order": "a&b"}, "description": nil, "capture": false},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "dry=true&v=2", s.Query)
				assert.Equal(t, "application/x-www-form-urlencoded", s.Header.Get("Content-Type"))
				assert.Equal(t, "amount=2000&capture=false&currency=eur&expand=customer&expand=invoice&metadata=%7B%22order%22%3A%22a%26b%22%7D", s.Body)
			},
		},
		{
			name:    "a form body from the body parameter",
			backend: toolmodel.HTTPBackend{Method: "POST", Path: "/token", BodyParam: "form", BodyEncoding: toolmodel.BodyForm},
			args:    map[string]any{"form": map[string]any{"grant_type": "password", "username": "ann"}, "stray": 1.0},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "grant_type=password&username=ann", s.Body)
			},
		},
		{
			name:    "POST without arguments sends an empty object",
			backend: toolmodel.HTTPBackend{Method: "POST", Path: "/ping"},
			args:    map[string]any{},
			check: func(t *testing.T, s seen) {
				assert.JSONEq(t, `{}`, s.Body)
			},
		},
		{
			name:    "DELETE without arguments sends no body",
			backend: toolmodel.HTTPBackend{Method: "DELETE", Path: "/items/{id}"},
			args:    map[string]any{"id": "x"},
			check: func(t *testing.T, s seen) {
				assert.Equal(t, "DELETE", s.Method)
				assert.False(t, s.HasBody)
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.backend
			b.BaseURL = srv.URL + "/v1/?v=2"
			args := cloneArgs(tt.args)
			out, err := exec.Execute(context.Background(), httpCall(&b, tt.args))
			require.NoError(t, err)
			assert.False(t, out.IsError)
			assert.Equal(t, args, tt.args, "the arguments are not modified")
			tt.check(t, decodeSeen(t, out))
		})
	}
}

func cloneArgs(args map[string]any) map[string]any {
	c := make(map[string]any, len(args))
	for k, v := range args {
		c[k] = v
	}
	return c
}

func TestRequestErrors(t *testing.T) {
	var hits atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { hits.Add(1) }))
	exec := newExecutor(srv)
	tests := []struct {
		name    string
		backend toolmodel.HTTPBackend
		args    map[string]any
		want    string
	}{
		{"missing path parameter", toolmodel.HTTPBackend{Path: "/pets/{id}"}, map[string]any{}, `path parameter "id" is missing`},
		{"null path parameter", toolmodel.HTTPBackend{Path: "/pets/{id}"}, map[string]any{"id": nil}, `path parameter "id" is missing`},
		{"empty path parameter", toolmodel.HTTPBackend{Path: "/pets/{id}"}, map[string]any{"id": ""}, `path parameter "id" is empty`},
		{"dot-dot path parameter", toolmodel.HTTPBackend{Path: "/pets/{id}"}, map[string]any{"id": ".."}, `path parameter "id" must not be`},
		{"object path parameter", toolmodel.HTTPBackend{Path: "/pets/{id}"}, map[string]any{"id": map[string]any{}}, `path parameter "id" is not a string`},
		{"unbalanced template", toolmodel.HTTPBackend{Path: "/pets/{id"}, map[string]any{"id": "1"}, "unbalanced braces"},
		{"object header", toolmodel.HTTPBackend{Path: "/", HeaderParams: []string{"X"}}, map[string]any{"X": map[string]any{}}, `header parameter "X" is not a string`},
		{"header injection", toolmodel.HTTPBackend{Path: "/", HeaderParams: []string{"X"}}, map[string]any{"X": "a\r\nEvil: 1"}, `header "X" has a control character`},
		{"bad header name", toolmodel.HTTPBackend{Path: "/", Headers: map[string]string{"a b": "1"}}, nil, `header name "a b" is not a valid token`},
		{"bad base URL", toolmodel.HTTPBackend{BaseURL: "ftp://x", Path: "/"}, nil, `base URL ftp://x is not an absolute http(s) URL`},
		{"bad base URL with a key", toolmodel.HTTPBackend{BaseURL: "ftp://ann:" + secretValue + "@x/?key=" + secretValue, Path: "/"}, nil, `base URL ftp://x/ is not an absolute http(s) URL`},
		{"unencodable body", toolmodel.HTTPBackend{Method: "POST", Path: "/"}, map[string]any{"f": func() {}}, "encode the request body"},
		{"form body not an object", toolmodel.HTTPBackend{Method: "POST", Path: "/", BodyParam: "b", BodyEncoding: toolmodel.BodyForm}, map[string]any{"b": []any{"x"}}, "the body is []interface {}, not an object"},
		{"unknown auth", toolmodel.HTTPBackend{Path: "/", Auth: &toolmodel.HTTPAuth{Type: "digest", Secret: "S"}}, nil, `auth type "digest" is unknown`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := tt.backend
			if b.BaseURL == "" {
				b.BaseURL = srv.URL
			}
			_, err := exec.Execute(context.Background(), httpCall(&b, tt.args))
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "error: %v", err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	_, err := exec.Execute(context.Background(), &toolrun.Call{Backend: toolrun.LocalBackendFor("x")})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Zero(t, hits.Load(), "no request reaches the server")
}

func TestResponses(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G', 0, 1, 2}
	blob := []byte{0xff, 0xfe, 0}
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reply := func(status int, ct string, body []byte) {
			if ct != "" {
				w.Header().Set("Content-Type", ct)
			}
			w.WriteHeader(status)
			_, _ = w.Write(body)
		}
		switch r.URL.Path {
		case "/json":
			reply(200, "application/json; charset=utf-8", []byte(`{"a":[1,"x"]}`))
		case "/problem":
			reply(200, "application/vnd.api+json", []byte(`[true]`))
		case "/badjson":
			reply(200, "application/json", []byte(`{oops`))
		case "/text":
			reply(200, "text/plain", []byte("hello"))
		case "/image":
			reply(200, "image/png", png)
		case "/audio":
			reply(200, "audio/wav", blob)
		case "/blob":
			reply(200, "application/octet-stream", blob)
		case "/untyped":
			reply(200, "", blob)
		case "/empty":
			reply(204, "", nil)
		}
	}))
	exec := newExecutor(srv)
	tests := []struct {
		path string
		want toolrun.Output
	}{
		{"/json", toolrun.Output{Structured: map[string]any{"a": []any{1.0, "x"}}, Content: []mcp.Content{&mcp.TextContent{Text: `{"a":[1,"x"]}`}}}},
		{"/problem", toolrun.Output{Structured: []any{true}, Content: []mcp.Content{&mcp.TextContent{Text: `[true]`}}}},
		{"/badjson", toolrun.Output{Content: []mcp.Content{&mcp.TextContent{Text: `{oops`}}}},
		{"/text", toolrun.Output{Content: []mcp.Content{&mcp.TextContent{Text: "hello"}}}},
		{"/image", toolrun.Output{Content: []mcp.Content{&mcp.ImageContent{Data: png, MIMEType: "image/png"}}}},
		{"/audio", toolrun.Output{Content: []mcp.Content{&mcp.AudioContent{Data: blob, MIMEType: "audio/wav"}}}},
		{"/blob", toolrun.Output{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: srv.URL + "/blob", MIMEType: "application/octet-stream", Blob: blob}}}}},
		{"/untyped", toolrun.Output{Content: []mcp.Content{&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{
			URI: srv.URL + "/untyped", MIMEType: "application/octet-stream", Blob: blob}}}}},
		{"/empty", toolrun.Output{}},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			out, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: tt.path}, nil))
			require.NoError(t, err)
			assert.Equal(t, tt.want, out)
		})
	}
}

func TestStatusMapping(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var status int
		_, _ = fmt.Sscan(strings.TrimPrefix(r.URL.Path, "/"), &status)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = fmt.Fprintf(w, `{"error":{"message":"failure %d"}}`, status)
	}))
	exec := newExecutor(srv)
	tests := []struct {
		status    int
		code      errors.Code
		retryable bool
	}{
		{400, errors.InvalidArgument, false},
		{401, errors.Unauthenticated, false},
		{403, errors.PermissionDenied, false},
		{404, errors.NotFound, false},
		{405, errors.InvalidArgument, false},
		{408, errors.Timeout, true},
		{409, errors.Conflict, false},
		{410, errors.NotFound, false},
		{413, errors.InvalidArgument, false},
		{422, errors.InvalidArgument, false},
		{429, errors.RateLimited, true},
		{500, errors.Unavailable, true},
		{501, errors.Unsupported, false},
		{502, errors.Unavailable, true},
		{503, errors.Unavailable, true},
		{504, errors.Timeout, true},
		{599, errors.Unavailable, true},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprint(tt.status), func(t *testing.T) {
			b := &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: fmt.Sprintf("/%d", tt.status)}
			_, err := exec.Execute(context.Background(), httpCall(b, nil))
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.retryable, e.Retryable)
			assert.Equal(t, fmt.Sprint(tt.status), e.Meta["status"])
			assert.Equal(t, "httpexec.Execute", e.Op)
			assert.Contains(t, err.Error(), fmt.Sprintf("GET %s/%d: HTTP %d: failure %d", srv.URL, tt.status, tt.status, tt.status))
		})
	}
}

func TestErrorMessages(t *testing.T) {
	long := strings.Repeat("é", 600)
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/plain":
			w.WriteHeader(400)
			_, _ = fmt.Fprint(w, "  bad\n  request  ")
		case "/long":
			w.WriteHeader(400)
			_, _ = fmt.Fprint(w, long)
		case "/detail":
			w.Header().Set("Content-Type", "application/problem+json")
			w.WriteHeader(400)
			_, _ = fmt.Fprint(w, `{"title":"Bad","detail":"field x is wrong"}`)
		case "/binary":
			w.WriteHeader(500)
			_, _ = w.Write([]byte{0xff, 0xfe})
		case "/empty":
			w.WriteHeader(404)
		}
	}))
	exec := newExecutor(srv)
	tests := []struct{ path, want string }{
		{"/plain", "HTTP 400: bad request"},
		{"/detail", "HTTP 400: field x is wrong"},
		{"/binary", "HTTP 500: (2 bytes of binary data)"},
		{"/empty", "HTTP 404: Not Found"},
	}
	for _, tt := range tests {
		t.Run(tt.path, func(t *testing.T) {
			_, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: tt.path}, nil))
			require.Error(t, err)
			assert.True(t, strings.HasSuffix(err.Error(), tt.want), "error: %v", err)
		})
	}
	t.Run("/long", func(t *testing.T) {
		_, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/long"}, nil))
		require.Error(t, err)
		msg := err.Error()[strings.Index(err.Error(), "HTTP 400: ")+len("HTTP 400: "):]
		assert.Equal(t, strings.Repeat("é", 256)+"…", msg, "cut at 512 bytes on a rune boundary")
	})
}

func TestFailureRules(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/invalid":
			w.WriteHeader(422)
			_, _ = fmt.Fprint(w, `{"error":"title is required"}`)
		case "/notok":
			_, _ = fmt.Fprint(w, `{"ok":false,"error":"channel_not_found"}`)
		case "/empty":
			w.WriteHeader(422)
		}
	}))
	exec := newExecutor(srv,
		httpexec.WithFailureRule(httpexec.FailOnStatus(422)),
		httpexec.WithFailureRule(func(r *httpexec.Response) bool {
			obj, ok := r.JSON.(map[string]any)
			return ok && obj["ok"] == false
		}))
	run := func(path string) toolrun.Output {
		out, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "POST", Path: path}, nil))
		require.NoError(t, err)
		return out
	}
	assert.Equal(t, toolrun.Output{IsError: true, Structured: map[string]any{"error": "title is required"},
		Content: []mcp.Content{&mcp.TextContent{Text: `{"error":"title is required"}`}}}, run("/invalid"))
	assert.Equal(t, toolrun.Output{IsError: true, Structured: map[string]any{"ok": false, "error": "channel_not_found"},
		Content: []mcp.Content{&mcp.TextContent{Text: `{"ok":false,"error":"channel_not_found"}`}}}, run("/notok"))
	assert.Equal(t, toolrun.Output{IsError: true,
		Content: []mcp.Content{&mcp.TextContent{Text: "HTTP 422 Unprocessable Entity"}}}, run("/empty"))
}

func TestRetryAfterIsRecorded(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Retry-After", r.URL.Query().Get("after"))
		status := http.StatusTooManyRequests
		if r.URL.Query().Get("unavailable") != "" {
			status = http.StatusServiceUnavailable
		}
		w.WriteHeader(status)
	}))
	exec := newExecutor(srv, httpexec.WithMaxRetryAfter(10*time.Minute))
	tests := []struct {
		name      string
		query     string
		want      time.Duration
		recorded  bool
		retryable bool
	}{
		{"seconds", "after=7", 7 * time.Second, true, true},
		{"on a 503", "after=3&unavailable=1", 3 * time.Second, true, true},
		{"a date in the past means now", "after=Wed,+21+Oct+2015+07:28:00+GMT", 0, true, true},
		{"beyond the limit is not retryable", "after=3600", time.Hour, true, false},
		{"malformed is ignored", "after=soon", 0, false, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &toolmodel.HTTPBackend{BaseURL: srv.URL + "/?" + tt.query, Method: "GET", Path: "/"}
			_, err := exec.Execute(context.Background(), httpCall(b, nil))
			require.Error(t, err)
			d, ok := toolrun.RetryAfter(err)
			assert.Equal(t, tt.recorded, ok)
			assert.Equal(t, tt.want, d)
			assert.Equal(t, tt.retryable, errors.IsRetryable(err))
		})
	}
	t.Run("a date in the future", func(t *testing.T) {
		when := time.Now().Add(time.Hour).UTC().Format(http.TimeFormat)
		b := &toolmodel.HTTPBackend{BaseURL: srv.URL + "/?after=" + strings.ReplaceAll(when, " ", "+"), Method: "GET", Path: "/"}
		_, err := exec.Execute(context.Background(), httpCall(b, nil))
		d, ok := toolrun.RetryAfter(err)
		require.True(t, ok)
		assert.InDelta(t, time.Hour.Seconds(), d.Seconds(), 2)
	})
}

func TestResponseSizeCap(t *testing.T) {
	body := strings.Repeat("x", 100)
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/chunked" {
			// Flushed early, the body goes without a Content-Length: the
			// cap applies while reading.
			_, _ = fmt.Fprint(w, body[:50])
			w.(http.Flusher).Flush()
			_, _ = fmt.Fprint(w, body[50:])
			return
		}
		if r.URL.Path == "/error" {
			w.WriteHeader(500)
		}
		_, _ = fmt.Fprint(w, body)
	}))
	small := newExecutor(srv, httpexec.WithMaxResponseBytes(99))
	for _, path := range []string{"/sized", "/chunked"} {
		t.Run(path, func(t *testing.T) {
			_, err := small.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: path}, nil))
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, errors.ResourceExhausted, e.Code)
			assert.Equal(t, "99", e.Meta["limit"])
			assert.Contains(t, err.Error(), "exceeds the limit of 99 bytes")
		})
	}
	t.Run("an error body is truncated, the status wins", func(t *testing.T) {
		_, err := small.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/error"}, nil))
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.Contains(t, err.Error(), "HTTP 500: "+body[:99])
		assert.NotContains(t, err.Error(), body)
	})
	t.Run("a declared length is not trusted", func(t *testing.T) {
		lying := httpexec.New(httpexec.WithMaxResponseBytes(99), httpexec.WithHTTPClient(&http.Client{Transport: roundTripFunc(
			func(req *http.Request) (*http.Response, error) {
				return &http.Response{StatusCode: 500, Header: http.Header{}, ContentLength: 1 << 50,
					Body: io.NopCloser(strings.NewReader(body)), Request: req}, nil
			})}))
		_, err := lying.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: "https://api.example.com", Method: "GET", Path: "/"}, nil))
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.Contains(t, err.Error(), "HTTP 500: "+body[:99])
	})
	t.Run("at the limit", func(t *testing.T) {
		exact := newExecutor(srv, httpexec.WithMaxResponseBytes(100))
		out, err := exact.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/chunked"}, nil))
		require.NoError(t, err)
		assert.Equal(t, body, toolrun.OutputText(out))
	})
}

func TestTimeouts(t *testing.T) {
	srv := newServer(t, http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	exec := newExecutor(srv)
	block := &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/block"}

	t.Run("the backend's timeout is retryable", func(t *testing.T) {
		b := *block
		b.Timeout = toolmodel.Duration(20 * time.Millisecond)
		_, err := exec.Execute(context.Background(), httpCall(&b, nil))
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, errors.Timeout, e.Code)
		assert.True(t, e.Retryable)
		assert.Contains(t, err.Error(), "the backend's timeout of 20ms expired")
	})
	t.Run("the caller's deadline", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
		defer cancel()
		_, err := exec.Execute(ctx, httpCall(block, nil))
		require.ErrorIs(t, err, errors.ErrTimeout)
		require.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("the caller's cancellation", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := exec.Execute(ctx, httpCall(block, nil))
		require.ErrorIs(t, err, errors.ErrCanceled)
		assert.False(t, errors.IsRetryable(err))
	})
}

func TestUnreachableServer(t *testing.T) {
	srv := newServer(t, http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"KEY": "s3cr3t-key"}))
	b := &toolmodel.HTTPBackend{BaseURL: url, Method: "GET", Path: "/x",
		Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "KEY", In: "query", Name: "api_key"}}
	_, err := exec.Execute(context.Background(), httpCall(b, nil))
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, errors.Unavailable, e.Code)
	assert.True(t, e.Retryable)
	assert.Contains(t, err.Error(), "GET "+url+"/x: ")
	assert.NotContains(t, err.Error(), "s3cr3t-key", "the URL in errors loses its query")
}

func TestClose(t *testing.T) {
	srv := newServer(t, recorder(t))
	exec := httpexec.New()
	b := &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/"}
	_, err := exec.Execute(context.Background(), httpCall(b, nil))
	require.NoError(t, err)
	require.NoError(t, exec.Close())
	_, err = exec.Execute(context.Background(), httpCall(b, nil))
	require.NoError(t, err, "the executor stays usable")
	require.NoError(t, exec.Close())
}
