package builtin_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

// fetchServer is a loopback server for http:fetch and a harness whose
// allow-list names its address and port, 127.0.0.1:port.
func fetchServer(t *testing.T, opts ...builtin.Option) (*harness, *httptest.Server) {
	t.Helper()
	mux := http.NewServeMux()
	mux.HandleFunc("/text", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("ETag", `"v1"`)
		w.Header().Set("X-RateLimit-Remaining", "42")
		w.Header().Set("X-Internal-Secret", "hidden")
		_, _ = w.Write([]byte("hello"))
	})
	mux.HandleFunc("/json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"a":[1,2]}`))
	})
	mux.HandleFunc("/problem", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/problem+json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(`{"title":"no such thing"}`))
	})
	mux.HandleFunc("/bad-json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{oops`))
	})
	mux.HandleFunc("/null", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`null`))
	})
	mux.HandleFunc("/accents", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte(strings.Repeat("é", 10)))
	})
	mux.HandleFunc("/binary", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		_, _ = w.Write([]byte{0xff, 0xfe, 0x00})
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(map[string]string{"method": r.Method, "userAgent": r.UserAgent(), "custom": r.Header.Get("X-Custom")})
	})
	mux.HandleFunc("/redirect/{n}", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n == 0 {
			_, _ = w.Write([]byte("arrived"))
			return
		}
		http.Redirect(w, r, fmt.Sprintf("/redirect/%d", n-1), http.StatusFound)
	})
	srv := httptest.NewServer(mux)
	mux.HandleFunc("/away", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)+"/text", http.StatusFound)
	})
	t.Cleanup(srv.Close)
	opts = append([]builtin.Option{builtin.WithHTTPAllowList(srv.Listener.Addr().String()), builtin.WithHTTPClient(srv.Client())}, opts...)
	return newHarness(t, opts...), srv
}

func TestHTTPFetch(t *testing.T) {
	h, srv := fetchServer(t)
	tests := []struct {
		name string
		args map[string]any
		want map[string]any
	}{
		{"text and a subset of the headers", map[string]any{"url": srv.URL + "/text"}, map[string]any{
			"status": 200.0, "body": "hello", "bytes": 5.0, "contentType": "text/plain; charset=utf-8", "truncated": false, "binary": false,
			"url": srv.URL + "/text",
		}},
		{"JSON is parsed", map[string]any{"url": srv.URL + "/json"}, map[string]any{
			"status": 200.0, "json": map[string]any{"a": []any{1.0, 2.0}}, "body": "",
		}},
		{"an error status is a response", map[string]any{"url": srv.URL + "/problem"}, map[string]any{
			"status": 404.0, "json": map[string]any{"title": "no such thing"},
		}},
		{"invalid JSON stays text", map[string]any{"url": srv.URL + "/bad-json"}, map[string]any{
			"body": "{oops", "json": nil,
		}},
		{"a JSON null stays text", map[string]any{"url": srv.URL + "/null"}, map[string]any{
			"body": "null", "json": nil,
		}},
		{"HEAD has no body", map[string]any{"url": srv.URL + "/text", "method": "HEAD"}, map[string]any{
			"status": 200.0, "body": "", "bytes": 0.0,
		}},
		{"a truncated body keeps whole characters", map[string]any{"url": srv.URL + "/accents", "maxBytes": 5}, map[string]any{
			"body": "éé", "bytes": 4.0, "truncated": true,
		}},
		{"a truncated JSON body is not parsed", map[string]any{"url": srv.URL + "/json", "maxBytes": 4}, map[string]any{
			"body": `{"a"`, "json": nil, "truncated": true,
		}},
		{"a binary body is left out", map[string]any{"url": srv.URL + "/binary"}, map[string]any{
			"binary": true, "body": "", "bytes": 3.0,
		}},
		{"headers are sent, with a default user agent", map[string]any{"url": srv.URL + "/echo", "headers": map[string]any{"X-Custom": "yes"}}, map[string]any{
			"json": map[string]any{"method": "GET", "userAgent": "metatools-fetch", "custom": "yes"},
		}},
		{"the user agent can be set", map[string]any{"url": srv.URL + "/echo", "headers": map[string]any{"user-agent": "probe/1"}}, map[string]any{
			"json": map[string]any{"method": "GET", "userAgent": "probe/1", "custom": ""},
		}},
		{"five redirects are followed", map[string]any{"url": srv.URL + "/redirect/5"}, map[string]any{
			"body": "arrived", "url": srv.URL + "/redirect/0",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "http:fetch", tt.args)
			for field, want := range tt.want {
				assert.Equal(t, want, out[field], field)
			}
		})
	}

	t.Run("only the headers that matter are returned", func(t *testing.T) {
		out := h.run(t, "http:fetch", map[string]any{"url": srv.URL + "/text"})
		headers, ok := out["headers"].(map[string]any)
		require.True(t, ok)
		assert.Equal(t, `"v1"`, headers["etag"])
		assert.Equal(t, "42", headers["x-ratelimit-remaining"])
		assert.Equal(t, "5", headers["content-length"])
		assert.NotContains(t, headers, "x-internal-secret")
	})
}

