package toolcode_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// engineFunc is an engine whose behaviour a test chooses: the executor's
// guarantees must hold whatever an engine does.
type engineFunc struct {
	lang string
	fn   func(ctx context.Context, prog toolcode.Program) (json.RawMessage, error)
}

func (e engineFunc) Language() string { return e.lang }
func (e engineFunc) Execute(ctx context.Context, prog toolcode.Program) (json.RawMessage, error) {
	return e.fn(ctx, prog)
}

func newExecutor(t *testing.T, e toolcode.Engine, opts ...toolcode.Option) *toolcode.Executor {
	t.Helper()
	f := toolcodetest.NewFixture(t)
	return toolcode.New(f.Ops, append([]toolcode.Option{toolcode.WithEngine(e)}, opts...)...)
}

func TestLimitsLower(t *testing.T) {
	base := toolcode.Limits{ToolCalls: 10, ChainSteps: 5, WallTime: time.Second, OutputBytes: 100, Concurrency: 4}
	tests := []struct {
		name string
		req  toolcode.Limits
		want toolcode.Limits
	}{
		{"zero keeps", toolcode.Limits{}, base},
		{"lower wins", toolcode.Limits{ToolCalls: 3, WallTime: time.Millisecond}, toolcode.Limits{ToolCalls: 3, ChainSteps: 5, WallTime: time.Millisecond, OutputBytes: 100, Concurrency: 4}},
		{"higher ignored", toolcode.Limits{ToolCalls: 1000, ChainSteps: 50, WallTime: time.Hour, OutputBytes: 1 << 30, Concurrency: 64}, base},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, base.Lower(tc.req))
		})
	}
}

func TestEngineRegistry(t *testing.T) {
	reg, err := toolcode.NewEngineRegistry(engineFunc{lang: "b"}, engineFunc{lang: "a"})
	require.NoError(t, err)
	assert.Equal(t, []string{"a", "b"}, reg.Languages())
	e, err := reg.Get("a")
	require.NoError(t, err)
	assert.Equal(t, "a", e.Language())

	_, err = reg.Get("cobol")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "[a b]")
	assert.Equal(t, errors.Conflict, errors.CodeOf(reg.Register(engineFunc{lang: "a"})))
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(reg.Register(nil)))
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(reg.Register(engineFunc{})))
}

func TestExecuteRejectsBadRequests(t *testing.T) {
	ok := engineFunc{lang: "javascript", fn: func(context.Context, toolcode.Program) (json.RawMessage, error) {
		return json.RawMessage(`1`), nil
	}}
	x := newExecutor(t, ok, toolcode.WithMaxCodeBytes(10))
	tests := []struct {
		name string
		p    toolcode.ExecuteParams
	}{
		{"unknown language", toolcode.ExecuteParams{Language: "cobol", Code: "1"}},
		{"negative limit", toolcode.ExecuteParams{Code: "1", Limits: toolcode.Limits{ToolCalls: -1}}},
		{"negative timeout", toolcode.ExecuteParams{Code: "1", Timeout: -time.Second}},
		{"code too large", toolcode.ExecuteParams{Code: strings.Repeat("x", 11)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := x.Execute(context.Background(), tc.p)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			require.NotNil(t, res)
		})
	}
	_, err := toolcode.New(nil, toolcode.WithEngine(ok)).Execute(context.Background(), toolcode.ExecuteParams{Code: "1"})
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}

func TestExecuteRecoversEnginePanic(t *testing.T) {
	x := newExecutor(t, engineFunc{lang: "javascript", fn: func(context.Context, toolcode.Program) (json.RawMessage, error) {
		panic("engine bug")
	}})
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "1"})
	require.Error(t, err)
	assert.Equal(t, errors.Internal, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "engine bug")
	assert.NotNil(t, res)
}

func TestExecuteAbandonsAnEngineThatIgnoresTheDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		stuck := engineFunc{lang: "javascript", fn: func(context.Context, toolcode.Program) (json.RawMessage, error) {
			<-release
			return json.RawMessage(`1`), nil
		}}
		x := newExecutor(t, stuck)
		start := time.Now()
		_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "1", Timeout: time.Second})
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
		assert.Less(t, time.Since(start), 2*time.Second)
		close(release)
	})
}

func TestLimitCaughtByTheProgramStillFails(t *testing.T) {
	// An engine that swallows every error from Tools, as a program with
	// try/catch around each call would.
	swallow := engineFunc{lang: "javascript", fn: func(ctx context.Context, prog toolcode.Program) (json.RawMessage, error) {
		for range 5 {
			_, _ = prog.Tools.Run(ctx, "util:echo", map[string]any{})
		}
		return json.RawMessage(`"fine"`), nil
	}}
	x := newExecutor(t, swallow, toolcode.WithLimits(toolcode.Limits{ToolCalls: 2}))
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "1"})
	require.Error(t, err)
	assert.Equal(t, toolcode.LimitToolCalls, toolcode.LimitOf(err))
	assert.Len(t, res.Trace, 2)
	assert.Empty(t, res.Value)
}

// TestInvalidExecutorLimitsFailEveryExecution checks that limits the
// executor cannot apply are not dropped in silence: every execution
// fails, naming them.
func TestInvalidExecutorLimitsFailEveryExecution(t *testing.T) {
	ok := engineFunc{lang: "javascript", fn: func(context.Context, toolcode.Program) (json.RawMessage, error) {
		return json.RawMessage("1"), nil
	}}
	x := newExecutor(t, ok, toolcode.WithLimits(toolcode.Limits{ToolCalls: -1}))
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "1"})
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "limit tool_calls is negative (-1)")

	x = newExecutor(t, ok, toolcode.WithLimits(toolcode.Limits{ToolCalls: -1}), toolcode.WithLimits(toolcode.Limits{ToolCalls: 5}))
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "1"})
	require.NoError(t, err, "the last WithLimits wins")
	assert.Equal(t, 5, res.Limits.ToolCalls)
}
