package toolops_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// sized returns the operations over n local tools in ten namespaces, of
// which the policy denies one namespace in ten, and the runner alone.
func sized(b *testing.B, n int) (*toolops.Service, *toolrun.Runner) {
	b.Helper()
	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	regs := make([]toolindex.Registration, n)
	for i := range regs {
		tool, err := toolmodel.DecodeTool(fmt.Appendf(nil,
			`{"name":"tool%05d","namespace":"ns%d","description":"Tool %d reads records.","inputSchema":{"type":"object"}}`, i, i%10, i))
		require.NoError(b, err)
		local.Register(tool.ID(), func(context.Context, map[string]any) (any, error) { return "ok", nil })
		regs[i] = toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}
	}
	require.NoError(b, idx.RegisterMany(context.Background(), regs))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}),
		toolrun.WithIndex(idx), toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{"ns3:*"}}))
	ops, err := toolops.New(idx, nil, runner)
	require.NoError(b, err)
	return ops, runner
}

// BenchmarkSearch measures a page of five tools: a listing, which walks
// the index in order past the denied tools, and a search.
func BenchmarkSearch(b *testing.B) {
	for _, n := range []int{100, 1000, 10000} {
		ops, _ := sized(b, n)
		ctx := context.Background()
		for _, req := range []toolops.SearchRequest{{}, {Query: "reads records"}} {
			name := "list"
			if req.Query != "" {
				name = "query"
			}
			b.Run(fmt.Sprintf("tools=%d/%s", n, name), func(b *testing.B) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := ops.Search(ctx, req); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkRun compares a run through the operations with the runner's
// own: what the check that the tool is offered costs.
func BenchmarkRun(b *testing.B) {
	ops, runner := sized(b, 1000)
	ctx := context.Background()
	b.Run("runner", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := runner.Run(ctx, "ns1:tool00001", nil); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("operations", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ops.Run(ctx, toolops.RunRequest{ID: "ns1:tool00001"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("namespaces", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := ops.Namespaces(ctx); err != nil {
				b.Fatal(err)
			}
		}
	})
}
