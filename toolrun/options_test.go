package toolrun_test

import (
	"context"
	"encoding/json"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// The runner's selector is the one that chooses the backend of a run,
// with the call's preferences; the index only stores the backends.
func TestConfiguredSelectorChoosesTheRunsBackend(t *testing.T) {
	f := newFixture(t)
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"pick","namespace":"demo","inputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	for _, name := range []string{"pick.a", "pick.b"} {
		f.local.Register(name, func(context.Context, map[string]any) (any, error) { return name, nil })
		require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(name)}))
	}
	prefer := []toolrun.SelectHint{{Kind: toolmodel.BackendLocal}}

	res, err := f.runner().Run(context.Background(), "demo:pick", nil, toolrun.CallOptions{Prefer: prefer})
	require.NoError(t, err)
	assert.Equal(t, "pick.a", res.Structured, "by default, the first registered backend of the best kind")

	var gotHints []toolrun.SelectHint
	var gotBackends int
	last := toolrun.BackendSelectorFunc(func(_ context.Context, _ *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []toolrun.SelectHint) (toolmodel.ToolBackend, error) {
		gotHints, gotBackends = hints, len(backends)
		return backends[len(backends)-1], nil
	})
	res, err = f.runner(toolrun.WithSelector(last)).Run(context.Background(), "demo:pick", nil, toolrun.CallOptions{Prefer: prefer})
	require.NoError(t, err)
	assert.Equal(t, "pick.b", res.Structured, "the configured selector's choice runs")
	assert.Equal(t, toolrun.LocalBackendFor("pick.b"), res.Backend)
	assert.Equal(t, prefer, gotHints, "the selector receives the call's preferences")
	assert.Equal(t, 2, gotBackends, "the selector sees every backend")

	refuse := toolrun.BackendSelectorFunc(func(context.Context, *toolmodel.Tool, []toolmodel.ToolBackend, []toolrun.SelectHint) (toolmodel.ToolBackend, error) {
		return toolmodel.ToolBackend{}, errors.Errorf(errors.PermissionDenied, "not this one")
	})
	_, err = f.runner(toolrun.WithSelector(refuse)).Run(context.Background(), "demo:pick", nil)
	require.ErrorIs(t, err, errors.ErrPermissionDenied)
	assert.Contains(t, err.Error(), toolrun.OpSelectBackend)
}

// Per-call options are plain data: they travel as JSON within a chain's
// steps and a batch's calls, without their callbacks.
func TestCallOptionsJSON(t *testing.T) {
	steps := []toolrun.ChainStep{{ToolID: "demo:echo", Options: toolrun.CallOptions{
		Prefer:         []toolrun.SelectHint{{Backend: "local:demo:echo"}, {Kind: toolmodel.BackendMCP}},
		Timeout:        toolmodel.Duration(1500 * time.Millisecond),
		Metadata:       map[string]string{"user": "ada"},
		SkipValidation: true,
		OnProgress:     func(toolrun.Progress) {},
	}}, {ToolID: "math:add"}}
	data, err := json.Marshal(steps)
	require.NoError(t, err)
	assert.JSONEq(t, `[{"toolId":"demo:echo","options":{"prefer":[{"backend":"local:demo:echo"},{"kind":"mcp"}],
		"timeout":"1.5s","metadata":{"user":"ada"},"skipValidation":true}},{"toolId":"math:add"}]`, string(data))

	var back []toolrun.ChainStep
	require.NoError(t, json.Unmarshal(data, &back))
	steps[0].Options.OnProgress = nil
	assert.Equal(t, steps, back)

	var calls []toolrun.BatchCall
	require.NoError(t, json.Unmarshal([]byte(`[{"toolId":"demo:echo","args":{"text":"hi"},"options":{"timeout":"2s"}}]`), &calls))
	assert.Equal(t, []toolrun.BatchCall{{ToolID: "demo:echo", Args: map[string]any{"text": "hi"}, Options: toolrun.CallOptions{Timeout: toolmodel.Duration(2 * time.Second)}}}, calls)
}

