package toolrun_test

import (
	"context"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

func TestIsIdempotent(t *testing.T) {
	destructive := true
	httpBackend := func(method string) toolmodel.ToolBackend {
		return toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "https://api.example.com", Method: method}}
	}
	tests := []struct {
		name string
		call toolrun.Call
		want bool
	}{
		{"no annotations", toolrun.Call{Backend: toolrun.LocalBackendFor("f")}, false},
		{"destructive", toolrun.Call{Tool: toolmodel.Tool{Tool: mcp.Tool{Annotations: &mcp.ToolAnnotations{DestructiveHint: &destructive}}}}, false},
		{"read-only", toolrun.Call{Tool: toolmodel.Tool{Tool: mcp.Tool{Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}}}}, true},
		{"idempotent", toolrun.Call{Tool: toolmodel.Tool{Tool: mcp.Tool{Annotations: &mcp.ToolAnnotations{IdempotentHint: true}}}}, true},
		{"declared", toolrun.Call{Idempotent: true}, true},
		{"GET", toolrun.Call{Backend: httpBackend("GET")}, true},
		{"head", toolrun.Call{Backend: httpBackend("head")}, true},
		{"PUT", toolrun.Call{Backend: httpBackend("PUT")}, true},
		{"DELETE", toolrun.Call{Backend: httpBackend("DELETE")}, true},
		{"OPTIONS", toolrun.Call{Backend: httpBackend("OPTIONS")}, true},
		{"POST", toolrun.Call{Backend: httpBackend("POST")}, false},
		{"PATCH", toolrun.Call{Backend: httpBackend("PATCH")}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, toolrun.IsIdempotent(&tt.call))
			assert.Equal(t, tt.want, toolrun.SafeToRepeat(&tt.call, errors.Errorf(errors.Unavailable, "reset")))
			assert.True(t, toolrun.SafeToRepeat(&tt.call, toolrun.MarkNotSent(errors.Errorf(errors.Unavailable, "refused"))),
				"a request that never left may always be sent")
		})
	}
}

func TestNotSentSurvivesTheStageError(t *testing.T) {
	f := newFixture(t)
	f.local.Register("demo:charge", func(context.Context, map[string]any) (any, error) {
		return nil, toolrun.MarkNotSent(errors.Errorf(errors.InvalidArgument, "no such account"))
	})
	_, err := f.runner().Run(context.Background(), "demo:charge", nil)
	require.Error(t, err)
	assert.True(t, toolrun.NotSent(err))
	assert.False(t, toolrun.NotSent(errors.Errorf(errors.Unavailable, "reset")))
	assert.False(t, toolrun.NotSent(nil))
}

// A destructive tool whose backend fails after the call may have reached
// it runs once, whatever the retry policy says.
func TestNonIdempotentCallRunsOnce(t *testing.T) {
	policies := map[string]toolrun.RetryPolicy{
		"default": toolrun.DefaultRetryPolicy(),
		"always":  toolrun.RetryFunc(func(attempt int, _ error) (time.Duration, bool) { return 0, attempt < 5 }),
	}
	for name, policy := range policies {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				f.flaky.Store(10)
				_, err := f.runner(toolrun.WithRetryPolicy(policy)).Run(context.Background(), "demo:charge", nil)
				require.ErrorIs(t, err, errors.ErrUnavailable)
				assert.True(t, errors.IsRetryable(err), "the caller may still decide to retry")
				assert.Equal(t, int32(1), f.charges.Load(), "executed once")
			})
		})
	}
}

// A failure marked as never sent is retried, whatever the tool.
func TestNotSentFailureIsRetried(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var calls atomic.Int32
		f.local.Register("demo:charge", func(context.Context, map[string]any) (any, error) {
			if calls.Add(1) == 1 {
				return nil, toolrun.MarkNotSent(errors.Errorf(errors.Unavailable, "connection refused"))
			}
			return "charged", nil
		})
		res, err := f.runner().Run(context.Background(), "demo:charge", nil)
		require.NoError(t, err)
		assert.Equal(t, "charged", res.Structured)
		assert.Equal(t, 2, res.Attempts)
	})
}

