package catalog_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// notesAPI serves the notes document's API: creating a note fails with
// 500, reading one never answers. It counts the creations it received.
func notesAPI(t *testing.T) (*httptest.Server, *atomic.Int32) {
	t.Helper()
	var creations atomic.Int32
	release := make(chan struct{})
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.Method {
		case http.MethodPost:
			creations.Add(1)
			http.Error(w, `{"message":"the database hiccuped"}`, http.StatusInternalServerError)
		default:
			select {
			case <-r.Context().Done():
			case <-release:
			}
		}
	}))
	t.Cleanup(func() { close(release); api.Close() })
	return api, &creations
}

// A POST answered 500 may have created the note: it is sent once, unless
// the configuration declares the operation idempotent.
func TestOnlyDeclaredOperationsAreRetried(t *testing.T) {
	for _, tc := range []struct {
		name       string
		idempotent string
		want       int32
	}{
		{"by default", "", 1},
		{"declared", "idempotent: [createNote]", 2},
		{"declared for all", "idempotent: true", 2},
		{"others declared", "idempotent: ['get*']", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			api, creations := notesAPI(t)
			t.Setenv("NOTES_TEST_TOKEN", "n0tes")
			cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
limits: {retries: 2}
openapi:
  - {name: notes, spec: testdata/notes.yaml, baseUrl: %s/v1, secrets: {bearerAuth: NOTES_TEST_TOKEN}, %s}
`, api.URL, tc.idempotent))
			require.Empty(t, cat.Upstreams()[0].Error)
			_, err := cat.Runner.Run(context.Background(), "notes:createNote", map[string]any{"text": "call mum"})
			require.ErrorIs(t, err, errors.ErrUnavailable)
			assert.Equal(t, tc.want, creations.Load(), "requests the API received")
		})
	}
}

// An API that never answers fails the call at the configured timeout,
// with an error naming the tool and the API.
func TestSilentUpstreamTimesOut(t *testing.T) {
	api, _ := notesAPI(t)
	t.Setenv("NOTES_TEST_TOKEN", "n0tes")
	cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
limits: {timeout: 200ms}
openapi:
  - {name: notes, spec: testdata/notes.yaml, baseUrl: %s/v1, secrets: {bearerAuth: NOTES_TEST_TOKEN}}
`, api.URL))
	_, err := cat.Runner.Run(context.Background(), "notes:getNote", map[string]any{"id": 7})
	require.ErrorIs(t, err, errors.ErrTimeout)
	assert.Contains(t, err.Error(), `tool "notes:getNote"`)
	assert.Contains(t, err.Error(), fmt.Sprintf(`no answer from HTTP API %q within 200ms`, api.URL))
}
