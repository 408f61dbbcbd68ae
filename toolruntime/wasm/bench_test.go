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

// benchExecute runs code once per iteration on backend be; before each,
// untimed, it calls before when not nil.
func benchExecute(b *testing.B, be toolruntime.Backend, p toolruntime.SecurityProfile, code string, before func()) {
	rt, err := toolruntime.New(toolruntime.WithBackend(p, be))
	require.NoError(b, err)
	engine, err := rt.Engine(p, "javascript")
	require.NoError(b, err)
	f := toolcodetest.NewFixture(b)
	x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
	b.ReportAllocs()
	for b.Loop() {
		if before != nil {
			b.StopTimer()
			before()
			b.StartTimer()
		}
		_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: "javascript", Code: code, Limits: toolcode.Limits{ToolCalls: 1000}})
		require.NoError(b, err)
	}
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
			var before func()
			if warm {
				before = func() { require.NoError(b, be.Warm(context.Background(), toolruntime.DefaultLimits)) }
			}
			benchExecute(b, be, toolruntime.Hardened, `return 1`, before)
		})
	}
}

// BenchmarkToolCall measures 100 tool calls in one execution, in the
// module (through the gateway over WASI stdin/stdout) and in process;
// divide by 100 for one call.
func BenchmarkToolCall(b *testing.B) {
	const code = `let s = 0; for (let i = 0; i < 100; i++) { s += (await tools.math.add({a: i, b: 1})).sum; } return s;`
	b.Run("wasm", func(b *testing.B) { benchExecute(b, shared, toolruntime.Hardened, code, nil) })
	b.Run("inprocess", func(b *testing.B) {
		be, err := inprocess.New(javascript.New())
		require.NoError(b, err)
		benchExecute(b, be, toolruntime.Dev, code, nil)
	})
}
