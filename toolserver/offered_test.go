package toolserver_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// TestSearchLooksAtABoundedPartOfTheCatalogue lists a namespace of 1,200
// tools of which the policy allows one, near the end: an answer looks at
// 1,000 entries at most, and its cursor goes on from there.
func TestSearchLooksAtABoundedPartOfTheCatalogue(t *testing.T) {
	c := newCatalogue(t)
	ctx := context.Background()
	regs := make([]toolindex.Registration, 1200)
	for i := range regs {
		tool, err := toolmodel.DecodeTool(fmt.Appendf(nil, `{"name":"t%04d","namespace":"bulk","inputSchema":{"type":"object"}}`, i))
		require.NoError(t, err)
		regs[i] = toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}
	}
	require.NoError(t, c.index.RegisterMany(ctx, regs))
	c.runner = toolrun.New(c.registry, toolrun.WithIndex(c.index),
		toolrun.WithAuthorization(toolrun.AllowDeny{Allow: []string{"github:*", "bulk:t1150"}}))
	cs := connect(t, c.server(), nil)

	var out struct {
		Tools      []struct{ ID string }
		NextCursor string
	}
	structured(t, call(t, cs, "search_tools", map[string]any{"query": "", "namespace": "bulk"}), &out)
	assert.Empty(t, out.Tools, "the first 1,000 entries are all denied")
	require.NotEmpty(t, out.NextCursor, "the answer says there is more")

	cursor := out.NextCursor
	out.NextCursor = ""
	structured(t, call(t, cs, "search_tools", map[string]any{"query": "", "namespace": "bulk", "cursor": cursor}), &out)
	require.Len(t, out.Tools, 1)
	assert.Equal(t, "bulk:t1150", out.Tools[0].ID)
	assert.Empty(t, out.NextCursor)

	res := call(t, cs, "search_tools", map[string]any{"query": "", "cursor": cursor + ".5x"})
	assert.True(t, res.IsError, "a cursor the server did not give is refused")
	res = call(t, cs, "search_tools", map[string]any{"query": "", "cursor": ".100"})
	require.True(t, res.IsError)
	assert.Contains(t, text(res), "[invalid_argument]")
	assert.Contains(t, text(res), "is malformed")
}