func TestHTTPFetchRefusals(t *testing.T) {
	h, srv := fetchServer(t)
	localhost := strings.Replace(srv.URL, "127.0.0.1", "localhost", 1)
	addr := srv.Listener.Addr().String()
	tests := []struct {
		name string
		url  string
		want string
	}{
		{"a host not on the list", "https://example.com/", `host "example.com" is not on the allow-list (` + addr + `)`},
		{"another name of an allowed address", localhost + "/text", `host "localhost" is not on the allow-list (` + addr + `)`},
		{"another scheme", "ftp://127.0.0.1/file", `only http and https URLs can be fetched, not "ftp"`},
		{"a relative URL", "/text", `only http and https URLs can be fetched, not ""`},
		{"credentials in the URL", "http://user:secret@127.0.0.1/", "URLs with credentials are refused"},
		{"a malformed URL", "http://[::1", "invalid URL:"},
		{"a redirect to a host not on the list", srv.URL + "/away", `redirect to ` + localhost + `/text refused: host "localhost" is not on the allow-list`},
		{"too many redirects", srv.URL + "/redirect/6", "stopped after 5 redirects"},
		{"an allowed address on another port", "http://127.0.0.1/text", `port 80 of host "127.0.0.1" is not on the allow-list`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, h.toolError(t, "http:fetch", map[string]any{"url": tt.url}), tt.want)
		})
	}
}

func TestHTTPFetchRefusesInvalidArguments(t *testing.T) {
	h, srv := fetchServer(t, builtin.WithHTTPMaxBytes(100))
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a method other than GET and HEAD", map[string]any{"url": srv.URL, "method": "POST"}, "/method"},
		{"maxBytes above the cap", map[string]any{"url": srv.URL, "maxBytes": 101}, "/maxBytes"},
		{"a header the transport manages", map[string]any{"url": srv.URL, "headers": map[string]any{"host": "evil.example"}}, `header "host" cannot be set`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := h.runError(t, "http:fetch", tt.args)
			assert.Equal(t, errors.Validation, code)
			assert.Contains(t, msg, tt.want)
		})
	}
}

// roundTripFunc adapts a function to http.RoundTripper.
type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// waitForContext is a transport that never answers.
var waitForContext = roundTripFunc(func(r *http.Request) (*http.Response, error) {
	<-r.Context().Done()
	return nil, r.Context().Err()
})

func TestHTTPFetchGivesUpAtItsTimeLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		h := newHarness(t, builtin.WithHTTPAllowList("127.0.0.1"), builtin.WithHTTPTimeout(3*time.Second),
			builtin.WithHTTPClient(&http.Client{Transport: waitForContext}))
		start := time.Now()
		msg := h.toolError(t, "http:fetch", map[string]any{"url": "http://127.0.0.1/slow"})
		assert.Equal(t, "fetch http://127.0.0.1/slow: no complete response within 3s", msg)
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}

