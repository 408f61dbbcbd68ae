package mcpexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
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
	assert.Contains(t, logs.String(), `first="bad name!"`)
	assert.Contains(t, logs.String(), "only ASCII letters")

	idx = toolindex.New()
	require.NoError(t, m.RegisterTools(t.Context(), idx, "mixed", "mx"), "a one-time copy skips the invalid tool too")
	assert.Equal(t, []string{"mx:alpha", "mx:beta"}, toolIDs(t, idx))

	assert.Empty(t, m.SkippedTools("absent"))
}

// TestAServerCannotMakeTheGatewayHoldWithoutBound lists more tools than a
// server may have, and a tool larger than a definition may be: the tools
// within the limits are kept, the others left out and reported, and one
// warning says so, not one line per tool.
func TestAServerCannotMakeTheGatewayHoldWithoutBound(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "hostile"}, nil)
	names := make([]string, 50)
	for i := range names {
		names[i] = fmt.Sprintf("t%03d", i)
	}
	addTools(srv, names...)
	srv.AddTool(&mcp.Tool{Name: "huge", Description: strings.Repeat("x", 100_000), InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{}, nil
		})
	var logs bytes.Buffer
	m := newManager(t, mcpexec.WithServer("hostile", mcpexec.InMemory(srv)), mcpexec.WithToolLimits(20, 10_000),
		mcpexec.WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))

	idx := toolindex.New(toolindex.WithSource(m.Source("hostile", "h")))
	require.NoError(t, idx.Refresh(t.Context()))
	ids := toolIDs(t, idx)
	assert.Len(t, ids, 19, "the first 20 tools listed are read, of which huge is too large")
	skipped := m.SkippedTools("hostile")
	require.Len(t, skipped, 2)
	require.ErrorIs(t, skipped[0].Err, errors.ErrResourceExhausted)
	assert.Contains(t, skipped[0].Err.Error(), "more than 20 tools")
	assert.Equal(t, 1, strings.Count(logs.String(), "level=WARN"), "one warning: %s", logs.String())

	// A tool larger than a definition may be is skipped, the others kept.
	m = newManager(t, mcpexec.WithServer("hostile", mcpexec.InMemory(srv)), mcpexec.WithToolLimits(100, 10_000))
	idx = toolindex.New(toolindex.WithSource(m.Source("hostile", "h")))
	require.NoError(t, idx.Refresh(t.Context()))
	assert.Len(t, toolIDs(t, idx), 50)
	skipped = m.SkippedTools("hostile")
	require.Len(t, skipped, 1)
	assert.Equal(t, "huge", skipped[0].Name)
	assert.Contains(t, skipped[0].Err.Error(), "the tool's definition is 1000")
	assert.Contains(t, skipped[0].Err.Error(), "bytes, the most is 10000")
}
