package catalog_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolrun"
)

// TestAuditLogHoldsNoSecret runs an OpenAPI document's operations, whose
// credential comes from the environment, with the audit log on and
// recording arguments: it has a line per call, the refused ones included,
// and neither the credential nor a secret passed as an argument.
func TestAuditLogHoldsNoSecret(t *testing.T) {
	t.Setenv("NOTES_TEST_TOKEN", "n0tes-planted-credential")
	api := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": 7, "text": "buy milk"}`)
	}))
	t.Cleanup(api.Close)
	audit := filepath.Join(t.TempDir(), "audit.jsonl")
	cat := build(t, fmt.Sprintf(`
builtin: {disabled: true}
policy: {deny: ["notes:createNote"]}
telemetry: {audit: %q, auditArguments: true}
openapi:
  - name: notes
    spec: testdata/notes.yaml
    baseUrl: %s/v1
    secrets: {bearerAuth: NOTES_TEST_TOKEN}
`, audit, api.URL))

	ctx := toolrun.WithRequestInfo(context.Background(), toolrun.RequestInfo{ID: "r1"})
	_, err := cat.Runner.Run(ctx, "notes:getNote", map[string]any{"id": 7})
	require.NoError(t, err)
	_, err = cat.Runner.Run(ctx, "notes:getNote", map[string]any{"id": 7, "api_key": "sk-planted-argument"})
	require.Error(t, err, "an argument the operation does not take")
	_, err = cat.Runner.Run(ctx, "notes:createNote", map[string]any{"text": "call mum"})
	require.Error(t, err, "denied")

	data, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "n0tes-planted-credential")
	assert.NotContains(t, string(data), "sk-planted-argument")
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	require.Len(t, lines, 3, string(data))
	var ran, invalid, denied toolrun.AuditRecord
	require.NoError(t, json.Unmarshal([]byte(lines[0]), &ran))
	require.NoError(t, json.Unmarshal([]byte(lines[1]), &invalid))
	require.NoError(t, json.Unmarshal([]byte(lines[2]), &denied))
	assert.Equal(t, "notes:getNote", ran.Tool)
	assert.Equal(t, "ok", ran.Outcome)
	assert.Equal(t, "r1", ran.Request)
	assert.JSONEq(t, `{"id":7}`, string(ran.Args))
	assert.Equal(t, "validation", invalid.Outcome)
	assert.Empty(t, invalid.Args, "a refused call's arguments are not written")
	assert.Equal(t, "notes:createNote", denied.Tool)
	assert.Equal(t, "permission_denied", denied.Outcome)
}
