package httpexec_test

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// redirecting answers the API's requests with a redirect to target,
// carrying the request's query along (as an API that forwards its
// caller to a mirror would), and the OAuth2 token requests with a token.
func redirecting(target func() string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/token" {
			w.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(w).Encode(map[string]any{"access_token": "oauth-" + secretValue, "token_type": "bearer", "expires_in": 3600})
			return
		}
		loc := target() + "/moved"
		if r.URL.RawQuery != "" {
			loc += "?" + r.URL.RawQuery
		}
		http.Redirect(w, r, loc, http.StatusFound)
	})
}

func TestRedirectCredentials(t *testing.T) {
	auths := []struct {
		name string
		auth toolmodel.HTTPAuth
	}{
		{"bearer", toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}},
		{"api key in a header", toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "TOKEN", Name: "X-Api-Key"}},
		{"api key in the query", toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "TOKEN", Name: "key", In: "query"}},
		{"basic", toolmodel.HTTPAuth{Type: toolmodel.AuthBasic, Secret: "TOKEN", Username: "ann"}},
		{"oauth2 client credentials", toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Secret: "TOKEN", Username: "client"}},
	}
	// A configured header holding a secret, and a cookie.
	headers := map[string]string{"X-Session": "session-" + secretValue, "Cookie": "sid=cookie-" + secretValue}

	t.Run("another origin", func(t *testing.T) {
		other := newServer(t, recorder(t))
		origin := newServer(t, redirecting(func() string { return other.URL }))
		exec := newExecutor(origin, httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": secretValue}))
		for _, tt := range auths {
			t.Run(tt.name, func(t *testing.T) {
				auth := tt.auth
				auth.TokenURL = origin.URL + "/token"
				b := &toolmodel.HTTPBackend{BaseURL: origin.URL, Path: "/api", QueryParams: []string{"q"}, Headers: headers, Auth: &auth}
				out, err := exec.Execute(context.Background(), httpCall(b, map[string]any{"q": "kept"}))
				require.NoError(t, err)
				s := decodeSeen(t, out)
				require.Equal(t, "/moved", s.Path, "the call reached the other origin")
				for name, values := range s.Header {
					assert.NotContains(t, strings.Join(values, ","), secretValue, "header %s", name)
				}
				assert.NotContains(t, s.Query, secretValue)
				assert.Empty(t, s.Header.Get("Referer"))
				assert.Empty(t, s.Header.Get("Authorization"))
				assert.Empty(t, s.Header.Get("Cookie"))
				q, err := url.ParseQuery(s.Query)
				require.NoError(t, err)
				assert.Equal(t, "kept", q.Get("q"), "the call's own parameters go on")
			})
		}
	})

	t.Run("same origin", func(t *testing.T) {
		var srvURL string
		mux := http.NewServeMux()
		mux.Handle("/moved", recorder(t))
		mux.Handle("/", redirecting(func() string { return srvURL }))
		srv := newServer(t, mux)
		srvURL = srv.URL
		exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": secretValue}))
		b := &toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/api", Headers: headers,
			Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "TOKEN", Name: "X-Api-Key"}}
		out, err := exec.Execute(context.Background(), httpCall(b, nil))
		require.NoError(t, err)
		s := decodeSeen(t, out)
		require.Equal(t, "/moved", s.Path)
		assert.Equal(t, secretValue, s.Header.Get("X-Api-Key"))
		assert.Equal(t, "session-"+secretValue, s.Header.Get("X-Session"))
		assert.Empty(t, s.Header.Get("Referer"), "no Referer is ever sent")
	})
}

func TestRedirectPolicy(t *testing.T) {
	var hops atomic.Int32
	loop := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops.Add(1)
		http.Redirect(w, r, "/again", http.StatusFound)
	}))
	b := &toolmodel.HTTPBackend{BaseURL: loop.URL, Path: "/"}

	t.Run("a loop stops", func(t *testing.T) {
		hops.Store(0)
		_, err := newExecutor(loop).Execute(context.Background(), httpCall(b, nil))
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.Contains(t, err.Error(), "stopped after 10 redirects")
		assert.Equal(t, int32(10), hops.Load())
	})
	t.Run("the client's own policy decides", func(t *testing.T) {
		hops.Store(0)
		client := loop.Client()
		client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
		_, err := httpexec.New(httpexec.WithHTTPClient(client)).Execute(context.Background(), httpCall(b, nil))
		require.NoError(t, err, "the redirect response itself is the result")
		assert.Equal(t, int32(1), hops.Load())
	})
}

// TestRedirectToAnInternalAddressIsRefused calls an API at a public name
// that redirects to a loopback address: the redirect is refused, and the
// loopback server never hears of the call.
func TestRedirectToAnInternalAddressIsRefused(t *testing.T) {
	var reached atomic.Int32
	internal := newServer(t, http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	api := newServer(t, redirecting(func() string { return internal.URL }))
	// The API's public name leads to the test server.
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "api.example.com:80" {
			addr = api.Listener.Addr().String()
		}
		return dialer.DialContext(ctx, network, addr)
	}}}
	b := &toolmodel.HTTPBackend{BaseURL: "http://api.example.com", Path: "/api"}
	_, err := httpexec.New(httpexec.WithHTTPClient(client)).Execute(context.Background(), httpCall(b, nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "refused: it leaves the API's public address for a loopback address")
	assert.Zero(t, reached.Load(), "the internal server was not called")
}
