package mcpexec_test

import (
	"bytes"
	"log/slog"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

func TestAnInvalidToolIsSkippedAndTheOthersKept(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "mixed"}, nil)
	addTools(srv, "alpha", "bad name!", "beta")
	var logs bytes.Buffer
	m := newManager(t, mcpexec.WithServer("mixed", mcpexec.InMemory(srv)),
		mcpexec.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))

	idx := toolindex.New(toolindex.WithSource(m.Source("mixed", "mx")))
	require.NoError(t, idx.Refresh(t.Context()))
	assert.Equal(t, []string{"mx:alpha", "mx:beta"}, toolIDs(t, idx))

	skipped := m.SkippedTools("mixed")
	require.Len(t, skipped, 1)
	assert.Equal(t, "bad name!", skipped[0].Name)
	require.ErrorContains(t, skipped[0].Err, "only ASCII letters")
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "server=mixed")
	assert.Contains(t, logs.String(), `tool="bad name!"`)
	assert.Contains(t, logs.String(), "only ASCII letters")

	idx = toolindex.New()
	require.NoError(t, m.RegisterTools(t.Context(), idx, "mixed", "mx"), "a one-time copy skips the invalid tool too")
	assert.Equal(t, []string{"mx:alpha", "mx:beta"}, toolIDs(t, idx))

	assert.Empty(t, m.SkippedTools("absent"))
}
