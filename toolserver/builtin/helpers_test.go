package builtin_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

// fixedNow is the clock of the tests: Sunday 10 March 2024, 14:30 UTC.
var fixedNow = time.Date(2024, 3, 10, 14, 30, 0, 0, time.UTC)

func fixedClock() time.Time { return fixedNow }

// harness runs the catalogue through a real runner over a real index.
type harness struct {
	tools  []builtin.Tool
	index  *toolindex.MemoryIndex
	runner *toolrun.Runner
}

// newHarness builds the catalogue with a fixed clock and the given
// options, and registers it.
func newHarness(t testing.TB, opts ...builtin.Option) *harness {
	t.Helper()
	tools, err := builtin.Tools(append([]builtin.Option{builtin.WithClock(fixedClock)}, opts...)...)
	require.NoError(t, err)
	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	require.NoError(t, builtin.Register(context.Background(), idx, local, tools))
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local})
	return &harness{
		tools:  tools,
		index:  idx,
		runner: toolrun.New(reg, toolrun.WithIndex(idx)),
	}
}

// run runs a tool that must succeed and returns its structured result.
func (h *harness) run(t testing.TB, id string, args map[string]any) map[string]any {
	t.Helper()
	res, err := h.runner.Run(context.Background(), id, args)
	require.NoError(t, err)
	require.NoError(t, res.Err())
	out, ok := res.Structured.(map[string]any)
	require.True(t, ok, "result %#v is not an object", res.Structured)
	return out
}

// toolError runs a tool that must report a failure and returns its
// message.
func (h *harness) toolError(t testing.TB, id string, args map[string]any) string {
	t.Helper()
	res, err := h.runner.Run(context.Background(), id, args)
	require.NoError(t, err)
	require.Error(t, res.Err(), "result: %#v", res.Structured)
	return res.ToolError.Err.Error()
}

// runError runs a tool whose run must fail, and returns the error's code
// and message.
func (h *harness) runError(t testing.TB, id string, args map[string]any) (errors.Code, string) {
	t.Helper()
	res, err := h.runner.Run(context.Background(), id, args)
	require.Error(t, err, "result: %#v", res)
	return errors.CodeOf(err), err.Error()
}