func TestHTTPFetchStopsWhenTheCallIsCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancelling := roundTripFunc(func(r *http.Request) (*http.Response, error) {
		cancel()
		return waitForContext(r)
	})
	h := newHarness(t, builtin.WithHTTPAllowList("127.0.0.1"), builtin.WithHTTPClient(&http.Client{Transport: cancelling}))
	_, err := h.runner.Run(ctx, "http:fetch", map[string]any{"url": "http://127.0.0.1/"})
	require.ErrorIs(t, err, errors.ErrCanceled)
}

func TestHTTPFetchIsAbsentWithoutAllowList(t *testing.T) {
	h := newHarness(t)
	code, _ := h.runError(t, "http:fetch", map[string]any{"url": "https://example.com/"})
	assert.Equal(t, errors.NotFound, code)
}

// TestHTTPFetchChecksTheAddressItDials fetches from a loopback server
// through a name that resolves to it: the address actually dialled is
// checked, at the first request and at every redirect.
func TestHTTPFetchChecksTheAddressItDials(t *testing.T) {
	_, srv := fetchServer(t)
	port := srv.URL[strings.LastIndex(srv.URL, ":")+1:]
	localhost := "http://localhost:" + port

	h := newHarness(t, builtin.WithHTTPAllowList("localhost:"+port), builtin.WithHTTPClient(srv.Client()))
	msg := h.toolError(t, "http:fetch", map[string]any{"url": localhost + "/text"})
	assert.Contains(t, msg, "is a loopback address: only an allow-list entry naming it (an address or CIDR range) or one marked internal: reaches it")

	h = newHarness(t, builtin.WithHTTPAllowList("internal:localhost:"+port), builtin.WithHTTPClient(srv.Client()))
	out := h.run(t, "http:fetch", map[string]any{"url": localhost + "/text"})
	assert.Equal(t, "hello", out["body"], "an entry marked internal: reaches it")

	toLocalhost := httptest.NewServer(http.RedirectHandler(localhost+"/text", http.StatusFound))
	t.Cleanup(toLocalhost.Close)
	h = newHarness(t, builtin.WithHTTPAllowList(toLocalhost.Listener.Addr().String(), "localhost:"+port), builtin.WithHTTPClient(srv.Client()))
	msg = h.toolError(t, "http:fetch", map[string]any{"url": toLocalhost.URL})
	assert.Contains(t, msg, "is a loopback address", "a redirect to a name of an internal address is refused")

	h = newHarness(t, builtin.WithHTTPAllowList("127.0.0.1"), builtin.WithHTTPClient(srv.Client()))
	msg = h.toolError(t, "http:fetch", map[string]any{"url": srv.URL + "/text"})
	assert.Contains(t, msg, `port `+port+` of host "127.0.0.1" is not on the allow-list (127.0.0.1): an entry allows ports 80 and 443 unless it names others`)

	other := httptest.NewServer(http.RedirectHandler(srv.URL+"/text", http.StatusFound))
	t.Cleanup(other.Close)
	h = newHarness(t, builtin.WithHTTPAllowList(other.Listener.Addr().String()), builtin.WithHTTPClient(srv.Client()))
	msg = h.toolError(t, "http:fetch", map[string]any{"url": other.URL})
	assert.Contains(t, msg, "redirect to "+srv.URL+"/text refused: port "+port, "a redirect to a port not on the list is refused")
}

func TestCheckHTTPAllowList(t *testing.T) {
	require.NoError(t, builtin.CheckHTTPAllowList("api.github.com", "internal:169.254.169.254", "10.0.0.0/8:*"))
	err := builtin.CheckHTTPAllowList("169.254.169.254", "api.github.com:x")
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	require.ErrorContains(t, err, "write internal:169.254.169.254 to allow it on purpose")
	assert.ErrorContains(t, err, `"api.github.com:x" has port "x"`)
}
