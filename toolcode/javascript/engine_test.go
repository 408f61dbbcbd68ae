package javascript_test

import (
	"context"
	"encoding/base64"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

func newExecutor(t testing.TB, opts ...toolcode.Option) *toolcode.Executor {
	t.Helper()
	f := toolcodetest.NewFixture(t)
	return toolcode.New(f.Ops, append([]toolcode.Option{
		toolcode.WithEngine(javascript.New()),
		toolcode.WithEngine(javascript.NewTypeScript()),
	}, opts...)...)
}

func TestTypeScriptPositions(t *testing.T) {
	x := newExecutor(t)
	tests := []struct {
		name      string
		code      string
		wantCode  errors.Code
		line, col string
	}{
		{
			name:     "syntax error",
			code:     "const a: number = 1;\nconst b: string = ;\n",
			wantCode: errors.InvalidArgument, line: "2", col: "19",
		},
		{
			name:     "syntax error on the first line",
			code:     "let x: = 1;",
			wantCode: errors.InvalidArgument, line: "1", col: "8",
		},
		{
			name:     "exception after type-only lines",
			code:     "interface Point {\n  x: number;\n  y: number;\n}\nconst p: Point = {x: 1, y: 2};\nthrow new Error(\"at line 6\");\n",
			wantCode: errors.Execution, line: "6",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: "typescript", Code: tc.code})
			require.Error(t, err)
			assert.Equal(t, tc.wantCode, errors.CodeOf(err))
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			for e.Meta == nil && e.Err != nil {
				require.ErrorAs(t, e.Err, &e)
			}
			assert.Equal(t, tc.line, e.Meta["line"], err.Error())
			if tc.col != "" {
				assert.Equal(t, tc.col, e.Meta["column"], err.Error())
			}
		})
	}
}

func TestTypeScriptRunsTypedProgram(t *testing.T) {
	x := newExecutor(t)
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: "typescript", Code: `
interface Sum { sum: number }
const parts: number[] = [1, 2, 3];
const sums: Sum[] = await Promise.all(parts.map((n) => tools.math.add({a: n, b: n}) as Promise<Sum>));
return sums.map((s) => s.sum).reduce((a, b) => a + b, 0);`})
	require.NoError(t, err)
	assert.JSONEq(t, `12`, string(res.Value))
	assert.Len(t, res.Trace, 3)
}

func TestJavaScriptPositions(t *testing.T) {
	x := newExecutor(t)
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "let a = 1; let b = ;"})
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "line 1, column 20")

	_, err = x.Execute(context.Background(), toolcode.ExecuteParams{Code: "const o = null;\n\nreturn o.field;"})
	require.Error(t, err)
	assert.Equal(t, errors.Execution, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "line 3")
}

func TestNeverSettlingPromise(t *testing.T) {
	x := newExecutor(t)
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "await new Promise(() => {}); return 1;"})
	require.Error(t, err)
	assert.Equal(t, errors.Execution, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "nothing settles")
}

// TestToolFunctionsAreFunctions checks what a program sees of the
// functions of the tools: functions named after what they run, with no
// property of their own, that call and apply reach, and that a program
// cannot change.
func TestToolFunctionsAreFunctions(t *testing.T) {
	x := newExecutor(t)
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `
const add = tools.math.add;
add.extra = 1;
return {
  type: typeof add, name: add.name, search: tools.search.name,
  own: Object.getOwnPropertyNames(add).filter(k => k !== "length" && k !== "name"),
  prototype: add.prototype === undefined, extra: add.extra === undefined,
  call: (await add.call(null, {a: 1, b: 2})).sum,
  apply: (await tools.run.apply(null, ["math:add", {a: 2, b: 2}])).sum,
};`})
	require.NoError(t, err)
	assert.JSONEq(t, `{"type": "function", "name": "math:add", "search": "search", "own": [],
		"prototype": true, "extra": true, "call": 3, "apply": 4}`, string(res.Value))
}

