package javascript_test

import (
	"context"
	"encoding/json"
	"testing"

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
