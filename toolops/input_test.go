package toolops_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// asking is a catalogue of one tool, ask:name, that asks its caller for a
// name and then answers with it; seen records what its executor was
// given.
type asking struct {
	index  *toolindex.MemoryIndex
	runner *toolrun.Runner
	seen   []*toolrun.Input
}

func newAsking(t testing.TB) *asking {
	a := &asking{index: toolindex.New()}
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"name","namespace":"ask","inputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	require.NoError(t, a.index.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("ask:name")}))
	exec := toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
		a.seen = append(a.seen, call.Input)
		if call.Input != nil && call.Input.State == "asked" {
			return toolrun.Output{Structured: call.Input.Responses["name"].(*mcp.ElicitResult).Content["name"]}, nil
		}
		return toolrun.Output{InputRequired: &toolrun.InputRequired{
			Requests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "name?"}}, State: "asked"}}, nil
	})
	a.runner = toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: exec}), toolrun.WithIndex(a.index))
	return a
}

func (a *asking) ops(t *testing.T, opts ...toolops.Option) *toolops.Service {
	ops, err := toolops.New(a.index, nil, a.runner, opts...)
	require.NoError(t, err)
	return ops
}

var ada = mcp.InputResponseMap{"name": &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}}

// ask runs ask:name once for a caller that can answer, and returns the
// state its result carries.
func ask(ctx context.Context, t testing.TB, ops *toolops.Service, args map[string]any) string {
	t.Helper()
	res, err := ops.Run(ctx, toolops.RunRequest{ID: "ask:name", Args: args, Input: &toolops.Input{}})
	require.NoError(t, err)
	require.NotNil(t, res.InputRequired)
	assert.Contains(t, res.InputRequired.Requests, "name")
	return res.InputRequired.State
}

// TestAToolAsksItsCallerForInput shows the round trip of a tool that
// needs its caller's input: the state the caller gets is the service's
// (sealed), never the executor's, and the executor gets its own back
// with the caller's answers on the retry.
func TestAToolAsksItsCallerForInput(t *testing.T) {
	a := newAsking(t)
	ops := a.ops(t)
	ctx := context.Background()

	state := ask(ctx, t, ops, nil)
	assert.NotContains(t, state, "asked", "the executor's state is not shown as it is")
	res, err := ops.Run(ctx, toolops.RunRequest{ID: "ask:name", Input: &toolops.Input{Responses: ada, State: state}})
	require.NoError(t, err)
	assert.Nil(t, res.InputRequired)
	assert.Equal(t, "Ada", res.Structured)
	require.Len(t, a.seen, 2)
	assert.Equal(t, &toolrun.Input{}, a.seen[0])
	assert.Equal(t, &toolrun.Input{Responses: ada, State: "asked"}, a.seen[1])

	// A caller that cannot answer is told why the call cannot go on.
	_, err = ops.Run(ctx, toolops.RunRequest{ID: "ask:name"})
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "elicitation/create")
	// So is a chain, which cannot relay a step's requests.
	_, err = ops.Chain(ctx, toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "ask:name"}}})
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err))
}

// TestTheStateOfACallIsItsOwn shows that a state comes back only as it
// was given, for the same call of the same caller, to a service that
// holds the key it was sealed with: anything else is refused before the
// tool runs, with the cause ErrRequestState.
func TestTheStateOfACallIsItsOwn(t *testing.T) {
	a := newAsking(t)
	ops := a.ops(t)
	alice := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"subject": "alice"}})
	bob := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"subject": "bob"}})
	state := ask(alice, t, ops, map[string]any{"n": 1})

	for _, c := range []struct {
		name, state, why string
		ctx              context.Context
		args             map[string]any
		ops              *toolops.Service
	}{
		{"tampered", state + "-TAMPERED", "is not one this server issued, or was changed", alice, map[string]any{"n": 1}, ops},
		{"not a state", "hello", "is not one this server issued, or was changed", alice, map[string]any{"n": 1}, ops},
		{"other arguments", state, "belongs to another request", alice, map[string]any{"n": 2}, ops},
		{"another caller", state, "belongs to another request", bob, map[string]any{"n": 1}, ops},
		{"another server's key", state, "is not one this server issued", alice, map[string]any{"n": 1}, a.ops(t)},
	} {
		t.Run(c.name, func(t *testing.T) {
			ran := len(a.seen)
			_, err := c.ops.Run(c.ctx, toolops.RunRequest{ID: "ask:name", Args: c.args, Input: &toolops.Input{Responses: ada, State: c.state}})
			require.ErrorIs(t, err, toolops.ErrRequestState)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.Contains(t, err.Error(), c.why)
			assert.Len(t, a.seen, ran, "the tool did not run")
		})
	}
}

// TestTheStateOfAnyRequest shows the sealing a face uses for requests
// other than runs (an upstream's prompts): a state opens for the same
// request of the same caller only, and a run's state is no prompt's.
func TestTheStateOfAnyRequest(t *testing.T) {
	a := newAsking(t)
	ops := a.ops(t)
	alice := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"subject": "alice"}})
	bob := toolops.WithCaller(context.Background(), toolops.Caller{Metadata: map[string]string{"subject": "bob"}})
	type prompt struct{ Server, Name string }
	sealed, err := ops.SealState(alice, prompt{"docs", "summarize"}, "upstream state")
	require.NoError(t, err)
	raw, err := base64.RawURLEncoding.DecodeString(sealed)
	require.NoError(t, err)
	assert.NotContains(t, string(raw), "upstream state", "the state is sealed: its holder cannot read it")

	got, err := ops.OpenState(alice, prompt{"docs", "summarize"}, sealed)
	require.NoError(t, err)
	assert.Equal(t, "upstream state", got)

	for name, open := range map[string]func() (string, error){
		"another prompt": func() (string, error) { return ops.OpenState(alice, prompt{"docs", "translate"}, sealed) },
		"another caller": func() (string, error) { return ops.OpenState(bob, prompt{"docs", "summarize"}, sealed) },
		"a run's state": func() (string, error) {
			return ops.OpenState(alice, prompt{"docs", "summarize"}, ask(alice, t, ops, map[string]any{"n": 1}))
		},
	} {
		_, err := open()
		require.ErrorIs(t, err, toolops.ErrRequestState, name)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), name)
		assert.Contains(t, err.Error(), "belongs to another request", name)
	}
}

