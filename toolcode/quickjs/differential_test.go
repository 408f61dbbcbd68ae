package quickjs_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/quickjs"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// sameAsGoja are programs beyond the conformance suite's cases on which
// both engines must agree to the byte. What they cannot agree on is left
// out, and said in the package documentation: the messages and columns of
// the runtimes' own exceptions (JSON.stringify's for a circular argument,
// "cannot read property"), Date's toString, the built-ins each provides,
// a caught stack overflow, and an uncaught null (QuickJS throws null when
// its heap is exhausted).
var sameAsGoja = []string{
	`throw {code: "x", message: "y", nested: {list: [1, {deep: true}]}}`,
	`throw [undefined, null, () => 1]`,
	"function f(n) { if (n === 0) throw {depth: 'bottom'}; return f(n - 1); }\nf(50)",
	`await tools.math.add({a: 1, b: 2}); throw {after: "a call"}`,
	`await Promise.all([tools.math.add({a: 1, b: 2}), Promise.reject({which: "second"})])`,
	`throw Object.defineProperty({}, "hidden", {value: 1, enumerable: false})`,
	`throw {[Symbol("k")]: 1, a: 2}`,
	`throw Object.assign(Object.create({inherited: 1}), {own: 2})`,
	`throw new Number(3)`,
	`throw /re/g`,
	`throw new (class extends Error { get name() { return "Named"; } })("by a getter")`,
	`throw {message: "plain objects show as JSON", name: "NotAnError"}`,
	`throw Object.assign(new Error("with fields"), {code: "E_X"})`,
	`throw new AggregateError([new Error("a")], "several")`,
	`const e = new Error("first"); e.message = "changed"; throw e`,
	`throw {s: "\ud800 lone", t: "\udc00\ud800"}`,
	`throw "\ud800 lone"`,
	`throw "x".repeat(998) + "😀😀"`,
	`throw {a: "x".repeat(990), b: "😀".repeat(10)}`,
	`throw {toJSON() { throw new Error("toJSON fails"); }}`,
	`throw {a: 1, get b() { return this.a + 1; }}`,
	`throw new Proxy({a: 1}, {ownKeys() { throw new Error("no keys"); }})`,
	`throw new Proxy({}, {getPrototypeOf() { return Array.prototype; }})`,
	`const r = Proxy.revocable({}, {}); r.revoke(); throw r.proxy`,
	`throw tools.ns("math")`,
	`return {toJSON() { throw "plain text"; }}`,
	`return {toJSON() { throw new TypeError("typed"); }}`,
	`console.log(new Proxy({}, {get() { throw 1; }}))`,
	`console.log({toJSON() { return undefined; }}, {a: BigInt(1)})`,
	`console.log(Object.assign(new Error("e"), {code: "c"}), [new Error("in an array")])`,
	`console.log(tools, tools.math, tools.math.add)`,
	`return [typeof tools, typeof tools.math, typeof tools.math.add, typeof console, typeof console.log]`,
	`return [Object.keys(tools), JSON.stringify(tools.math), await tools === tools, tools.then]`,
	`return await tools.chain([{toolId: "math:add", args: {a: 1, b: 2}}, {toolId: "util:echo", usePrevious: true, previousKey: "p"}])`,
	`return await tools.run("util:echo", {d: new Date(0), u: undefined, f() {}, n: NaN, nested: [undefined]})`,
	`return await tools.util.echo({big: BigInt(1)})`,
	`return await tools.describe("nope:nothing")`,
	`return await tools.examples("nope:nothing", 1)`,
	`try { await tools.nope.nothing({}); } catch (e) { return [e.name, e.code, e.toolId, e.message]; }`,
	`return (await tools.search("add", 1e10)).length`,
	`return await tools.describe("math:add", "summary")`,
}

