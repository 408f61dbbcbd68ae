package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// TestOpenAPIDocument imports an OpenAPI document and runs its operations
// against a real HTTP server, with the bearer token read from the
// environment variable the configuration names.
func TestOpenAPIDocument(t *testing.T) {
	t.Setenv("NOTES_TEST_TOKEN", "n0tes")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer n0tes" {
			http.Error(w, `{"message":"bad token"}`, http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/v1/notes/7":
			fmt.Fprint(w, `{"id": 7, "text": "buy milk"}`)
		case r.Method == http.MethodPost && r.URL.Path == "/v1/notes":
			var in struct{ Text string }
			_ = json.NewDecoder(r.Body).Decode(&in)
			w.WriteHeader(http.StatusCreated)
			fmt.Fprintf(w, `{"id": 8, "text": %q}`, in.Text)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(api.Close)

	cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
openapi:
  - name: notes
    spec: testdata/notes.yaml
    baseUrl: %s/v1
    secrets: {bearerAuth: NOTES_TEST_TOKEN}
`, api.URL))
	ups := cat.Upstreams()
	require.Len(t, ups, 1)
	require.Empty(t, ups[0].Error)
	assert.Equal(t, 2, ups[0].Tools)

	ctx := context.Background()
	page, err := cat.Index.Search(ctx, toolindex.SearchRequest{Query: "write a note"})
	require.NoError(t, err)
	require.NotEmpty(t, page.Items)
	assert.Equal(t, "notes:createNote", page.Items[0].ID)

	res, err := cat.Runner.Run(ctx, "notes:getNote", map[string]any{"id": 7})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": 7.0, "text": "buy milk"}, res.Structured)

	res, err = cat.Runner.Run(ctx, "notes:createNote", map[string]any{"text": "call mum"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"id": 8.0, "text": "call mum"}, res.Structured)

	_, err = cat.Runner.Run(ctx, "notes:getNote", map[string]any{"id": 9})
	require.ErrorIs(t, err, errors.ErrNotFound)
}

// TestOpenAPIDocumentLimits checks the bounds of an OpenAPI import at
// start-up: the document's size, the connect timeout, and errors that do
// not show the secrets of the document's URL.
func TestOpenAPIDocumentLimits(t *testing.T) {
	t.Run("size", func(t *testing.T) {
		cat := build(t, `
builtin: {disabled: true}
openapi: [{name: notes, spec: testdata/notes.yaml, maxDocumentBytes: 100}]
`)
		ups := cat.Upstreams()
		require.Len(t, ups, 1)
		require.Equal(t, errors.ResourceExhausted, ups[0].ErrorCode)
		assert.Contains(t, ups[0].Error, "limit of 100 bytes")
		assert.Contains(t, ups[0].Error, "openapi[0].maxDocumentBytes")
	})
	t.Run("connect timeout", func(t *testing.T) {
		release := make(chan struct{})
		silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
			select {
			case <-release:
			case <-r.Context().Done():
			}
		}))
		t.Cleanup(silent.Close)
		t.Cleanup(func() { close(release) })
		cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
limits: {connectTimeout: 100ms}
openapi: [{name: silent, spec: "%s/spec.yaml"}]
`, silent.URL))
		ups := cat.Upstreams()
		require.Len(t, ups, 1)
		require.Equal(t, errors.Timeout, ups[0].ErrorCode)
	})
	t.Run("a URL's secrets", func(t *testing.T) {
		closed := httptest.NewServer(http.NotFoundHandler())
		closed.Close()
		cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
openapi: [{name: gone, spec: "%s/spec.yaml?api_key=k3y-of-the-spec"}]
`, closed.URL))
		ups := cat.Upstreams()
		require.Len(t, ups, 1)
		require.Equal(t, errors.Unavailable, ups[0].ErrorCode)
		assert.NotContains(t, ups[0].Error, "k3y-of-the-spec")
		assert.Contains(t, ups[0].Error, closed.URL+"/spec.yaml")
	})
}
