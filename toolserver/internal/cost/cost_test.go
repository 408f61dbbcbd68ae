package cost

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolserver"
)

// TestResultError shows that the error of a meta-tool's error result, as
// a client session receives it (its _meta decoded from JSON), is the error
// the server had, code included.
func TestResultError(t *testing.T) {
	raw, err := json.Marshal(&mcp.CallToolResult{IsError: true, Meta: mcp.Meta{toolserver.MetaErrorKey: errors.ToWire(errors.Errorf(errors.InvalidArgument, "limit: 101 is more than 100"))}})
	require.NoError(t, err)
	var received mcp.CallToolResult
	require.NoError(t, json.Unmarshal(raw, &received))

	got := resultError(&received)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(got))
	require.EqualError(t, got, "limit: 101 is more than 100")

	got = resultError(&mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no meta"}}})
	assert.Equal(t, errors.Internal, errors.CodeOf(got))
}

func TestMeasure(t *testing.T) {
	var tools []toolmodel.Tool
	for i := range 60 {
		tool, err := toolmodel.DecodeTool(fmt.Appendf(nil, `{"name":"tool_%d","namespace":"ns%d",
			"description":"Tool number %d does one thing with a record, given its identifier and options.",
			"inputSchema":{"type":"object","properties":{"id":{"type":"string","description":"the record"},
			"options":{"type":"object","properties":{"verbose":{"type":"boolean"},"limit":{"type":"integer"}}}},"required":["id"]}}`, i, i%6, i))
		require.NoError(t, err)
		tools = append(tools, tool)
	}
	cost, err := Measure(context.Background(), tools, "tool number 7 record", 5)
	require.NoError(t, err)
	assert.Equal(t, 60, cost.Tools)
	for name, c := range map[string]Cost{"classic": cost.Classic, "list": cost.MetaList, "search": cost.Search, "describe": cost.Describe} {
		assert.Positive(t, c.Bytes, name)
		assert.Positive(t, c.Tokens, name)
	}
	assert.Equal(t, cost.MetaList.Bytes+cost.Search.Bytes+cost.Describe.Bytes, cost.Meta.Bytes)
	assert.Equal(t, cost.MetaList.Tokens+cost.Search.Tokens+cost.Describe.Tokens, cost.Meta.Tokens)
	assert.InDelta(t, float64(cost.Meta.Bytes)/float64(cost.Classic.Bytes), cost.Ratio, 1e-12)
	assert.Less(t, cost.Meta.Bytes, cost.Classic.Bytes/2, "60 listed tools cost more than the meta-tool path")

	_, err = Measure(context.Background(), tools, "zzzz qqqq", 5)
	require.ErrorContains(t, err, `search for "zzzz qqqq" found no tool`)

	for _, limit := range []int{0, -1, 101} {
		_, err = Measure(context.Background(), tools, "record", limit)
		require.ErrorContains(t, err, fmt.Sprintf("the search limit must be 1 to 50, not %d", limit))
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	}
	_, err = Measure(context.Background(), nil, "record", 5)
	require.ErrorContains(t, err, "no tools to measure")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}
