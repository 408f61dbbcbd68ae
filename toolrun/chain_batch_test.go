package toolrun_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

func TestChainPassesPreviousResult(t *testing.T) {
	f := newFixture(t)
	var progress []string
	steps := []toolrun.ChainStep{
		{ToolID: "math:add", Args: map[string]any{"a": 1, "b": 2}},
		{ToolID: "demo:echo", Args: map[string]any{"text": "sum"}, UsePrevious: true},
		{ToolID: "demo:echo", UsePrevious: true, PreviousKey: "input"},
	}
	results, err := f.runner().RunChain(context.Background(), steps, toolrun.WithChainProgress(func(p toolrun.ChainProgress) {
		state := "start"
		if p.Result != nil {
			state = "done"
		}
		progress = append(progress, p.ToolID+" "+state)
		assert.Equal(t, 3, p.Steps)
	}))
	require.NoError(t, err)
	require.Len(t, results, 3)
	assert.Equal(t, map[string]any{"text": "sum", "previous": map[string]any{"sum": 3.0}}, results[1].Result.Structured)
	assert.Equal(t, map[string]any{"input": map[string]any{"text": "sum", "previous": map[string]any{"sum": 3.0}}}, results[2].Result.Structured)
	assert.Equal(t, []string{"math:add start", "math:add done", "demo:echo start", "demo:echo done", "demo:echo start", "demo:echo done"}, progress)
	assert.Equal(t, map[string]any{"text": "sum"}, steps[1].Args, "the step's arguments are not modified")
}

func TestChainStopsOnFirstError(t *testing.T) {
	f := newFixture(t)
	steps := []toolrun.ChainStep{
		{ToolID: "demo:echo"},
		{ToolID: "demo:fail"},
		{ToolID: "demo:echo"},
	}
	results, err := f.runner().RunChain(context.Background(), steps)
	require.ErrorIs(t, err, errors.ErrExecution)
	assert.Contains(t, err.Error(), "chain step 1 (demo:fail)")
	require.Len(t, results, 2)
	require.NoError(t, results[1].Err, "a tool failure is a result")
	require.Error(t, results[1].Result.Err())

	results, err = f.runner().RunChain(context.Background(), steps, toolrun.ContinueOnError())
	require.ErrorIs(t, err, errors.ErrExecution)
	assert.Len(t, results, 3)

	_, err = f.runner().RunChain(context.Background(), []toolrun.ChainStep{{ToolID: "demo:echo", UsePrevious: true}})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestBatchKeepsInputOrder(t *testing.T) {
	f := newFixture(t)
	var calls []toolrun.BatchCall
	for i := range 20 {
		calls = append(calls, toolrun.BatchCall{ToolID: "math:add", Args: map[string]any{"a": i, "b": 0}})
	}
	calls = append(calls, toolrun.BatchCall{ToolID: "demo:fail"}, toolrun.BatchCall{ToolID: "demo:nope"})
	results, err := f.runner().RunBatch(context.Background(), calls, toolrun.WithParallelism(3))
	require.NoError(t, err, "continue mode reports failures per call")
	require.Len(t, results, 22)
	for i := range 20 {
		require.NoError(t, results[i].Err)
		assert.Equal(t, map[string]any{"sum": float64(i)}, results[i].Result.Structured)
	}
	require.ErrorIs(t, results[20].Result.Err(), errors.ErrExecution)
	require.ErrorIs(t, results[21].Err, errors.ErrNotFound)
}

func TestBatchParallelismIsBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var running, peak atomic.Int32
		release := make(chan struct{})
		f.local.Register("demo:block", func(context.Context, map[string]any) (any, error) {
			n := running.Add(1)
			for {
				p := peak.Load()
				if n <= p || peak.CompareAndSwap(p, n) {
					break
				}
			}
			<-release
			running.Add(-1)
			return "done", nil
		})
		calls := make([]toolrun.BatchCall, 10)
		for i := range calls {
			calls[i] = toolrun.BatchCall{ToolID: "demo:block"}
		}
		var results []toolrun.BatchResult
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			results, _ = f.runner().RunBatch(context.Background(), calls, toolrun.WithParallelism(3))
		}()
		synctest.Wait()
		assert.Equal(t, int32(3), running.Load())
		close(release)
		wg.Wait()
		assert.Equal(t, int32(3), peak.Load())
		for _, r := range results {
			assert.Equal(t, "done", r.Result.Structured)
		}
	})
}