func TestBadArguments(t *testing.T) {
	x := newExecutor(t)
	tests := []struct {
		code string
		want errors.Code
	}{
		{`return await tools.math.add("not an object");`, errors.InvalidArgument},
		{`return await tools.math.add({a: "one", b: 2});`, errors.Validation},
		{`return await tools.describe("math:add", "everything");`, errors.InvalidArgument},
		{`return await tools.chain("not steps");`, errors.InvalidArgument},
		{`return await tools.chain([]);`, errors.InvalidArgument},
		{`return await tools.describe("nope:nothing");`, errors.NotFound},
		{`const o = {}; o.self = o; return o;`, errors.Execution},
		{`return 10n;`, errors.Execution},
		{`throw "a string";`, errors.Execution},
		{`console.log(Symbol("s")); return tools.then;`, ""},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: tc.code})
			if tc.want == "" {
				require.NoError(t, err)
				return
			}
			require.Error(t, err)
			assert.Equal(t, tc.want, errors.CodeOf(err), err.Error())
		})
	}
}

// TestSpinStopsNearDeadline shows a busy loop interrupted at its
// deadline rather than run on. The bound leaves room for the scheduling
// of a loaded machine under the race detector (about 150 ms seen with
// every core busy); on a quiet one the loop stops within a millisecond.
func TestSpinStopsNearDeadline(t *testing.T) {
	x := newExecutor(t)
	for _, wall := range []time.Duration{50 * time.Millisecond, 300 * time.Millisecond} {
		start := time.Now()
		_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `let i = 0; while (true) { i++; }`, Timeout: wall})
		late := time.Since(start) - wall
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
		assert.Less(t, late, 500*time.Millisecond)
		t.Logf("timeout %v: stopped %v after the deadline", wall, late)
	}
}

func TestLastExpressionIsTheValue(t *testing.T) {
	x := newExecutor(t)
	tests := []struct {
		lang, code, want string
	}{
		{"javascript", `tools.math.add({a: 1, b: 2})`, `{"sum":3}`},
		{"javascript", "const a = 2;\na * 21", `42`},
		{"javascript", `const a = 2;`, `null`},
		{"javascript", `if (true) { 5 }`, `null`},
		{"typescript", "const a: number = 2;\na * 21;", `42`},
	}
	for _, tc := range tests {
		t.Run(tc.lang+"/"+tc.code, func(t *testing.T) {
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: tc.lang, Code: tc.code})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

func TestPositionsOnTheFirstLine(t *testing.T) {
	x := newExecutor(t)
	tests := []struct{ lang, code, col string }{
		{"javascript", `const o = null; o.field`, "column 19"},
		{"typescript", `const o: any = null; o.field`, "column 24"},
	}
	for _, tc := range tests {
		_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: tc.lang, Code: tc.code})
		require.Error(t, err)
		assert.Equal(t, errors.Execution, errors.CodeOf(err))
		assert.Contains(t, err.Error(), "line 1, "+tc.col, tc.lang)
	}
}

// TestSourceMapCommentsIgnored checks that a program cannot make the
// engine use a source map of its choosing: errors are reported at the
// program's own positions.
func TestSourceMapCommentsIgnored(t *testing.T) {
	x := newExecutor(t)
	// This map sends line 2 to line 99.
	sourceMap := `{"version":3,"sources":["x.js"],"names":[],"mappings":";AAkGA"}`
	code := "let o = null;\no.field;\n//# sourceMappingURL=data:application/json;base64," + base64.StdEncoding.EncodeToString([]byte(sourceMap))
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code})
	require.Error(t, err)
	assert.Equal(t, errors.Execution, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "line 2,")
}

// TestEachProgramHasARuntimeOfItsOwn runs more programs than the engine
// keeps spares: what one leaves behind (a global, a changed built-in, a
// replaced Promise) reaches none of the next.
func TestEachProgramHasARuntimeOfItsOwn(t *testing.T) {
	x := newExecutor(t)
	ctx := context.Background()
	for i := range 2 * (javascript.DefaultSpareRuntimes + 1) {
		res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `const seen = [typeof leak, typeof [].push, typeof Promise.resolve];
globalThis.leak = 1; Array.prototype.push = null; Promise.resolve = null;
return seen;`})
		require.NoError(t, err, "execution %d", i)
		assert.JSONEq(t, `["undefined","function","function"]`, string(res.Value), "execution %d", i)
	}
}
