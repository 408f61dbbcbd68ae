package openapi_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun/openapi"
)

const urlSecret = "k3y-in-the-url"

func TestImportURLErrorsHideTheURLsSecrets(t *testing.T) {
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	tests := []struct {
		name, url string
		code      error
	}{
		{"unreachable", "http://user:" + urlSecret + "@" + closed.Listener.Addr().String() + "/spec.yaml?api_key=" + urlSecret, errors.ErrUnavailable},
		{"not http", "ftp://user:" + urlSecret + "@example.com/spec.yaml?api_key=" + urlSecret, errors.ErrInvalidArgument},
		{"unparseable", "http://example.com/%zz?api_key=" + urlSecret, errors.ErrInvalidArgument},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := openapi.ImportURL(context.Background(), "ns", tt.url)
			require.ErrorIs(t, err, tt.code)
			assert.NotContains(t, err.Error(), urlSecret)
		})
	}
}

// TestImportURLErrorBodyHidesTheURLsSecrets fetches a document from a
// server that refuses it with a body echoing the URL: the error quotes
// the body without the key of the URL's query.
func TestImportURLErrorBodyHidesTheURLsSecrets(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusUnauthorized)
		_, _ = w.Write([]byte(`{"error": "key not valid for ` + r.URL.String() + `"}`))
	}))
	t.Cleanup(srv.Close)
	_, err := openapi.ImportURL(context.Background(), "ns", srv.URL+"/spec.yaml?api_key="+urlSecret, openapi.WithHTTPClient(srv.Client()))
	require.ErrorIs(t, err, errors.ErrUnauthenticated)
	assert.Contains(t, err.Error(), "key not valid for /spec.yaml?***", "the body is quoted, its query redacted")
	assert.NotContains(t, err.Error(), urlSecret)
}

// smallDocument is a document of two operations, the first of which
// draws a warning (it has a cookie parameter, which is ignored).
func smallDocument() []byte {
	return document("3.0.3", `/a:
  get:
    operationId: first
    parameters: [{name: session, in: cookie, schema: {type: string}}]
    responses: {"204": {description: ok}}
/b:
  get:
    operationId: second
    responses: {"204": {description: ok}}`, `{}`)
}

func TestDocumentSizeLimit(t *testing.T) {
	ctx := context.Background()
	assertTooLarge := func(t *testing.T, err error, limit string) {
		t.Helper()
		require.ErrorIs(t, err, errors.ErrResourceExhausted)
		require.ErrorIs(t, err, openapi.ErrDocumentTooLarge)
		var ae *errors.Error
		require.ErrorAs(t, err, &ae)
		assert.Equal(t, limit, ae.Meta["limit"])
		assert.Contains(t, err.Error(), "limit of "+limit+" bytes")
		assert.Contains(t, err.Error(), "WithMaxDocumentBytes")
	}
	t.Run("a file over the default limit", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "huge.yaml")
		f, err := os.Create(path)
		require.NoError(t, err)
		// A sparse file: the import must refuse it without reading it.
		require.NoError(t, f.Truncate(8<<20+1))
		require.NoError(t, f.Close())
		_, err = openapi.ImportFile(ctx, "ns", path)
		assertTooLarge(t, err, "8388608")
	})
	t.Run("a file over a set limit", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "api.yaml")
		require.NoError(t, os.WriteFile(path, smallDocument(), 0o600))
		_, err := openapi.ImportFile(ctx, "ns", path, openapi.WithMaxDocumentBytes(100))
		assertTooLarge(t, err, "100")
		regs, err := openapi.ImportFile(ctx, "ns", path, openapi.WithMaxDocumentBytes(int64(len(smallDocument()))))
		require.NoError(t, err, "a document of exactly the limit is imported")
		assert.Len(t, regs, 2)
	})
	t.Run("bytes", func(t *testing.T) {
		_, err := openapi.Import("ns", smallDocument(), openapi.WithMaxDocumentBytes(100))
		assertTooLarge(t, err, "100")
	})
	t.Run("a URL", func(t *testing.T) {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(smallDocument()) }))
		t.Cleanup(srv.Close)
		_, err := openapi.ImportURL(ctx, "ns", srv.URL, openapi.WithHTTPClient(srv.Client()), openapi.WithMaxDocumentBytes(100))
		assertTooLarge(t, err, "100")
	})
}

// TestImportURLTimesOut fetches a document from a server that never
// answers: the import ends when the context's deadline passes.
func TestImportURLTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(release) })
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	_, err := openapi.ImportURL(ctx, "ns", srv.URL+"/spec.yaml", openapi.WithHTTPClient(srv.Client()))
	require.ErrorIs(t, err, errors.ErrTimeout)
}

// TestImportStopsWhenTheContextEnds cancels the context while the
// operations are imported: the import stops there, instead of going on
// past the caller's deadline.
func TestImportStopsWhenTheContextEnds(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(smallDocument()) }))
	t.Cleanup(srv.Close)
	path := filepath.Join(t.TempDir(), "api.yaml")
	require.NoError(t, os.WriteFile(path, smallDocument(), 0o600))
	imports := map[string]func(ctx context.Context, opts ...openapi.Option) ([]toolindex.Registration, error){
		"file": func(ctx context.Context, opts ...openapi.Option) ([]toolindex.Registration, error) {
			return openapi.ImportFile(ctx, "ns", path, opts...)
		},
		"URL": func(ctx context.Context, opts ...openapi.Option) ([]toolindex.Registration, error) {
			return openapi.ImportURL(ctx, "ns", srv.URL, append(opts, openapi.WithHTTPClient(srv.Client()))...)
		},
	}
	for name, importDoc := range imports {
		t.Run(name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var warnings int
			regs, err := importDoc(ctx, openapi.WithWarnings(func(openapi.Warning) { warnings++; cancel() }))
			require.ErrorIs(t, err, errors.ErrCanceled)
			assert.Nil(t, regs)
			assert.Equal(t, 1, warnings, "the import stopped after the first operation")
		})
	}
}

// TestImportURLRefusesARedirectInsideTheNetwork fetches a document from a
// public name whose server redirects to a loopback address: the import
// fails, and the loopback server is not asked.
func TestImportURLRefusesARedirectInsideTheNetwork(t *testing.T) {
	var reached atomic.Int32
	internal := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached.Add(1) }))
	t.Cleanup(internal.Close)
	public := httptest.NewServer(http.RedirectHandler(internal.URL+"/spec.yaml", http.StatusFound))
	t.Cleanup(public.Close)
	dialer := &net.Dialer{}
	client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		if addr == "specs.example.com:80" {
			addr = public.Listener.Addr().String()
		}
		return dialer.DialContext(ctx, network, addr)
	}}}
	_, err := openapi.ImportURL(context.Background(), "ns", "http://specs.example.com/spec.yaml", openapi.WithHTTPClient(client))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "leaves the API's public address for a loopback address")
	assert.Zero(t, reached.Load())
}
