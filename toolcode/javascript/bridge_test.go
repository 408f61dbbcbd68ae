package javascript

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/dop251/goja"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolops"
)

// echoTools is a Tools whose run returns the arguments it was given.
type echoTools struct{}

func (echoTools) Search(context.Context, toolops.SearchRequest) (toolops.SearchResult, error) {
	return toolops.SearchResult{}, nil
}
func (echoTools) Namespaces(context.Context) ([]string, error) { return nil, nil }
func (echoTools) Describe(context.Context, toolops.DescribeRequest) (tooldocs.Doc, error) {
	return tooldocs.Doc{}, nil
}
func (echoTools) Examples(context.Context, toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	return nil, nil
}
func (echoTools) Run(_ context.Context, _ string, args map[string]any) (any, error) {
	return args, nil
}
func (echoTools) Chain(context.Context, []toolops.ChainStep) ([]any, error) { return nil, nil }
func (echoTools) Log(context.Context, string) error                         { return nil }

func testProgram(t testing.TB, code string) toolcode.Program {
	t.Helper()
	return toolcode.Program{Code: code, Tools: echoTools{}, Limits: toolcode.Limits{
		ToolCalls: 10, ChainSteps: 10, WallTime: 1e10, OutputBytes: 1 << 20, Concurrency: 2,
	}}
}

func newTestRun(t testing.TB) *run {
	t.Helper()
	r, err := New().newRun()
	require.NoError(t, err)
	r.ctx, r.prog, r.limit = context.Background(), testProgram(t, ""), 2
	t.Cleanup(r.close)
	return r
}

// catch runs f and returns what it panicked with as an error.
func catch[T any](f func() T) (out T, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%v", p)
		}
	}()
	return f(), nil
}

// textGo is the bridge's reference for arguments: JSON.stringify, then
// encoding/json.
func textGo(r *run, v goja.Value) (any, error) {
	s, ok, err := r.stringify(v)
	if err != nil || !ok {
		return nil, err
	}
	var out any
	err = json.Unmarshal([]byte(s), &out)
	return out, err
}

// textJS is the bridge's reference for results: encoding/json, then
// JSON.parse.
func textJS(r *run, v any) (goja.Value, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return r.parseJSON(string(b))
}

var bridgeExpressions = []string{
	`undefined`, `null`, `true`, `0`, `-0`, `1.5`, `2**53 + 2`, `1e21`, `1e-7`, `NaN`, `-Infinity`,
	`"text"`, `"\ud800 lone"`, `"emoji 😀 and \u2028"`, `"<&>"`,
	`({a: 1, b: "two", c: [1, 2, {d: null}]})`,
	`({2: "x", 1: "y", b: 1, a: 2})`,
	`({u: undefined, f() {}, s: Symbol("s"), n: null})`,
	`[undefined, function () {}, Symbol("s"), null, 1]`,
	`[1, , 3]`,
	`(() => { const a = [1]; a.extra = 2; return a; })()`,
	`(() => { const a = []; a.length = 3; return a; })()`,
	`Object.defineProperty({a: 1}, "hidden", {value: 2, enumerable: false})`,
	`({[Symbol("k")]: 1, a: 2})`,
	`Object.assign(Object.create(null), {a: 1})`,
	`Object.assign(Object.create({inherited: 1}), {own: 2})`,
	`({get g() { return 5; }})`,
	`new Date(0)`,
	`({toJSON() { return "custom"; }})`,
	`({nested: {toJSON() { return [1]; }}})`,
	`new Map([[1, 2]])`,
	`new (class Point { constructor() { this.x = 1; } })()`,
	`new Proxy({a: 1}, {})`,
	`new Number(3)`, `new String("s")`, `new Boolean(false)`,
	`/re/g`, `new Error("e")`,
	`(() => { const o = {}; o.self = o; return o; })()`,
	`10n`, `({big: 10n})`,
	`JSON.parse('{"__proto__": {"x": 1}}')`,
}

// TestToGoMatchesJSONText checks that a program's value reaches Go as it
// would through JSON.stringify and encoding/json, failures included.
func TestToGoMatchesJSONText(t *testing.T) {
	r := newTestRun(t)
	for _, expr := range bridgeExpressions {
		t.Run(expr, func(t *testing.T) {
			v, err := r.vm.RunString("(" + expr + ")")
			require.NoError(t, err)
			want, wantErr := textGo(r, v)
			got, err := catch(func() any { return r.toGo(v) })
			if wantErr != nil {
				assert.Error(t, err, "the JSON path fails")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, want, got)
		})
	}
}

