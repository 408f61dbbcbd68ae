package javascript_test

import (
	"context"
	"strconv"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

func newJS() toolcode.Engine { return javascript.New() }

// BenchmarkExecute is a program making ten local tool calls, one after
// the other; compare with BenchmarkDirect, the same ten calls through the
// runner.
func BenchmarkExecute(b *testing.B) {
	f := toolcodetest.NewFixture(b)
	x := toolcode.New(f.Ops, toolcode.WithEngine(newJS()), toolcode.WithEngine(javascript.NewTypeScript()))
	ctx := context.Background()
	b.Run("calls=10", func(b *testing.B) {
		p := toolcode.ExecuteParams{Code: `let s = 0;
for (let i = 0; i < 10; i++) { s += (await tools.math.add({a: i, b: 1})).sum; }
return s;`}
		b.ReportAllocs()
		for b.Loop() {
			res, err := x.Execute(ctx, p)
			require.NoError(b, err)
			require.Equal(b, "55", string(res.Value))
		}
	})
	// One call: the cost of starting an execution, and of its first
	// call, against BenchmarkDirect's one call per ten.
	b.Run("calls=1", func(b *testing.B) {
		p := toolcode.ExecuteParams{Code: `return (await tools.math.add({a: 1, b: 1})).sum;`}
		b.ReportAllocs()
		for b.Loop() {
			res, err := x.Execute(ctx, p)
			require.NoError(b, err)
			require.Equal(b, "2", string(res.Value))
		}
	})
	// The same program, different each time (a comment changes), so that
	// the engine parses and compiles it at every execution instead of
	// taking it from its cache.
	b.Run("uncached/calls=10", func(b *testing.B) {
		code := `let s = 0;
for (let i = 0; i < 10; i++) { s += (await tools.math.add({a: i, b: 1})).sum; }
return s; // `
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: code + strconv.Itoa(n)})
			require.NoError(b, err)
			require.Equal(b, "55", string(res.Value))
		}
	})
	b.Run("parallel/calls=10", func(b *testing.B) {
		p := toolcode.ExecuteParams{Code: `const r = await Promise.all(Array.from({length: 10}, (_, i) => tools.math.add({a: i, b: 1})));
return r.reduce((s, x) => s + x.sum, 0);`}
		b.ReportAllocs()
		for b.Loop() {
			_, err := x.Execute(ctx, p)
			require.NoError(b, err)
		}
	})
	// A small TypeScript program: from the cache, then transpiled each
	// time.
	b.Run("typescript/calls=0", func(b *testing.B) {
		p := toolcode.ExecuteParams{Language: "typescript", Code: `const n: number = 1; return n;`}
		b.ReportAllocs()
		for b.Loop() {
			_, err := x.Execute(ctx, p)
			require.NoError(b, err)
		}
	})
	b.Run("typescript/uncached/calls=0", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			_, err := x.Execute(ctx, toolcode.ExecuteParams{Language: "typescript", Code: `const n: number = 1; return n; // ` + strconv.Itoa(n)})
			require.NoError(b, err)
		}
	})
	// The cost of starting one execution: a runtime (a spare, made
	// ahead, when one is ready), the tools installed, a program that
	// returns at once.
	b.Run("calls=0", func(b *testing.B) {
		p := toolcode.ExecuteParams{Code: `return 1;`}
		b.ReportAllocs()
		for b.Loop() {
			_, err := x.Execute(ctx, p)
			require.NoError(b, err)
		}
	})
	// The same, each runtime made when its execution starts: no spare
	// made ahead.
	b.Run("nospare/calls=0", func(b *testing.B) {
		fresh := toolcode.New(f.Ops, toolcode.WithEngine(javascript.New(javascript.WithSpareRuntimes(0))))
		p := toolcode.ExecuteParams{Code: `return 1;`}
		b.ReportAllocs()
		for b.Loop() {
			_, err := fresh.Execute(ctx, p)
			require.NoError(b, err)
		}
	})
	// The same, with a program parsed and compiled each time.
	b.Run("uncached/calls=0", func(b *testing.B) {
		b.ReportAllocs()
		n := 0
		for b.Loop() {
			n++
			_, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `return 1; // ` + strconv.Itoa(n)})
			require.NoError(b, err)
		}
	})
}

// BenchmarkDirect is the ten calls of BenchmarkExecute made with
// Runner.Run.
func BenchmarkDirect(b *testing.B) {
	f := toolcodetest.NewFixture(b)
	ctx := context.Background()
	b.Run("calls=10", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			s := 0.0
			for i := range 10 {
				res, err := f.Runner.Run(ctx, "math:add", map[string]any{"a": float64(i), "b": 1.0})
				require.NoError(b, err)
				s += res.Structured.(map[string]any)["sum"].(float64)
			}
			require.InDelta(b, 55.0, s, 0)
		}
	})
}
