package toolrun_test

import (
	"context"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// fixture is an index of local tools and a runner over it.
type fixture struct {
	index    *toolindex.MemoryIndex
	local    *toolrun.LocalExecutor
	registry *toolrun.ExecutorRegistry
	flaky    atomic.Int32 // failures left for demo:flaky, demo:shaky and demo:charge
	charges  atomic.Int32 // executions of demo:charge
}

type addIn struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

type addOut struct {
	Sum float64 `json:"sum"`
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	f := &fixture{index: toolindex.New(), local: toolrun.NewLocalExecutor()}
	f.registry = toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: f.local})

	f.add(t, `{"name":"echo","namespace":"demo","description":"Return the arguments.",
		"inputSchema":{"type":"object","properties":{"text":{"type":"string"}}}}`,
		func(_ context.Context, args map[string]any) (any, error) { return args, nil })
	f.add(t, `{"name":"fail","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return nil, errors.New("boom") })
	f.add(t, `{"name":"block","namespace":"demo","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, _ map[string]any) (any, error) { <-ctx.Done(); return nil, ctx.Err() })
	// flaky and shaky are idempotent: the runner may retry them.
	f.add(t, `{"name":"flaky","namespace":"demo","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
		func(context.Context, map[string]any) (any, error) {
			if f.flaky.Add(-1) >= 0 {
				return nil, errors.Errorf(errors.Unavailable, "try again")
			}
			return map[string]any{"ok": true}, nil
		})
	f.add(t, `{"name":"shaky","namespace":"demo","inputSchema":{"type":"object"},"annotations":{"idempotentHint":true}}`,
		func(context.Context, map[string]any) (any, error) {
			if f.flaky.Add(-1) >= 0 {
				return nil, errors.New("flaked")
			}
			return "steady", nil
		})
	// charge fails as flaky does, but is destructive and not idempotent:
	// once it may have reached its backend, it must not run again.
	f.add(t, `{"name":"charge","namespace":"demo","inputSchema":{"type":"object"},
		"annotations":{"destructiveHint":true,"idempotentHint":false}}`,
		func(context.Context, map[string]any) (any, error) {
			f.charges.Add(1)
			if f.flaky.Add(-1) >= 0 {
				return nil, errors.Errorf(errors.Unavailable, "connection reset mid-call")
			}
			return map[string]any{"charged": true}, nil
		})
	f.add(t, `{"name":"badout","namespace":"demo","inputSchema":{"type":"object"},
		"outputSchema":{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}}`,
		func(context.Context, map[string]any) (any, error) { return map[string]any{"n": "not a number"}, nil })

	tool, fn, err := toolrun.NewLocalTool("add", "Add two numbers.", func(_ context.Context, in addIn) (addOut, error) {
		return addOut{Sum: in.A + in.B}, nil
	})
	require.NoError(t, err)
	tool.Namespace = "math"
	f.local.Register("math.add", fn)
	require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("math.add")}))
	return f
}

func (f *fixture) add(t testing.TB, toolJSON string, fn toolrun.LocalFunc) {
	t.Helper()
	tool, err := toolmodel.DecodeTool([]byte(toolJSON))
	require.NoError(t, err)
	f.local.Register(tool.ID(), fn)
	require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}))
}

func (f *fixture) runner(opts ...toolrun.Option) *toolrun.Runner {
	return toolrun.New(f.registry, append([]toolrun.Option{toolrun.WithIndex(f.index)}, opts...)...)
}