// TestToJSMatchesJSONText checks that a Go value reaches the program as it
// would through encoding/json and JSON.parse.
func TestToJSMatchesJSONText(t *testing.T) {
	r := newTestRun(t)
	self := map[string]any{}
	self["self"] = self
	values := []any{
		nil, true, "s", "bad \xff utf8", 0.0, math.Copysign(0, -1), 1.5, 1e21, math.NaN(), math.Inf(1),
		map[string]any{"b": 1.0, "a": []any{"x", nil}, "2": "two", "1": "one"},
		map[string]any{"__proto__": map[string]any{"polluted": true}},
		map[string]any(nil), []any(nil), []any{}, map[string]any{},
		map[string]string{"typed": "map"}, []int{1, 2}, struct{ A int }{A: 1}, 7,
		self,
	}
	same := r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		a, b := c.Argument(0), c.Argument(1)
		sa, _, _ := r.stringify(a)
		sb, _, _ := r.stringify(b)
		eq := sa == sb
		if ao, ok := a.(*goja.Object); ok {
			bo := b.(*goja.Object)
			eq = eq && ao.ClassName() == bo.ClassName() && ao.Prototype() == bo.Prototype() &&
				fmt.Sprint(ao.Keys()) == fmt.Sprint(bo.Keys())
		} else {
			eq = eq && a.SameAs(b)
		}
		return r.vm.ToValue(eq)
	})
	for i, v := range values {
		t.Run(fmt.Sprintf("%d/%T", i, v), func(t *testing.T) {
			want, wantErr := textJS(r, v)
			got, err := r.toJS(v)
			if wantErr != nil {
				assert.Error(t, err)
				return
			}
			require.NoError(t, err)
			fn, _ := goja.AssertFunction(same)
			eq, err := fn(goja.Undefined(), got, want)
			require.NoError(t, err)
			assert.True(t, eq.ToBoolean(), "got %v, want %v", got, want)
		})
	}
}

// FuzzBridge feeds arbitrary JSON through both directions of the bridge
// and checks each against the JSON text path.
func FuzzBridge(f *testing.F) {
	for _, s := range []string{`{"a":1,"b":[true,null,"x"]}`, `[1e21,-0,0.1]`, `"\ud800"`, `{"__proto__":{"x":1}}`, `{"2":1,"1":2}`, `null`} {
		f.Add(s)
	}
	r := newTestRun(f)
	f.Fuzz(func(t *testing.T, text string) {
		var goValue any
		if json.Unmarshal([]byte(text), &goValue) != nil {
			return
		}
		// Go to JavaScript.
		got, err := r.toJS(goValue)
		require.NoError(t, err)
		want, err := textJS(r, goValue)
		require.NoError(t, err)
		gs, _, err := r.stringify(got)
		require.NoError(t, err)
		ws, _, err := r.stringify(want)
		require.NoError(t, err)
		require.Equal(t, ws, gs)
		// JavaScript to Go.
		back := r.toGo(want)
		ref, err := textGo(r, want)
		require.NoError(t, err)
		require.Equal(t, ref, back)
	})
}

// TestPlainValuesCrossDirectly checks that plain data skips the JSON text,
// and that what JSON treats specially takes it.
func TestPlainValuesCrossDirectly(t *testing.T) {
	r := newTestRun(t)
	for expr, direct := range map[string]bool{
		`({a: 1, b: "two", c: [1, 2, {d: null}], e: true})`: true,
		`[1, , "x", undefined]`:                             true,
		`new Date(0)`:                                       false,
		`({toJSON() { return 1; }})`:                        false,
		`new Proxy({a: 1}, {})`:                             false,
		`({nested: new Map()})`:                             false,
		`10n`:                                               false,
	} {
		v, err := r.vm.RunString("(" + expr + ")")
		require.NoError(t, err)
		_, ok := r.directGo(v, 0)
		assert.Equal(t, direct, ok, expr)
	}
	_, ok := r.directJS(map[string]any{"a": []any{1.0, "x", nil, true, map[string]any{}}}, 0)
	assert.True(t, ok)
	_, ok = r.directJS(map[string]string{"a": "b"}, 0)
	assert.False(t, ok)
}