// TestReplicasShareTheStateKey shows two services given the same key, as
// replicas behind a load balancer are: the retry of a call one of them
// answered is accepted by the other.
func TestReplicasShareTheStateKey(t *testing.T) {
	a := newAsking(t)
	key := bytes.Repeat([]byte("k"), toolops.MinStateKeyBytes)
	one, other := a.ops(t, toolops.WithStateKey(key)), a.ops(t, toolops.WithStateKey(key))
	ctx := context.Background()
	state := ask(ctx, t, one, nil)
	res, err := other.Run(ctx, toolops.RunRequest{ID: "ask:name", Input: &toolops.Input{Responses: ada, State: state}})
	require.NoError(t, err)
	assert.Equal(t, "Ada", res.Structured)

	_, err = toolops.New(a.index, nil, a.runner, toolops.WithStateKey([]byte("short")))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the state key has 5 bytes: it needs at least 32")
}

// TestTheStateExpires shows that a state is refused once InputStateTTL
// has passed.
func TestTheStateExpires(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		a := newAsking(t)
		ops := a.ops(t)
		ctx := context.Background()
		state := ask(ctx, t, ops, nil)
		time.Sleep(toolops.InputStateTTL + time.Second)
		_, err := ops.Run(ctx, toolops.RunRequest{ID: "ask:name", Input: &toolops.Input{Responses: ada, State: state}})
		require.ErrorIs(t, err, toolops.ErrRequestState)
		assert.Contains(t, err.Error(), "has expired")
	})
}

// FuzzRequestState gives a retry any state: a state the service did not
// make is refused with ErrRequestState, never a panic, and the tool does
// not run.
func FuzzRequestState(f *testing.F) {
	a := newAsking(f)
	ops, err := toolops.New(a.index, nil, a.runner)
	require.NoError(f, err)
	valid := ask(context.Background(), f, ops, nil)
	f.Add(valid + "x")
	f.Add("e30.")
	f.Add(".")
	f.Add("eyJjIjoiIiwieCI6MH0.AAAA")
	f.Fuzz(func(t *testing.T, state string) {
		if state == valid || state == "" {
			return
		}
		ran := len(a.seen)
		_, err := ops.Run(context.Background(), toolops.RunRequest{ID: "ask:name", Input: &toolops.Input{State: state}})
		require.ErrorIs(t, err, toolops.ErrRequestState)
		assert.Len(t, a.seen, ran)
	})
}

// TestAChainAsksItsCallerForInput shows a chain of two steps that each
// need their caller's input: each attempt ends at the step that waits,
// with a state the service seals, and the retry goes on from that step,
// the steps before it standing, until the chain is done.
func TestAChainAsksItsCallerForInput(t *testing.T) {
	a := newAsking(t)
	ops := a.ops(t)
	ctx := context.Background()
	chain := toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "ask:name"}, {ID: "ask:name", UsePrevious: true}}}
	attempt := func(in *toolops.Input) []toolrun.StepResult {
		t.Helper()
		chain.Input = in
		results, err := ops.Chain(ctx, chain)
		require.NoError(t, err)
		return results
	}

	results := attempt(&toolops.Input{})
	require.Len(t, results, 1)
	waiting := results[0].Result.InputRequired
	require.NotNil(t, waiting)
	assert.Contains(t, waiting.Requests, "name")

	results = attempt(&toolops.Input{Responses: ada, State: waiting.State})
	require.Len(t, results, 2)
	assert.Equal(t, "Ada", results[0].Result.Structured)
	waiting = results[1].Result.InputRequired
	require.NotNil(t, waiting, "the second step asks in its turn")

	results = attempt(&toolops.Input{Responses: ada, State: waiting.State})
	require.Len(t, results, 2)
	assert.Equal(t, "Ada", results[0].Result.Structured, "the first step's result stands")
	assert.Equal(t, "Ada", results[1].Result.Structured)
	assert.Nil(t, results[1].Result.InputRequired)
	answered := &toolrun.Input{Responses: ada, State: "asked"}
	assert.Equal(t, []*toolrun.Input{{}, answered, {}, answered}, a.seen, "no step runs again once done")

	other := toolops.ChainRequest{Steps: []toolops.ChainStep{{ID: "ask:name"}}, Input: &toolops.Input{Responses: ada, State: waiting.State}}
	_, err := ops.Chain(ctx, other)
	require.ErrorIs(t, err, toolops.ErrRequestState, "a state is for its own chain only")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))

	chain.Input = nil
	results, err = ops.Chain(ctx, chain)
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err), "a caller that cannot answer gets an error")
	assert.Len(t, results, 1)
}

// TestAStateTooLargeToCarry shows that a state a retry could not carry
// is refused, saying why.
func TestAStateTooLargeToCarry(t *testing.T) {
	ops := newAsking(t).ops(t)
	_, err := ops.SealState(context.Background(), "request", strings.Repeat("x", toolops.MaxStateBytes+1))
	require.Error(t, err)
	assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "more than a retry may carry")
	_, err = ops.SealState(context.Background(), "request", strings.Repeat("x", toolops.MaxStateBytes))
	require.NoError(t, err)
}
