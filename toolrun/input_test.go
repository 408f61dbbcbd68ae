package toolrun_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// TestInputRequired shows a tool that needs its caller's input: a caller
// that can answer gets the requests and the state in the result, and the
// executor gets its answers and that state on the retry; any other
// caller's call fails, naming what the tool asked for.
func TestInputRequired(t *testing.T) {
	f := newFixture(t)
	var seen []*toolrun.Input
	f.registry.Register(toolmodel.BackendLocal, toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
		seen = append(seen, call.Input)
		if call.Input != nil && call.Input.State == "asked" {
			return toolrun.Output{Structured: call.Input.Responses["name"].(*mcp.ElicitResult).Content}, nil
		}
		return toolrun.Output{InputRequired: &toolrun.InputRequired{
			Requests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "name?"}, "roots": &mcp.ListRootsParams{}},
			State:    "asked",
		}}, nil
	}))
	ctx := context.Background()

	res, err := f.runner().Run(ctx, "demo:echo", nil, toolrun.CallOptions{Input: &toolrun.Input{}})
	require.NoError(t, err)
	require.NotNil(t, res.InputRequired)
	assert.Equal(t, "asked", res.InputRequired.State)
	assert.Len(t, res.InputRequired.Requests, 2)
	assert.Nil(t, res.Structured)
	assert.Nil(t, res.ToolError)

	answer := &toolrun.Input{Responses: mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}, State: "asked"}
	res, err = f.runner().Run(ctx, "demo:echo", nil, toolrun.CallOptions{Input: answer})
	require.NoError(t, err)
	assert.Nil(t, res.InputRequired)
	assert.Equal(t, map[string]any{"name": "Ada"}, res.Structured)

	_, err = f.runner().Run(ctx, "demo:echo", nil)
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "the server needs input from the caller (elicitation/create, roots/list), which this caller cannot give")
	assert.Equal(t, []*toolrun.Input{{}, answer, nil}, seen, "the executor sees what the caller gave")
}
