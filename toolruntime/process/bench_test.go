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
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
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
// its value read, its processes killed. A warm execution finds its
// process ready, as an execution does that comes after the pool had time
// to refill (the refill is outside the timed part): the latency a program
// sees, not the backend's throughput.
func BenchmarkStartup(b *testing.B) {
	for _, mode := range modes {
		for _, warm := range []bool{true, false} {
			name, spares := mode.name+"/cold", 0
			if warm {
				name, spares = mode.name+"/warm", 1
			}
			b.Run(name, func(b *testing.B) {
				be := newBackend(b, append([]process.Option{process.WithSpares(spares)}, mode.opts...)...)
				x, _ := executor(b, be, toolruntime.Standard, "javascript")
				var ready func()
				if warm {
					ready = func() { require.NoError(b, be.Warm(context.Background(), toolruntime.DefaultLimits)) }
				}
				toolruntimetest.BenchExecutions(b, x, `return 1`, ready)
			})
		}
	}
}

// BenchmarkToolCall is the cost of one tool call from a program: through
// the gateway's pipes out of process against a direct call in process.
func BenchmarkToolCall(b *testing.B) {
	inproc, err := inprocess.New(javascript.New())
	require.NoError(b, err)
	b.Run("inprocess", func(b *testing.B) {
		x, _ := executor(b, inproc, toolruntime.Dev, "javascript")
		toolruntimetest.BenchToolCalls(b, x, nil)
	})
	for _, mode := range modes {
		b.Run(mode.name, func(b *testing.B) {
			be := newBackend(b, mode.opts...)
			x, _ := executor(b, be, toolruntime.Standard, "javascript")
			toolruntimetest.BenchToolCalls(b, x, func() { require.NoError(b, be.Warm(context.Background(), toolruntime.DefaultLimits)) })
		})
	}
}
