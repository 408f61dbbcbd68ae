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

// TestAChainWaitsForInput shows a chain whose second step needs its
// caller's input: the chain ends there, and resuming it with the steps
// done runs that step again with the answers, then the steps after it,
// passing the results on as a chain does.
func TestAChainWaitsForInput(t *testing.T) {
	f := newFixture(t)
	f.registry.Register(toolmodel.BackendLocal, toolrun.ExecutorFunc(func(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
		if call.Tool.Name != "echo" || call.Input == nil || call.Input.State == "asked" {
			if call.Input != nil && call.Input.State == "asked" {
				return toolrun.Output{Structured: call.Input.Responses["name"].(*mcp.ElicitResult).Content}, nil
			}
			return f.local.Execute(ctx, call)
		}
		return toolrun.Output{InputRequired: &toolrun.InputRequired{
			Requests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "name?"}}, State: "asked",
		}}, nil
	}))
	canAnswer := toolrun.CallOptions{Input: &toolrun.Input{}}
	steps := []toolrun.ChainStep{
		{ToolID: "math:add", Args: map[string]any{"a": 1, "b": 2}, Options: canAnswer},
		{ToolID: "demo:echo", Args: map[string]any{"text": "hi"}, Options: canAnswer},
		{ToolID: "demo:fail", UsePrevious: true, Options: canAnswer},
		{ToolID: "math:add", Args: map[string]any{"a": 3, "b": 4}, Options: canAnswer},
	}
	ctx := context.Background()

	done, err := f.runner().RunChain(ctx, steps, toolrun.ContinueOnError())
	require.NoError(t, err)
	require.Len(t, done, 2, "the chain ends at the step that waits")
	require.NotNil(t, done[1].Result.InputRequired)
	assert.Equal(t, "asked", done[1].Result.InputRequired.State)

	steps[1].Options.Input = &toolrun.Input{
		Responses: mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}},
		State:     "asked",
	}
	var progressed []int
	results, err := f.runner().RunChain(ctx, steps, toolrun.ContinueOnError(), toolrun.ResumeChain(done),
		toolrun.WithChainProgress(func(p toolrun.ChainProgress) {
			if p.Result != nil {
				progressed = append(progressed, p.Step)
			}
		}))
	require.Error(t, err, "step 2 fails")
	assert.Contains(t, err.Error(), "chain step 2 (demo:fail)")
	require.Len(t, results, 4)
	assert.Same(t, done[0].Result, results[0].Result, "the step done before stands")
	assert.Equal(t, map[string]any{"name": "Ada"}, results[1].Result.Structured)
	assert.NotNil(t, results[2].Result.ToolError)
	assert.Equal(t, map[string]any{"sum": float64(7)}, results[3].Result.Structured)
	assert.Equal(t, []int{1, 2, 3}, progressed, "only the steps that run now report")

	_, err = f.runner().RunChain(ctx, steps[:1], toolrun.ResumeChain(done))
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "a chain shorter than the steps done cannot resume")
}