// TestSameAsGoja runs programs on this engine and on the goja engine
// (toolcode/javascript) and compares the outcomes: values, logs, error
// codes and messages, and the lines errors name.
func TestSameAsGoja(t *testing.T) {
	f := toolcodetest.NewFixture(t)
	f.Gate.Release()
	engines := map[string]*toolcode.Executor{
		"quickjs": toolcode.New(f.Ops, toolcode.WithEngine(quickjs.New())),
		"goja":    toolcode.New(f.Ops, toolcode.WithEngine(javascript.New())),
	}
	programs := append([]string(nil), sameAsGoja...)
	for _, c := range toolcodetest.JavaScriptPrograms.Cases {
		programs = append(programs, c.Code)
	}
	for _, code := range programs {
		t.Run(code, func(t *testing.T) {
			var outcomes [2]outcome
			for i, name := range []string{"quickjs", "goja"} {
				res, err := engines[name].Execute(context.Background(), toolcode.ExecuteParams{Code: code})
				require.NotNil(t, res)
				outcomes[i] = outcomeOf(res, err)
			}
			assert.Equal(t, outcomes[1], outcomes[0], "quickjs (actual) and goja (expected) differ")
		})
	}
}

// outcome is what the engines must agree on.
type outcome struct {
	Value   string
	Logs    []string
	Code    errors.Code
	Message string
	Line    string
}

// column is the column an error names: each runtime counts it its own
// way (goja at the start of the expression, QuickJS at the operator).
var column = regexp.MustCompile(`, column \d+\)$`)

func outcomeOf(res *toolcode.Result, err error) outcome {
	o := outcome{Value: string(res.Value), Logs: res.Logs}
	if err == nil {
		return o
	}
	o.Code, o.Message = errors.CodeOf(err), column.ReplaceAllString(err.Error(), ")")
	var e *errors.Error
	if errors.As(err, &e) {
		o.Line = e.Meta["line"]
	}
	return o
}

// FuzzSameAsGoja throws and logs values made from arbitrary JSON on both
// engines: they show them alike.
func FuzzSameAsGoja(f *testing.F) {
	for _, s := range []string{`{"code":"x","message":"y"}`, `[1,"two",null,true,{"b":-0.5}]`, `"text"`, `1e21`, `null`,
		`{"s":"\u2028\n\t\"\\ \u0001 😀 \ud800"}`, `{"__proto__":{"x":1}}`, `{"2":1,"1":2,"b":3}`, `[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]`} {
		f.Add(s, 0)
	}
	fixture := toolcodetest.NewFixture(f)
	engines := []*toolcode.Executor{
		toolcode.New(fixture.Ops, toolcode.WithEngine(quickjs.New())),
		toolcode.New(fixture.Ops, toolcode.WithEngine(javascript.New())),
	}
	forms := []string{
		"throw JSON.parse(%s);",
		"console.log(JSON.parse(%s), [JSON.parse(%[1]s)]);",
		"const v = JSON.parse(%s); throw typeof v === \"object\" && v !== null ? Object.assign(new Error(\"wrapped\"), {v}) : v;",
		"const v = JSON.parse(%s); if (v !== null && typeof v === \"object\") v.self = v; throw v;",
	}
	f.Fuzz(func(t *testing.T, text string, form int) {
		var value any
		if json.Unmarshal([]byte(text), &value) != nil || value == nil {
			// An uncaught null is QuickJS's sign of a full heap (see the
			// package documentation).
			return
		}
		// Through encoding/json, which writes a lone surrogate as U+FFFD:
		// goja's JSON.parse does so, QuickJS's does not.
		normal, err := json.Marshal(value)
		require.NoError(t, err)
		literal, err := json.Marshal(string(normal)) // a JSON string is a JavaScript string literal
		require.NoError(t, err)
		code := fmt.Sprintf(forms[uint(form)%uint(len(forms))], literal)
		var outcomes [2]outcome
		for i, x := range engines {
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code})
			require.NotNil(t, res)
			outcomes[i] = outcomeOf(res, err)
		}
		assert.Equal(t, outcomes[1], outcomes[0], "quickjs (actual) and goja (expected) differ on %s", code)
	})
}
