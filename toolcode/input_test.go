package toolcode_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// askingExecutor runs programs over two tools: ask:name, which asks its
// caller for a name and then answers with it, and count:tick, which
// counts its runs in ticks.
func askingExecutor(t *testing.T) (*toolcode.Executor, *atomic.Int64) {
	t.Helper()
	idx := toolindex.New()
	for _, js := range []string{
		`{"name":"name","namespace":"ask","inputSchema":{"type":"object"}}`,
		`{"name":"tick","namespace":"count","inputSchema":{"type":"object"}}`,
	} {
		tool, err := toolmodel.DecodeTool([]byte(js))
		require.NoError(t, err)
		require.NoError(t, idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}))
	}
	ticks := new(atomic.Int64)
	exec := toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
		if call.Tool.Name == "tick" {
			return toolrun.Output{Structured: map[string]any{"n": ticks.Add(1)}}, nil
		}
		if call.Input != nil && call.Input.State == "asked" {
			return toolrun.Output{Structured: call.Input.Responses["name"].(*mcp.ElicitResult).Content["name"]}, nil
		}
		return toolrun.Output{InputRequired: &toolrun.InputRequired{
			Requests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "name?"}}, State: "asked"}}, nil
	})
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: exec}), toolrun.WithIndex(idx))
	ops, err := toolops.New(idx, nil, runner)
	require.NoError(t, err)
	return toolcode.New(ops, toolcode.WithEngine(javascript.New())), ticks
}

var adaAnswers = mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}

// TestAProgramAsksItsCallerForInput shows a program whose tool needs its
// caller's input, directly and as a chain's step: each attempt stops
// there, even when the program catches the error, with the tool's
// requests and a sealed state, and the retry runs the program again, the
// calls made before returning what they returned without running again,
// until the program returns.
func TestAProgramAsksItsCallerForInput(t *testing.T) {
	x, ticks := askingExecutor(t)
	ctx := context.Background()
	p := toolcode.ExecuteParams{Code: `
		const a = await tools.count.tick({});
		let name;
		try { name = await tools.ask.name({}); } catch (e) { return "caught"; }
		const [b, asked] = await tools.chain([{id: "count:tick"}, {id: "ask:name"}]);
		console.log("hello " + name + " and " + asked);
		return {a: a.n, name, b: b.n, asked};`}
	attempt := func(in *toolops.Input) *toolcode.Result {
		t.Helper()
		p.Input = in
		res, err := x.Execute(ctx, p)
		require.NoError(t, err)
		return res
	}

	res := attempt(&toolops.Input{})
	require.NotNil(t, res.InputRequired, "the program stops at the tool, though it catches the error")
	first := res.InputRequired.State
	assert.Contains(t, res.InputRequired.Requests, "name")
	assert.Empty(t, res.Value)
	assert.EqualValues(t, 1, ticks.Load())

	res = attempt(&toolops.Input{Responses: adaAnswers, State: res.InputRequired.State})
	require.NotNil(t, res.InputRequired, "the chain's step asks in its turn")
	assert.EqualValues(t, 2, ticks.Load(), "the first tick did not run again; the chain's did")

	res = attempt(&toolops.Input{Responses: adaAnswers, State: res.InputRequired.State})
	require.Nil(t, res.InputRequired)
	assert.JSONEq(t, `{"a":1,"name":"Ada","b":2,"asked":"Ada"}`, string(res.Value))
	assert.EqualValues(t, 2, ticks.Load(), "no call ran twice")
	assert.Equal(t, []string{"hello Ada and Ada"}, res.Logs)
	var replayed []bool
	for _, c := range res.Trace {
		replayed = append(replayed, c.Replayed)
	}
	assert.Equal(t, []bool{true, true, false, false}, replayed,
		"tick and ask:name ran in earlier attempts; the chain resumed at its step that waited, with its first step's result")
	assert.Equal(t, "count:tick", res.Trace[2].ToolID)
	assert.True(t, res.Trace[3].OK)

	_, err := x.Execute(ctx, toolcode.ExecuteParams{Code: p.Code + "\n// another program", Input: &toolops.Input{Responses: adaAnswers, State: first}})
	require.ErrorIs(t, err, toolops.ErrRequestState, "a state is for its own program only")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))

	_, err = x.Execute(ctx, toolcode.ExecuteParams{Code: `return await tools.ask.name({});`})
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err), "a caller that cannot answer gets an error")
}