func TestBatchAbortCancelsInFlightCalls(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		canceled := make(chan struct{}, 10)
		f.local.Register("demo:block", func(ctx context.Context, _ map[string]any) (any, error) {
			<-ctx.Done()
			canceled <- struct{}{}
			return nil, ctx.Err()
		})
		gate := make(chan struct{})
		f.local.Register("demo:fail", func(context.Context, map[string]any) (any, error) {
			<-gate
			return nil, errors.New("boom")
		})
		calls := []toolrun.BatchCall{{ToolID: "demo:block"}, {ToolID: "demo:block"}, {ToolID: "demo:fail"}, {ToolID: "demo:echo"}, {ToolID: "demo:echo"}}
		var results []toolrun.BatchResult
		var err error
		done := make(chan struct{})
		go func() {
			results, err = f.runner().RunBatch(context.Background(), calls, toolrun.WithParallelism(3), toolrun.WithBatchMode(toolrun.BatchAbortOnError))
			close(done)
		}()
		synctest.Wait() // both blockers and the failing call are in flight
		close(gate)
		<-done
		require.ErrorIs(t, err, errors.ErrExecution)
		assert.Len(t, canceled, 2, "both in-flight calls saw their context canceled")
		for _, i := range []int{0, 1, 3, 4} {
			assert.Equal(t, errors.Canceled, errors.CodeOf(results[i].Err), "call %d: %v", i, results[i].Err)
		}
	})
}

func TestBatchRetryRerunsFailedCalls(t *testing.T) {
	f := newFixture(t)
	f.flaky.Store(1)
	results, err := f.runner().RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:shaky"}, {ToolID: "demo:echo"}},
		toolrun.WithBatchMode(toolrun.BatchRetry))
	require.NoError(t, err)
	assert.Equal(t, "steady", results[0].Result.Structured, "the tool failure of the first round was retried")

	f.flaky.Store(5)
	results, err = f.runner().RunBatch(context.Background(), []toolrun.BatchCall{{ToolID: "demo:shaky"}},
		toolrun.WithBatchMode(toolrun.BatchRetry), toolrun.WithRetryRounds(2))
	require.NoError(t, err)
	require.ErrorIs(t, results[0].Result.Err(), errors.ErrExecution)
	assert.Equal(t, int32(2), f.flaky.Load(), "three rounds ran")
}

func TestRunStream(t *testing.T) {
	f := newFixture(t)
	f.local.Register("demo:echo", func(_ context.Context, args map[string]any) (any, error) {
		return args, nil
	})
	streaming := toolrun.ExecutorFunc(func(_ context.Context, call *toolrun.Call) (toolrun.Output, error) {
		for i := 1; i <= 3; i++ {
			call.OnProgress(toolrun.Progress{Progress: float64(i), Total: 3})
			call.OnChunk(map[string]any{"i": float64(i)})
		}
		return toolrun.Output{Structured: "all sent"}, nil
	})
	f.registry.Register("local", streaming)
	var progress []float64
	events := f.runner().RunStream(context.Background(), "demo:echo", nil, toolrun.CallOptions{OnProgress: func(p toolrun.Progress) {
		progress = append(progress, p.Progress)
	}})
	var kinds []toolrun.StreamEventKind
	var last toolrun.StreamEvent
	for ev := range events {
		kinds = append(kinds, ev.Kind)
		last = ev
	}
	assert.Equal(t, []toolrun.StreamEventKind{"progress", "chunk", "progress", "chunk", "progress", "chunk", "done"}, kinds)
	require.NoError(t, last.Err)
	assert.Equal(t, "all sent", last.Result.Structured)
	assert.Equal(t, []float64{1, 2, 3}, progress, "the caller's own callback still runs")
}

func TestConcurrencyLimit(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		var running, peak atomic.Int32
		release := make(chan struct{})
		f.local.Register("demo:block", func(context.Context, map[string]any) (any, error) {
			n := running.Add(1)
			if n > peak.Load() {
				peak.Store(n)
			}
			<-release
			running.Add(-1)
			return nil, nil
		})
		r := f.runner(toolrun.WithConcurrencyPolicy(toolrun.NewConcurrencyLimit(0, 2)))
		var wg sync.WaitGroup
		for range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := r.Run(context.Background(), "demo:block", nil)
				assert.NoError(t, err)
			}()
		}
		synctest.Wait()
		assert.Equal(t, int32(2), running.Load(), "two per backend")
		close(release)
		wg.Wait()
		assert.Equal(t, int32(2), peak.Load())

		lim := toolrun.NewConcurrencyLimit(1, 0)
		held, err := lim.Acquire(context.Background(), &toolrun.Call{})
		require.NoError(t, err)
		defer held()
		ctx, cancel := context.WithCancel(context.Background())
		go cancel()
		_, err = lim.Acquire(ctx, &toolrun.Call{})
		require.ErrorIs(t, err, context.Canceled, "a full limit waits until the context ends")
	})
}

// A batch whose deadline expires ends the calls it had not started with
// code timeout, not canceled: nobody canceled them.
func TestBatchExpiredDeadlineIsTimeout(t *testing.T) {
	f := newFixture(t)
	ctx, cancel := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancel()
	results, err := f.runner().RunBatch(ctx, []toolrun.BatchCall{{ToolID: "demo:echo"}, {ToolID: "math:add"}})
	require.Error(t, err)
	assert.Equal(t, errors.Timeout, errors.CodeOf(err), "batch error: %v", err)
	require.Len(t, results, 2)
	for i, res := range results {
		require.Error(t, res.Err, "call %d", i)
		assert.Equal(t, errors.Timeout, errors.CodeOf(res.Err), "call %d: %v", i, res.Err)
		assert.ErrorIs(t, res.Err, context.DeadlineExceeded, "call %d", i)
	}
}
