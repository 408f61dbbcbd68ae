package httpexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

const secretValue = "s3cr3t-value"

func TestAuth(t *testing.T) {
	srv := newServer(t, recorder(t))
	exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": secretValue}))
	tests := []struct {
		name  string
		auth  toolmodel.HTTPAuth
		check func(t *testing.T, s seen)
	}{
		{"bearer", toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}, func(t *testing.T, s seen) {
			assert.Equal(t, "Bearer "+secretValue, s.Header.Get("Authorization"))
		}},
		{"api key in a header", toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "TOKEN", Name: "X-Api-Key"}, func(t *testing.T, s seen) {
			assert.Equal(t, secretValue, s.Header.Get("X-Api-Key"))
		}},
		{"api key in the query", toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "TOKEN", Name: "key", In: "query"}, func(t *testing.T, s seen) {
			assert.Equal(t, "key="+secretValue+"&q=1", s.Query)
		}},
		{"basic", toolmodel.HTTPAuth{Type: toolmodel.AuthBasic, Secret: "TOKEN", Username: "ann"}, func(t *testing.T, s seen) {
			req := &http.Request{Header: s.Header}
			user, password, ok := req.BasicAuth()
			require.True(t, ok)
			assert.Equal(t, "ann", user)
			assert.Equal(t, secretValue, password)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b := &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/", QueryParams: []string{"q"},
				HeaderParams: []string{"Authorization", "X-Api-Key"}, Auth: &tt.auth}
			// Arguments cannot override the credentials.
			args := map[string]any{"q": 1.0, "Authorization": "Bearer forged", "X-Api-Key": "forged", "key": "forged"}
			out, err := exec.Execute(context.Background(), httpCall(b, args))
			require.NoError(t, err)
			tt.check(t, decodeSeen(t, out))
		})
	}
}

func TestMissingSecret(t *testing.T) {
	srv := newServer(t, recorder(t))
	for _, typ := range []toolmodel.HTTPAuthType{toolmodel.AuthBearer, toolmodel.AuthAPIKey, toolmodel.AuthBasic, toolmodel.AuthOAuth2Client} {
		t.Run(string(typ), func(t *testing.T) {
			exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"OTHER": secretValue, "EMPTY": ""}))
			for _, name := range []string{"MISSING", "EMPTY"} {
				auth := &toolmodel.HTTPAuth{Type: typ, Secret: name, Name: "k", Username: "u", TokenURL: srv.URL + "/token"}
				_, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/", Auth: auth}, nil))
				require.ErrorIs(t, err, errors.ErrUnauthenticated)
				assert.Contains(t, err.Error(), fmt.Sprintf("secret %q is not available", name))
			}
		})
	}
}

// TestBearerTokenWithControlCharacters checks that a token that cannot go
// in a header is the configuration's fault, said without the token, and
// not a failure to reach the server that a retry could cure.
func TestBearerTokenWithControlCharacters(t *testing.T) {
	srv := newServer(t, recorder(t))
	exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": "tok3n\r\nX-Injected: 1"}))
	auth := &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}
	_, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/", Auth: auth}, nil))
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "%v", err)
	assert.False(t, errors.IsRetryable(err))
	assert.NotContains(t, err.Error(), "tok3n")
}

func TestSecretSources(t *testing.T) {
	ctx := context.Background()
	t.Run("environment", func(t *testing.T) {
		t.Setenv("APP_TOKEN", "from-env")
		v, err := httpexec.EnvSecrets{Prefix: "APP_"}.Secret(ctx, "TOKEN")
		require.NoError(t, err)
		assert.Equal(t, "from-env", v)
		_, err = httpexec.EnvSecrets{Prefix: "APP_"}.Secret(ctx, "NOPE")
		require.ErrorIs(t, err, errors.ErrNotFound)
		assert.Contains(t, err.Error(), "APP_NOPE")
	})
	t.Run("the default reads the environment", func(t *testing.T) {
		t.Setenv("HTTPEXEC_TEST_TOKEN", secretValue)
		srv := newServer(t, recorder(t))
		exec := newExecutor(srv)
		auth := &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "HTTPEXEC_TEST_TOKEN"}
		out, err := exec.Execute(ctx, httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/", Auth: auth}, nil))
		require.NoError(t, err)
		assert.Equal(t, "Bearer "+secretValue, decodeSeen(t, out).Header.Get("Authorization"))
	})
	t.Run("a failing source keeps its code", func(t *testing.T) {
		srv := newServer(t, recorder(t))
		vault := httpexec.SecretSourceFunc(func(_ context.Context, name string) (string, error) {
			return "", errors.Errorf(errors.Unavailable, "vault is sealed")
		})
		exec := newExecutor(srv, httpexec.WithSecrets(vault))
		auth := &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}
		_, err := exec.Execute(ctx, httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/", Auth: auth}, nil))
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.True(t, errors.IsRetryable(err))
		assert.Contains(t, err.Error(), `secret "TOKEN": vault is sealed`)
	})
}

func TestSecretsAreScrubbedFromErrors(t *testing.T) {
	// A server that echoes the credentials it received in its error body.
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusBadRequest)
		_, _ = fmt.Fprintf(w, "bad credentials %q", r.Header.Get("Authorization"))
	}))
	exec := newExecutor(srv, httpexec.WithSecrets(httpexec.MapSecrets{"TOKEN": secretValue}))
	auth := &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "TOKEN"}
	_, err := exec.Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: srv.URL, Path: "/", Auth: auth}, nil))
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.NotContains(t, err.Error(), secretValue)
	assert.Contains(t, err.Error(), `bad credentials "Bearer [redacted]"`)
}

