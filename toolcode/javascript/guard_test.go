package javascript_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

func newGuardedExecutor(t *testing.T, maxSize int) *toolcode.Executor {
	t.Helper()
	f := toolcodetest.NewFixture(t)
	return toolcode.New(f.Ops, toolcode.WithEngine(javascript.New(javascript.WithMaxBuiltinSize(maxSize))))
}

// TestGuardedBuiltinsRefuseLargeResults checks that the built-ins goja
// cannot interrupt throw a catchable RangeError with code
// resource_exhausted, before they allocate, when what they would build is
// past the bound, and that the uncaught error fails the execution with the
// allocation limit.
func TestGuardedBuiltinsRefuseLargeResults(t *testing.T) {
	x := newGuardedExecutor(t, 100)
	for _, expr := range []string{
		`"ab".repeat(51)`,
		`"x".repeat(2 ** 40)`,
		`"x".padStart(101)`,
		`"x".padEnd(101, "-")`,
		`"x".padEnd(1e300)`,
		`new Array(101).join("")`,
		`new Array(40).join("abc")`,
		`Array.prototype.join.call({length: 1e9})`,
		`new Array(101).fill(0)`,
		`Array.from({length: 101})`,
		`Array.from({length: 1e12}, (_, i) => i)`,
		`"ab"["re" + "peat"](51)`,
		`String.prototype[["pad", "Start"].join("")].call("x", 101)`,
		`"x".concat("y".repeat(60), "z".repeat(60))`,
		`"x".repeat(50).replaceAll("x", "yyy")`,
		`"x".repeat(50).replace(/x/g, "$&$&$&")`,
		`"x".repeat(50).replace(/x/g, () => "yyy")`,
		`"x".repeat(99).concat("xx").split("")`,
		`[1].concat(new Array(200))`,
		`new Array(1e9).indexOf(1)`,
		`new Array(1e9).map(x => x)`,
		`Array.prototype.sort.call({length: 1e9})`,
		`Math.max.apply(null, {length: 1e9})`,
		`Reflect.apply(Math.max, null, {length: 1e9})`,
		`new Uint8Array(1e9)`,
		`new ArrayBuffer(2 ** 31)`,
		`new Float64Array({length: 1e9})`,
		`Object.keys("x".repeat(99) + "xx")`,
		`new Array(101).flat(2)`,
	} {
		t.Run(expr, func(t *testing.T) {
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `try { ` + expr + `; return "no error"; } catch (e) {
  return {range: e instanceof RangeError, code: e.code, message: e.message};
}`})
			require.NoError(t, err)
			assert.JSONEq(t, `{"range": true, "code": "resource_exhausted"}`, keep(t, res.Value, "range", "code"))
			assert.Contains(t, string(res.Value), "more than the 100")

			_, err = x.Execute(context.Background(), toolcode.ExecuteParams{Code: `return ` + expr + `;`})
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), err.Error())
			assert.Equal(t, toolcode.LimitAllocation, toolcode.LimitOf(err), err.Error())
		})
	}
}

