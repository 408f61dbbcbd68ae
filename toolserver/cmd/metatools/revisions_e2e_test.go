package main

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// TestUpstreamsOfBothRevisionsInOneCatalogue serves, in one catalogue,
// an upstream of protocol 2026-07-28 (the conformance upstream), one of
// 2025-11-25 (server-everything) and one of 2025-11-25 that never
// answers server/discover: the last costs the discover bound, then is
// reached with initialize, and the tools of all three run.
func TestUpstreamsOfBothRevisionsInOneCatalogue(t *testing.T) {
	everything := everythingServer(t)
	deaf, err := filepath.Abs(filepath.Join("testdata", "deaf-discover.mjs"))
	require.NoError(t, err)
	config := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(config, []byte(fmt.Sprintf(`mcpServers:
  - name: current
    command: %q
  - name: earlier
    command: node
    args: [%q, stdio]
  - name: deaf
    command: node
    args: [%q, node, %q, stdio]
`, conformanceUpstream(t), everything, deaf, everything)), 0o600))

	start := time.Now()
	cs := connectStdio(t, nil, "--config", config)
	waitForUpstreams(t, cs)
	elapsed := time.Since(start)
	for name, u := range upstreams(t, cs) {
		assert.Equal(t, "up", u.State, "%s: %s", name, u.Error)
		assert.Positive(t, u.Tools, name)
	}
	assert.Less(t, elapsed, mcpexec.DefaultDiscoverTimeout+15*time.Second,
		"the deaf upstream costs the discover bound, not the connect timeout (30 s)")

	for id, want := range map[string]string{
		"current:test_simple_text": "This is a simple text response for testing.",
		"earlier:echo":             "Echo: both",
		"deaf:echo":                "Echo: both",
	} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"id": id, "args": map[string]any{"message": "both"}}})
		require.NoError(t, err)
		require.False(t, res.IsError, "%s: %s", id, resultText(res))
		assert.Contains(t, resultText(res), want, id)
	}
}
