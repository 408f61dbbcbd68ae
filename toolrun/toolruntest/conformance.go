// Package toolruntest checks that an implementation of
// [toolrun.Executor] keeps the contract the runner relies on.
//
// A backend author provides a [Harness]: the executor under test and three
// tools served by it: one that echoes its arguments, one that fails as a
// tool, and one that blocks until its call is canceled. Then:
//
//	func TestConformance(t *testing.T) {
//		toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
//			return toolruntest.Harness{Executor: ..., Echo: ..., Fail: ..., Block: ...}
//		})
//	}
package toolruntest

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// Target is a tool and the backend that serves it.
type Target struct {
	Tool    toolmodel.Tool
	Backend toolmodel.ToolBackend
}

// Harness is what the conformance suite runs against.
type Harness struct {
	// Executor is the executor under test.
	Executor toolrun.Executor
	// Echo is a tool whose result is its arguments: a JSON object equal to
	// them, as Output.Structured.
	Echo Target
	// Fail is a tool that runs and fails: Output.IsError, with the word
	// "boom" in its content or structured result.
	Fail Target
	// Block is a tool that does not return before its call's context is
	// done.
	Block Target
}

// RunExecutorConformance runs the suite. newHarness is called once per
// subtest; resources it starts should be released with t.Cleanup.
func RunExecutorConformance(t *testing.T, newHarness func(t *testing.T) Harness) {
	t.Run("EchoReturnsArguments", func(t *testing.T) {
		h := newHarness(t)
		args := map[string]any{"text": "hello", "n": 3.0, "nested": map[string]any{"ok": true}, "list": []any{"a", 1.0}}
		out, err := h.Executor.Execute(context.Background(), call(h.Echo, args))
		require.NoError(t, err)
		assert.False(t, out.IsError)
		assert.Equal(t, args, out.Structured)
	})
	t.Run("ToolFailureIsAResult", func(t *testing.T) {
		h := newHarness(t)
		out, err := h.Executor.Execute(context.Background(), call(h.Fail, map[string]any{}))
		require.NoError(t, err, "a tool's own failure is an Output, not a Go error")
		assert.True(t, out.IsError)
		assert.Contains(t, describe(out), "boom")
	})
	t.Run("DeadlineIsTimeout", func(t *testing.T) {
		h := newHarness(t)
		ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
		defer cancel()
		_, err := h.Executor.Execute(ctx, call(h.Block, map[string]any{}))
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err), "error: %v", err)
	})
	t.Run("CancelIsCanceled", func(t *testing.T) {
		h := newHarness(t)
		ctx, cancel := context.WithCancel(context.Background())
		// Whether the cancellation lands before or during the call, the
		// result must be the same.
		go cancel()
		_, err := h.Executor.Execute(ctx, call(h.Block, map[string]any{}))
		require.Error(t, err)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err), "error: %v", err)
	})
	t.Run("DoesNotModifyTheCall", func(t *testing.T) {
		h := newHarness(t)
		args := map[string]any{"text": "hello", "nested": map[string]any{"k": "v"}}
		c := call(h.Echo, args)
		_, err := h.Executor.Execute(context.Background(), c)
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"text": "hello", "nested": map[string]any{"k": "v"}}, c.Args)
		assert.True(t, h.Echo.Tool.Equal(c.Tool))
	})
	t.Run("ConcurrentCalls", func(t *testing.T) {
		h := newHarness(t)
		var wg sync.WaitGroup
		for i := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				args := map[string]any{"i": float64(i)}
				out, err := h.Executor.Execute(context.Background(), call(h.Echo, args))
				if assert.NoError(t, err) {
					assert.Equal(t, args, out.Structured)
				}
			}()
		}
		wg.Wait()
	})
}

func call(target Target, args map[string]any) *toolrun.Call {
	return &toolrun.Call{Tool: target.Tool.Clone(), Backend: target.Backend, Args: args}
}

// describe returns the text an Output carries, for checking a message.
func describe(out toolrun.Output) string {
	return toolrun.OutputText(out)
}