// TestGuardedBuiltinsBehaveAsBuiltins checks that, within the bound, the
// guarded built-ins give the built-ins' results and errors, look like
// them, and convert their receiver and arguments once.
func TestGuardedBuiltinsBehaveAsBuiltins(t *testing.T) {
	x := newGuardedExecutor(t, 100)
	tests := []struct{ code, want string }{
		{`return "ab".repeat(3)`, `"ababab"`},
		{`return "ab".repeat(50).length`, `100`},
		{`return "".repeat(1e9)`, `""`},
		{`return "5".padStart(3, "0") + "|" + "5".padEnd(3) + "|" + "5".padEnd(1e9, "")`, `"005|5  |5"`},
		{`return [1, [2, 3], null, "x"].join("-")`, `"1-2,3--x"`},
		{`return [1, 2].join()`, `"1,2"`},
		{`return new Array(3).fill(7)`, `[7, 7, 7]`},
		{`return [1, 2, 3, 4].fill(0, 1, 3)`, `[1, 0, 0, 4]`},
		{`return Array.from({length: 3}, (_, i) => i * 2)`, `[0, 2, 4]`},
		{`return Array.from("abc")`, `["a", "b", "c"]`},
		{`return Array.from(new Set([1, 1, 2]))`, `[1, 2]`},
		{`return [String.prototype.repeat.name, String.prototype.repeat.length, String.prototype.padStart.name, Array.prototype.join.name, Array.from.name, Object.keys(String.prototype).length]`,
			`["repeat", 1, "padStart", "join", "from", 0]`},
		{`let n = 0; const o = {toString() { n++; return "ab"; }};
String.prototype.repeat.call(o, {valueOf() { n++; return 2; }}); return n`, `2`},
		{`try { String.prototype.repeat.call(null, 1) } catch (e) { return e instanceof TypeError }`, `true`},
		{`try { "x".repeat(-1) } catch (e) { return [e instanceof RangeError, e.code === undefined] }`, `[true, true]`},
		{`class A extends Array {}; return A.from([1, 2]) instanceof A`, `true`},
		{`return ["a", 1, true, undefined, {toString() { return "o" }}, [2, 3]].join("/")`, `"a/1/true//o/2,3"`},
		{`return String([1, [2, [3]]])`, `"1,2,3"`},
		{`try { Array.prototype.join.call(null) } catch (e) { return e instanceof TypeError }`, `true`},
		{`return "ab".concat(1, "c", null)`, `"ab1cnull"`},
		{`return ["a-b-c".replace("-", "+"), "a-b-c".replaceAll("-", "$&$&"), "abc".replace(/(b)/, "[$1]"), "abc".replace(/b/g, (m, i) => m + i)]`, `["a+b-c", "a--b--c", "a[b]c", "ab1c"]`},
		{`return ["a,b,c".split(","), "abc".split(""), "a1b2c".split(/\d/), "a,b,c".split(",", 2)]`, `[["a","b","c"],["a","b","c"],["a","b","c"],["a","b"]]`},
		{`return [[1, [2, [3, [4]]]].flat(Infinity), [1, [2, [3]]].flat(), [1, 2].concat([3], 4)]`, `[[1,2,3,4],[1,2,[3]],[1,2,3,4]]`},
		{`return [[3, 1, 2].sort(), [1, 2, 3].map(x => x * 2), [1, 2, 3].indexOf(2), Math.max.apply(null, [1, 5, 2])]`, `[[1,2,3],[2,4,6],1,5]`},
		{`const a = new Uint8Array([1, 2, 3]); return [a.length, a instanceof Uint8Array, a.constructor === Uint8Array, new Uint8Array(a.buffer).length, Uint8Array.name, Object.keys(a)]`, `[3, true, true, 3, "Uint8Array", ["0","1","2"]]`},
		{`class B extends Uint8Array {}; const b = new B(2); return [b instanceof B, b.length, new ArrayBuffer(8).byteLength]`, `[true, 2, 8]`},
		{`return [JSON.stringify({a: [1, {b: "c"}], d: undefined}), JSON.stringify({a: 1, b: 2, c: {a: 3, d: 4}}, ["a", "c"]), JSON.stringify({a: 1, b: "x"}, (k, v) => typeof v === "number" ? v + 1 : v), JSON.stringify([1, [2]], null, 2)]`,
			`["{\"a\":[1,{\"b\":\"c\"}]}", "{\"a\":1,\"c\":{\"a\":3}}", "{\"a\":2,\"b\":\"x\"}", "[\n  1,\n  [\n    2\n  ]\n]"]`},
		{`return [JSON.parse("[[1], {\"a\": \"[[[\"}]"), /a(?=b)/.test("ab"), "aXbX".replace(/X(?!$)/g, "-")]`, `[[[1], {"a": "[[["}], true, "a-bX"]`},
		{`const p = new Proxy({a: 1}, {}); return [p.a, new Proxy(p, {}).a, typeof Proxy, Proxy.name]`, `[1, 1, "function", "Proxy"]`},
		{`const r = []; for (const f of [() => [Symbol()].join(), () => "a".concat(Symbol()), () => "a".replace("a", () => Symbol()),
  () => Proxy({}, {}), () => Uint8Array(2), () => new Proxy()]) { try { f(); r.push("no error") } catch (e) { r.push(e.constructor.name) } } return r`,
			`["TypeError", "TypeError", "TypeError", "TypeError", "TypeError", "TypeError"]`},
		{`const {proxy, revoke} = Proxy.revocable({a: 2}, {}); const v = proxy.a; revoke(); return [v, Uint8Array.BYTES_PER_ELEMENT, Float64Array.length, ArrayBuffer.isView(new Uint8Array(1))]`, `[2, 1, 3, true]`},
	}
	for _, tc := range tests {
		t.Run(tc.code, func(t *testing.T) {
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: tc.code})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

// TestDefaultBuiltinBound checks that, with the default bound, a call that
// would build a gigabyte string fails at once with the allocation limit,
// where goja would build it out of the reach of the wall time.
func TestDefaultBuiltinBound(t *testing.T) {
	x := newExecutor(t)
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `return "x".repeat(1e9).length;`})
	require.Error(t, err)
	assert.Equal(t, toolcode.LimitAllocation, toolcode.LimitOf(err), err.Error())

	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `return "x".repeat(1 << 20).length;`})
	require.NoError(t, err)
	assert.JSONEq(t, `1048576`, string(res.Value))
}