// tokenServer is an OAuth2 token endpoint and an API accepting its tokens.
type tokenServer struct {
	mu      sync.Mutex
	issued  int
	valid   map[string]bool
	fetches atomic.Int32
	fail    atomic.Int32 // a status to answer token requests with
}

func (ts *tokenServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/token":
		ts.fetches.Add(1)
		if status := ts.fail.Load(); status != 0 {
			w.WriteHeader(int(status))
			_, _ = fmt.Fprint(w, `{"error":"invalid_client","error_description":"unknown client"}`)
			return
		}
		id, secret, ok := r.BasicAuth()
		if !ok || id != "client-1" || secret != secretValue || r.PostFormValue("grant_type") != "client_credentials" ||
			r.PostFormValue("scope") != "read write" {
			w.WriteHeader(http.StatusUnauthorized)
			_, _ = fmt.Fprint(w, `{"error":"invalid_client"}`)
			return
		}
		ts.mu.Lock()
		ts.issued++
		token := fmt.Sprintf("token-%d", ts.issued)
		ts.valid[token] = true
		ts.mu.Unlock()
		_ = json.NewEncoder(w).Encode(map[string]any{"access_token": token, "token_type": "bearer", "expires_in": 3600})
	default:
		ts.mu.Lock()
		ok := ts.valid[strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")]
		ts.mu.Unlock()
		if !ok {
			w.WriteHeader(http.StatusUnauthorized)
			return
		}
		_ = json.NewEncoder(w).Encode(map[string]any{"auth": r.Header.Get("Authorization")})
	}
}

// revokeAll makes the API refuse every token issued so far.
func (ts *tokenServer) revokeAll() {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	clear(ts.valid)
}

func TestOAuth2ClientCredentials(t *testing.T) {
	ts := &tokenServer{valid: map[string]bool{}}
	srv := newServer(t, ts)
	var clientSecret atomic.Value
	clientSecret.Store(secretValue)
	secrets := httpexec.SecretSourceFunc(func(_ context.Context, name string) (string, error) {
		return clientSecret.Load().(string), nil
	})
	exec := newExecutor(srv, httpexec.WithSecrets(secrets))
	auth := &toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Secret: "CLIENT_SECRET", Username: "client-1",
		TokenURL: srv.URL + "/token", Scopes: []string{"read", "write"}}
	backend := &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: "GET", Path: "/api", Auth: auth}
	run := func() (any, error) {
		out, err := exec.Execute(context.Background(), httpCall(backend, nil))
		return out.Structured, err
	}

	t.Run("one token serves concurrent calls", func(t *testing.T) {
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				got, err := run()
				if assert.NoError(t, err) {
					assert.Equal(t, map[string]any{"auth": "Bearer token-1"}, got)
				}
			})
		}
		wg.Wait()
		assert.Equal(t, int32(1), ts.fetches.Load())
	})
	t.Run("a refused token is fetched anew on the next call", func(t *testing.T) {
		ts.revokeAll()
		_, err := run()
		require.ErrorIs(t, err, errors.ErrUnauthenticated)
		got, err := run()
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"auth": "Bearer token-2"}, got)
		assert.Equal(t, int32(2), ts.fetches.Load())
	})
	t.Run("other backend configurations have their own token", func(t *testing.T) {
		other := *backend
		otherAuth := *auth
		otherAuth.Scopes = []string{"read"}
		other.Auth = &otherAuth
		_, err := exec.Execute(context.Background(), httpCall(&other, nil))
		require.ErrorIs(t, err, errors.ErrUnauthenticated, "the token server refuses this scope")
		assert.Contains(t, err.Error(), "fetch OAuth2 token from "+srv.URL+"/token: HTTP 401: invalid_client")
		got, err := run()
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"auth": "Bearer token-2"}, got, "the first configuration keeps its token")
	})
	t.Run("a rotated secret gets a new token", func(t *testing.T) {
		clientSecret.Store("rotated")
		_, err := run()
		require.ErrorIs(t, err, errors.ErrUnauthenticated, "the token server does not know the new secret")
		assert.NotContains(t, err.Error(), "rotated")
		clientSecret.Store(secretValue)
		got, err := run()
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"auth": "Bearer token-3"}, got)
	})
	t.Run("token endpoint failures", func(t *testing.T) {
		require.NoError(t, exec.Close()) // forget the token
		for _, tt := range []struct {
			status    int
			code      errors.Code
			retryable bool
		}{
			{http.StatusBadRequest, errors.Unauthenticated, false},
			{http.StatusTooManyRequests, errors.RateLimited, true},
			{http.StatusServiceUnavailable, errors.Unavailable, true},
		} {
			ts.fail.Store(int32(tt.status))
			_, err := run()
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code)
			assert.Equal(t, tt.retryable, e.Retryable)
			assert.Equal(t, fmt.Sprint(tt.status), e.Meta["status"])
			assert.Contains(t, err.Error(), "invalid_client: unknown client")
			assert.NotContains(t, err.Error(), secretValue)
		}
		ts.fail.Store(0)
	})
	t.Run("an incomplete configuration", func(t *testing.T) {
		b := *backend
		b.Auth = &toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Secret: "CLIENT_SECRET"}
		_, err := exec.Execute(context.Background(), httpCall(&b, nil))
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
	})
}
