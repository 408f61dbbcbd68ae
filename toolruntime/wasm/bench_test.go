package wasm_test

import (
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
	"github.com/metatools-go/metatools/toolruntime/wasm"
)

// BenchmarkCompile measures New: compiling the runner cold (a new, empty
// cache each time: run it with -benchtime=1x, it takes minutes) and from
// a cache directory filled by a first compilation.
func BenchmarkCompile(b *testing.B) {
	module, err := os.ReadFile(modulePath)
	require.NoError(b, err)
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			be, err := wasm.New(module, wasm.WithSpares(0))
			require.NoError(b, err)
			require.NoError(b, be.Close(context.Background()))
		}
	})
	b.Run("cached-dir", func(b *testing.B) {
		dir := b.TempDir()
		be, err := wasm.New(module, wasm.WithCacheDir(dir), wasm.WithSpares(0))
		require.NoError(b, err)
		require.NoError(b, be.Close(context.Background()))
		b.ResetTimer()
		for b.Loop() {
			be, err := wasm.New(module, wasm.WithCacheDir(dir), wasm.WithSpares(0))
			require.NoError(b, err)
			require.NoError(b, be.Close(context.Background()))
		}
	})
}

// executor returns an executor of programs under the hardened profile on
// backend be (dev when it runs in process).
func executor(b *testing.B, be toolruntime.Backend, p toolruntime.SecurityProfile) *toolcode.Executor {
	rt, err := toolruntime.New(toolruntime.WithBackend(p, be))
	require.NoError(b, err)
	engine, err := rt.Engine(p, "javascript")
	require.NoError(b, err)
	return toolcode.New(toolcodetest.NewFixture(b).Ops, toolcode.WithEngine(engine))
}

// BenchmarkStartup measures one execution of `return 1` in a fresh
// instance: started when the execution comes (cold: instantiation and
// the runner's start included) and taken from the spares (warm), which
// have had time to start (outside the timed part): the latency a program
// sees when it comes after the spares refilled.
func BenchmarkStartup(b *testing.B) {
	for _, warm := range []bool{true, false} {
		name, spares := "cold", 0
		if warm {
			name, spares = "warm", 1
		}
		b.Run(name, func(b *testing.B) {
			dir, err := cacheDir()
			require.NoError(b, err)
			be, err := wasm.NewFromFile(modulePath, wasm.WithCacheDir(dir), wasm.WithSpares(spares))
			require.NoError(b, err)
			b.Cleanup(func() { require.NoError(b, be.Close(context.Background())) })
			var ready func()
			if warm {
				ready = func() { require.NoError(b, be.Warm(context.Background(), toolruntime.DefaultLimits)) }
			}
			toolruntimetest.BenchExecutions(b, executor(b, be, toolruntime.Hardened), `return 1`, ready)
		})
	}
}

// BenchmarkToolCall measures one tool call from a program: in the module
// (through the gateway over WASI stdin and stdout) and in process.
func BenchmarkToolCall(b *testing.B) {
	b.Run("wasm", func(b *testing.B) {
		toolruntimetest.BenchToolCalls(b, executor(b, shared, toolruntime.Hardened), func() {
			require.NoError(b, shared.Warm(context.Background(), toolruntime.DefaultLimits))
		})
	})
	b.Run("inprocess", func(b *testing.B) {
		be, err := inprocess.New(javascript.New())
		require.NoError(b, err)
		toolruntimetest.BenchToolCalls(b, executor(b, be, toolruntime.Dev), nil)
	})
}