func TestMoreThanOneCallOptionsIsRefused(t *testing.T) {
	f := newFixture(t)
	_, err := f.runner().Run(context.Background(), "demo:echo", nil, toolrun.CallOptions{}, toolrun.CallOptions{})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Contains(t, err.Error(), "at most one")

	var last toolrun.StreamEvent
	for ev := range f.runner().RunStream(context.Background(), "demo:echo", nil, toolrun.CallOptions{}, toolrun.CallOptions{}) {
		last = ev
	}
	assert.Equal(t, toolrun.StreamDone, last.Kind)
	require.ErrorIs(t, last.Err, errors.ErrInvalidArgument)
}

// The attempts a failing call gets under the defaults, as the package
// documentation states them: [toolrun.DefaultRetryPolicy]'s 3 per run,
// and with [toolrun.BatchRetry] one more run per retry round (1 by
// default), so 6.
func TestAttemptsUnderTheDefaults(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var executions atomic.Int32
		failing := toolrun.ExecutorFunc(func(context.Context, *toolrun.Call) (toolrun.Output, error) {
			executions.Add(1)
			// Retryable, and provably not sent: nothing stops a retry
			// but the number of attempts.
			return toolrun.Output{}, toolrun.MarkNotSent(errors.Errorf(errors.Unavailable, "connection refused"))
		})
		idx := toolindex.New()
		tool, err := toolmodel.DecodeTool([]byte(`{"name":"down","namespace":"demo","inputSchema":{"type":"object"}}`))
		require.NoError(t, err)
		backend := toolmodel.ToolBackend{Kind: "queue", Config: map[string]string{"source": "q"}}
		require.NoError(t, idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: backend}))
		runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{"queue": failing}), toolrun.WithIndex(idx))

		_, err = runner.Run(context.Background(), "demo:down", nil)
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.Equal(t, int32(toolrun.DefaultRetryPolicy().MaxAttempts), executions.Load(), "Run")
		assert.Equal(t, int32(3), executions.Load(), "Run")

		executions.Store(0)
		results, err := runner.RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:down"}}, toolrun.WithBatchMode(toolrun.BatchRetry))
		require.NoError(t, err)
		require.ErrorIs(t, results[0].Err, errors.ErrUnavailable)
		assert.Equal(t, int32(6), executions.Load(), "RunBatch with BatchRetry")

		executions.Store(0)
		_, err = runner.RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:down"}})
		require.NoError(t, err)
		assert.Equal(t, int32(3), executions.Load(), "RunBatch with BatchContinue")
	})
}

// TestNilOptionsChangeNothing gives every option of the runner nil: the
// runner keeps its defaults and runs calls as without them.
func TestNilOptionsChangeNothing(t *testing.T) {
	f := newFixture(t)
	r := toolrun.New(f.registry, toolrun.WithIndex(f.index), nil,
		toolrun.WithResolver(nil), toolrun.WithSelector(nil), toolrun.WithValidator(nil),
		toolrun.WithRetryPolicy(nil), toolrun.WithConcurrencyPolicy(nil), toolrun.WithExtension(nil),
		toolrun.WithHook(nil), toolrun.WithPreCall(nil), toolrun.WithPostCall(nil),
		toolrun.WithAuthorization(nil), toolrun.WithMasker(nil), toolrun.WithEventPublisher(nil))
	ctx := context.Background()
	res, err := r.Run(ctx, "demo:echo", map[string]any{"text": "hi"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"text": "hi"}, res.Structured)
	_, err = r.Run(ctx, "demo:echo", map[string]any{"text": 1})
	assert.Equal(t, errors.Validation, errors.CodeOf(err), "the default validator still validates: %v", err)

	_, err = toolrun.New(nil, toolrun.WithIndex(f.index)).Run(ctx, "demo:echo", nil)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err), "a runner without executors: %v", err)

	f.local.Register("demo:echo", nil)
	_, err = r.Run(ctx, "demo:echo", nil)
	assert.Equal(t, errors.NotFound, errors.CodeOf(err), "a function registered as nil is removed: %v", err)
	f.registry.Register(toolmodel.BackendLocal, nil)
	_, err = r.Run(ctx, "demo:echo", nil)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err), "an executor registered as nil is removed: %v", err)
}
