package toolrun_test

import (
	"context"
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

// errExploded is a panic value that is an error.
var errExploded = errors.New("exploded")

// requirePanicError checks the error of a call whose tool panicked.
func requirePanicError(t *testing.T, err error, toolID, message string) {
	t.Helper()
	require.Error(t, err)
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, errors.Internal, e.Code, "error: %v", err)
	assert.False(t, errors.IsRetryable(err))
	assert.Contains(t, err.Error(), `tool "`+toolID+`"`)
	assert.Contains(t, err.Error(), message)
}

func TestLocalPanicIsAnErrorOfTheCall(t *testing.T) {
	tests := []struct {
		name    string
		fn      toolrun.LocalFunc
		message string
	}{
		{name: "string", fn: func(context.Context, map[string]any) (any, error) { panic("tool exploded") }, message: "panic: tool exploded"},
		{name: "error", fn: func(context.Context, map[string]any) (any, error) { panic(errExploded) }, message: "panic: exploded"},
		{name: "runtime error", fn: func(_ context.Context, args map[string]any) (any, error) {
			return args["list"].([]any)[3], nil // no list: a failed type assertion
		}, message: "panic: interface conversion"},
	}
	paths := []struct {
		name string
		run  func(t *testing.T, r *toolrun.Runner) error
	}{
		{name: "Run", run: func(t *testing.T, r *toolrun.Runner) error {
			res, err := r.Run(context.Background(), "demo:boom", nil)
			assert.Nil(t, res)
			return err
		}},
		{name: "RunStream", run: func(t *testing.T, r *toolrun.Runner) error {
			var last toolrun.StreamEvent
			for ev := range r.RunStream(context.Background(), "demo:boom", nil) {
				last = ev
			}
			assert.Equal(t, toolrun.StreamDone, last.Kind)
			return last.Err
		}},
		{name: "RunChain", run: func(t *testing.T, r *toolrun.Runner) error {
			results, err := r.RunChain(context.Background(), []toolrun.ChainStep{{ToolID: "demo:echo"}, {ToolID: "demo:boom"}, {ToolID: "demo:echo"}})
			require.Len(t, results, 2, "the chain stops at the failed step")
			require.ErrorIs(t, err, results[1].Err)
			return results[1].Err
		}},
		{name: "RunBatch", run: func(t *testing.T, r *toolrun.Runner) error {
			results, err := r.RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:echo"}, {ToolID: "demo:boom"}, {ToolID: "demo:echo"}}, toolrun.WithBatchMode(toolrun.BatchRetry))
			require.NoError(t, err)
			require.Len(t, results, 3)
			require.NoError(t, results[0].Err, "the other calls run")
			require.NoError(t, results[2].Err)
			return results[1].Err
		}},
	}
	for _, tt := range tests {
		for _, p := range paths {
			t.Run(tt.name+"/"+p.name, func(t *testing.T) {
				f := newFixture(t)
				f.add(t, `{"name":"boom","namespace":"demo","inputSchema":{"type":"object"}}`, tt.fn)
				err := p.run(t, f.runner())
				requirePanicError(t, err, "demo:boom", tt.message)
				assert.Contains(t, err.Error(), `(backend local:demo:boom)`)
				if tt.name == "error" {
					require.ErrorIs(t, err, errExploded, "an error panicked with stays in the chain")
				}
			})
		}
	}
}

func TestPanicIsRetriedOnlyAsInternalErrorsAre(t *testing.T) {
	retryAll := toolrun.RetryFunc(func(attempt int, _ error) (time.Duration, bool) { return time.Second, attempt < 3 })
	tests := []struct {
		name     string
		policy   []toolrun.Option
		attempts int32
	}{
		{name: "default policy", attempts: 1},
		{name: "a policy retrying internal errors", policy: []toolrun.Option{toolrun.WithRetryPolicy(retryAll)}, attempts: 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				var calls atomic.Int32
				// Idempotent, so that the rule of SafeToRepeat lets the
				// policy decide.
				f.add(t, `{"name":"boom","namespace":"demo","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
					func(context.Context, map[string]any) (any, error) {
						calls.Add(1)
						panic("tool exploded")
					})
				_, err := f.runner(tt.policy...).Run(context.Background(), "demo:boom", nil)
				requirePanicError(t, err, "demo:boom", "panic: tool exploded")
				assert.Equal(t, tt.attempts, calls.Load())
			})
		})
	}
}

func TestProviderPanicIsAnErrorOfTheCall(t *testing.T) {
	f := newFixture(t)
	tool, _, err := f.index.GetAll(context.Background(), "demo:echo")
	require.NoError(t, err)
	provider := toolrun.NewProviderExecutor()
	provider.Register("crm", toolrun.ProviderFunc(func(context.Context, string, *toolrun.Call) (toolrun.Output, error) {
		panic("provider exploded")
	}))
	f.registry.Register(toolmodel.BackendProvider, provider)
	require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool,
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "crm"}}}))
	_, err = f.runner().Run(context.Background(), "demo:echo", nil, toolrun.CallOptions{Prefer: []toolrun.SelectHint{{Kind: toolmodel.BackendProvider}}})
	requirePanicError(t, err, "demo:echo", "panic: provider exploded")
	assert.Contains(t, err.Error(), "(backend provider:crm)")
}