// TestNestingIsBounded checks that what goja does natively, one Go frame
// per level (stringify, parse, join through toString, flat, proxies of
// proxies), stops at the call-depth bound with the stack limit, where it
// would run out of the reach of the wall time, or past the Go stack.
func TestNestingIsBounded(t *testing.T) {
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, toolcode.WithEngine(javascript.New(javascript.WithMaxCallStackSize(200))))
	const deep = "let a = []; for (let i = 0; i < 1000; i++) a = [a];\n"
	for _, code := range []string{
		deep + "return JSON.stringify(a).length",
		deep + "return a",
		deep + "return String(a).length",
		deep + "return a.flat(Infinity).length",
		`return JSON.parse("[".repeat(1000) + "]".repeat(1000)).length`,
		`let p = {}; for (let i = 0; i < 1000; i++) p = new Proxy(p, {}); return p.x`,
	} {
		t.Run(code, func(t *testing.T) {
			_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code})
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), err.Error())
			assert.Equal(t, toolcode.LimitStack, toolcode.LimitOf(err), err.Error())
		})
	}
}

// TestMemoryLimit checks that a program whose memory grows past the
// engine's bound, one small step at a time or in big ones, is stopped with
// the memory limit, well before its wall time.
func TestMemoryLimit(t *testing.T) {
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, toolcode.WithEngine(javascript.New(javascript.WithMemoryLimit(16<<20))))
	for _, code := range []string{
		`const a = []; for (;;) a.push({n: a.length, s: "item " + a.length});`,
		`let s = "x"; for (;;) s += s;`,
		`const a = []; for (;;) a.push(new Uint8Array(1 << 20));`,
	} {
		t.Run(code, func(t *testing.T) {
			_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code, Limits: toolcode.Limits{WallTime: time.Minute}})
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), err.Error())
			assert.Equal(t, toolcode.LimitMemory, toolcode.LimitOf(err), err.Error())
		})
	}
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `let n = 0; for (let i = 0; i < 200; i++) n += "x".repeat(1 << 16).length; return n;`})
	require.NoError(t, err, "garbage is not growth")
	assert.JSONEq(t, `13107200`, string(res.Value))
}

// TestRegexpMatchTime checks that a regular expression that backtracks
// for ever is cut short, and that the program learns it by a RangeError
// with the match-time limit rather than a wrong answer.
func TestRegexpMatchTime(t *testing.T) {
	x := newExecutor(t)
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `try { /^(?=(a+)+$)/.test("a".repeat(40) + "b"); return "no error" } catch (e) { return [e instanceof RangeError, e.code] }`})
	require.NoError(t, err)
	assert.JSONEq(t, `[true, "resource_exhausted"]`, string(res.Value))
	_, err = x.Execute(context.Background(), toolcode.ExecuteParams{Code: `return ("a".repeat(40) + "b").replace(/^(?=(a+)+$)/g, "x")`})
	require.Error(t, err)
	assert.Equal(t, toolcode.LimitMatchTime, toolcode.LimitOf(err), err.Error())
}

// keep returns the JSON object of raw with only the given members.
func keep(t *testing.T, raw []byte, members ...string) string {
	t.Helper()
	var m map[string]any
	require.NoError(t, json.Unmarshal(raw, &m), string(raw))
	out := map[string]any{}
	for _, k := range members {
		out[k] = m[k]
	}
	b, err := json.Marshal(out)
	require.NoError(t, err)
	return string(b)
}
