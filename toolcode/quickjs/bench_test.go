package quickjs_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/quickjs"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// BenchmarkEngines compares this engine with the goja engine in one run:
// starting one execution (a program that returns at once), and a program
// making ten tool calls one after the other.
func BenchmarkEngines(b *testing.B) {
	engines := []struct {
		name string
		e    toolcode.Engine
	}{
		{"quickjs", quickjs.New()},
		{"goja", javascript.New()},
	}
	programs := []struct{ name, code, want string }{
		{"calls=0", `return 1;`, `1`},
		{"calls=10", `let s = 0;
for (let i = 0; i < 10; i++) { s += (await tools.math.add({a: i, b: 1})).sum; }
return s;`, `55`},
	}
	ctx := context.Background()
	for _, eng := range engines {
		f := toolcodetest.NewFixture(b)
		x := toolcode.New(f.Ops, toolcode.WithEngine(eng.e))
		for _, p := range programs {
			b.Run(eng.name+"/"+p.name, func(b *testing.B) {
				params := toolcode.ExecuteParams{Language: "javascript", Code: p.code}
				b.ReportAllocs()
				for b.Loop() {
					res, err := x.Execute(ctx, params)
					require.NoError(b, err)
					require.Equal(b, p.want, string(res.Value))
				}
			})
		}
	}
}
