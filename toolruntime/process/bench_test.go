package process_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
	"github.com/metatools-go/metatools/toolruntime/process"
)

// executor returns an executor whose engine of language runs under
// profile p of a runtime with backend b.
func executor(tb testing.TB, b toolruntime.Backend, p toolruntime.SecurityProfile, language string, opts ...toolruntime.Option) (*toolcode.Executor, *toolcodetest.Fixture) {
	tb.Helper()
	rt, err := toolruntime.New(append([]toolruntime.Option{toolruntime.WithBackend(p, b)}, opts...)...)
	require.NoError(tb, err)
	e, err := rt.Engine(p, language)
	require.NoError(tb, err)
	f := toolcodetest.NewFixture(tb)
	return toolcode.New(f.Ops, toolcode.WithEngine(e)), f
}

// BenchmarkStartup is the cost of one execution of a trivial program: a
// process started (cold) or taken from the pool (warm), the program sent,
// its value read, everything removed. A warm execution finds its process
// ready, as an execution does that comes after the pool had time to
// refill (the refill is outside the timed part): the latency a program
// sees, not the backend's throughput.
func BenchmarkStartup(b *testing.B) {
	for _, mode := range modes {
		for _, warm := range []bool{true, false} {
			name := mode.name + "/cold"
			opts := append([]process.Option{process.WithSpares(0)}, mode.opts...)
			if warm {
				name = mode.name + "/warm"
				opts = append([]process.Option{process.WithSpares(1)}, mode.opts...)
			}
			b.Run(name, func(b *testing.B) {
				be := newBackend(b, opts...)
				x, _ := executor(b, be, toolruntime.Standard, "javascript")
				ctx := context.Background()
				b.ReportAllocs()
				for b.Loop() {
					if warm {
						b.StopTimer()
						require.NoError(b, be.Warm(ctx, toolruntime.DefaultLimits))
						b.StartTimer()
					}
					_, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `return 1`})
					require.NoError(b, err)
				}
			})
		}
	}
}

// BenchmarkToolCall is the cost of one tool call from a program: through
// the gateway's pipes out of process against a direct call in process.
// Each program makes calls calls; the start-up is amortized over them.
func BenchmarkToolCall(b *testing.B) {
	const calls = 50
	code := `let s = 0; for (let i = 0; i < 50; i++) { s += (await tools.math.add({a: i, b: 1})).sum } return s`
	inproc, err := inprocess.New(javascript.New())
	require.NoError(b, err)
	for _, c := range []struct {
		name    string
		backend toolruntime.Backend
		profile toolruntime.SecurityProfile
	}{
		{"inprocess", inproc, toolruntime.Dev},
		{"process", newBackend(b, process.WithoutBubblewrap()), toolruntime.Standard},
	} {
		b.Run(c.name, func(b *testing.B) {
			x, _ := executor(b, c.backend, c.profile, "javascript")
			b.ReportAllocs()
			for b.Loop() {
				_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code, Limits: toolcode.Limits{ToolCalls: calls}})
				require.NoError(b, err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*calls), "ns/call")
		})
	}
}