// A tool declared idempotent by the runner's configuration, or by a
// pre-call hook, is retried.
func TestDeclaredIdempotentToolsAreRetried(t *testing.T) {
	declare := map[string]toolrun.Option{
		"WithIdempotentTools": toolrun.WithIdempotentTools("demo:char*"),
		"namespace":           toolrun.WithIdempotentTools("other:x", "demo:*"),
		"pre-call hook": toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, call *toolrun.Call) error {
			call.Idempotent = true
			return nil
		})),
	}
	for name, opt := range declare {
		t.Run(name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				f.flaky.Store(2)
				res, err := f.runner(opt).Run(context.Background(), "demo:charge", nil)
				require.NoError(t, err)
				assert.Equal(t, 3, res.Attempts)
				assert.Equal(t, int32(3), f.charges.Load())
			})
		})
	}
	t.Run("other tools", func(t *testing.T) {
		synctest.Test(t, func(t *testing.T) {
			f := newFixture(t)
			f.flaky.Store(2)
			_, err := f.runner(toolrun.WithIdempotentTools("demo:echo", "other:*")).Run(context.Background(), "demo:charge", nil)
			require.Error(t, err)
			assert.Equal(t, int32(1), f.charges.Load())
		})
	})
}

// A batch's retry rounds follow the same rule: a non-idempotent call that
// failed after it may have reached its backend is not run again; an
// idempotent one and one that failed before its execution are.
func TestBatchRetryRoundsRunOnlyWhatIsSafe(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.flaky.Store(1)
		var shaky atomic.Int32
		f.local.Register("demo:shaky", func(context.Context, map[string]any) (any, error) {
			if shaky.Add(1) == 1 {
				return nil, errors.New("flaked")
			}
			return "steady", nil
		})
		var fails atomic.Int32
		f.local.Register("demo:fail", func(context.Context, map[string]any) (any, error) {
			fails.Add(1)
			return nil, errors.New("boom")
		})
		results, err := f.runner().RunBatch(context.Background(), []toolrun.BatchCall{
			{ToolID: "demo:charge"},
			{ToolID: "demo:shaky"},
			{ToolID: "demo:fail"},
			{ToolID: "demo:echo", Args: map[string]any{"text": 1}},
		}, toolrun.WithBatchMode(toolrun.BatchRetry), toolrun.WithRetryRounds(2))
		require.NoError(t, err)
		require.ErrorIs(t, results[0].Err, errors.ErrUnavailable)
		assert.Equal(t, int32(1), f.charges.Load(), "the destructive call ran once")
		assert.Equal(t, "steady", results[1].Result.Structured, "the idempotent tool's failure was retried")
		require.ErrorIs(t, results[2].Result.Err(), errors.ErrExecution)
		assert.Equal(t, int32(1), fails.Load(), "a tool failure of a tool not known to be idempotent is not retried")
		require.ErrorIs(t, results[3].Err, errors.ErrValidation, "a call refused before its execution may run again, and fails again")
	})
}

func TestDefaultTimeoutNamesTheToolAndTheBackend(t *testing.T) {
	tests := []struct {
		name   string
		opts   []toolrun.Option
		call   []toolrun.CallOptions
		ctx    func(context.Context) (context.Context, context.CancelFunc)
		within string
		wait   time.Duration
	}{
		{name: "runner's default", within: "within 1m0s", wait: toolrun.DefaultCallTimeout},
		{name: "configured", opts: []toolrun.Option{toolrun.WithDefaultTimeout(30 * time.Second)}, within: "within 30s", wait: 30 * time.Second},
		{
			name: "the call's own", opts: []toolrun.Option{toolrun.WithDefaultTimeout(30 * time.Second)},
			call: []toolrun.CallOptions{{Timeout: toolmodel.Duration(5 * time.Second)}}, within: "within 5s", wait: 5 * time.Second,
		},
		{
			name: "the caller's deadline", opts: []toolrun.Option{toolrun.WithDefaultTimeout(0)},
			ctx: func(ctx context.Context) (context.Context, context.CancelFunc) {
				return context.WithTimeout(ctx, 2*time.Second)
			},
			within: "before the caller's deadline", wait: 2 * time.Second,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				f := newFixture(t)
				ctx := context.Background()
				if tt.ctx != nil {
					var cancel context.CancelFunc
					ctx, cancel = tt.ctx(ctx)
					defer cancel()
				}
				start := time.Now()
				_, err := f.runner(tt.opts...).Run(ctx, "demo:block", nil, tt.call...)
				require.Error(t, err)
				assert.Equal(t, errors.Timeout, errors.CodeOf(err), "error: %v", err)
				require.ErrorIs(t, err, context.DeadlineExceeded)
				assert.Equal(t, `execute: tool "demo:block" (backend local:demo:block): no answer from local function "demo:block" `+tt.within, err.Error())
				assert.Equal(t, tt.wait, time.Since(start))
			})
		})
	}
}
