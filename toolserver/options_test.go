package toolserver_test

import (
	"context"
	"fmt"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

func TestImplementationAndInstructions(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithImplementation("acme-tools", "1.2.3"),
		toolserver.WithInstructions("Search before you run.")), nil)
	info := cs.InitializeResult()
	assert.Equal(t, "acme-tools", info.ServerInfo.Name)
	assert.Equal(t, "1.2.3", info.ServerInfo.Version)
	assert.Equal(t, "Search before you run.", info.Instructions)
}

func TestSearchLimit(t *testing.T) {
	c := newCatalogue(t)
	c.opsOptions = []toolops.Option{toolops.WithLimits(toolops.Limits{SearchResults: 2})}
	cs := connect(t, c.server(), nil)
	var out struct {
		Tools      []struct{ ID string }
		NextCursor string
	}
	structured(t, call(t, cs, "search_tools", map[string]any{"query": ""}), &out)
	assert.Len(t, out.Tools, 2, "the default limit")
	assert.NotEmpty(t, out.NextCursor)
	structured(t, call(t, cs, "search_tools", map[string]any{"query": "", "limit": 4}), &out)
	assert.Len(t, out.Tools, 4, "a client's limit wins")
}

func TestCallTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c := newCatalogue(t)
		c.add(t, `{"name":"wait","namespace":"clock","description":"Wait until canceled.","inputSchema":{"type":"object"}}`,
			func(ctx context.Context, _ map[string]any) (any, error) {
				<-ctx.Done()
				return nil, ctx.Err()
			})
		c.runner = toolrun.New(c.registry, toolrun.WithIndex(c.index), toolrun.WithDefaultTimeout(3*time.Second))
		cs := connect(t, c.server(), nil)
		start := time.Now()
		res := call(t, cs, "run_tool", map[string]any{"id": "clock:wait"})
		assert.Equal(t, 3*time.Second, time.Since(start))
		require.True(t, res.IsError)
		assert.Equal(t, errors.Timeout, metaError(t, res).Code)

		res = call(t, cs, "run_tool", map[string]any{"id": "github:create_issue", "args": map[string]any{"title": "t"}})
		assert.False(t, res.IsError, "a quick call is not affected: %s", text(res))
	})
}

func TestMeasureContextCost(t *testing.T) {
	var tools []toolmodel.Tool
	for i := range 60 {
		tool, err := toolmodel.DecodeTool(fmt.Appendf(nil, `{"name":"tool_%d","namespace":"ns%d",
			"description":"Tool number %d does one thing with a record, given its identifier and options.",
			"inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"the record"},
			"options":{"type":"object","properties":{"verbose":{"type":"boolean"},"limit":{"type":"integer"}}}},"required":["id"]}}`, i, i%6, i))
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	cost, err := toolserver.MeasureContextCost(context.Background(), tools, "tool number 7 record", 5)
	require.NoError(t, err)
	assert.Equal(t, 60, cost.Tools)
	for name, c := range map[string]toolserver.Cost{"classic": cost.Classic, "list": cost.MetaList, "search": cost.Search, "describe": cost.Describe} {
		assert.Positive(t, c.Bytes, name)
		assert.Positive(t, c.Tokens, name)
	}
	assert.Equal(t, cost.MetaList.Bytes+cost.Search.Bytes+cost.Describe.Bytes, cost.Meta.Bytes)
	assert.Equal(t, cost.MetaList.Tokens+cost.Search.Tokens+cost.Describe.Tokens, cost.Meta.Tokens)
	assert.InDelta(t, float64(cost.Meta.Bytes)/float64(cost.Classic.Bytes), cost.Ratio, 1e-12)
	assert.Less(t, cost.Meta.Bytes, cost.Classic.Bytes/2, "60 listed tools cost more than the meta-tool path")

	_, err = toolserver.MeasureContextCost(context.Background(), tools, "zzzz qqqq", 5)
	require.ErrorContains(t, err, `search for "zzzz qqqq" found no tool`)

	for _, limit := range []int{0, -1, 101} {
		_, err = toolserver.MeasureContextCost(context.Background(), tools, "record", limit)
		require.ErrorContains(t, err, fmt.Sprintf("the search limit must be 1 to 50, not %d", limit))
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	}
	_, err = toolserver.MeasureContextCost(context.Background(), nil, "record", 5)
	require.ErrorContains(t, err, "no tools to measure")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}
