package quickjs_test

import (
	"context"
	"encoding/json"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/quickjs"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/tooldocs"
)

func execute(t testing.TB, e toolcode.Engine, code string, limits toolcode.Limits, opts ...toolcode.Option) (*toolcode.Result, error) {
	t.Helper()
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, append([]toolcode.Option{toolcode.WithEngine(e)}, opts...)...)
	return x.Execute(context.Background(), toolcode.ExecuteParams{Language: e.Language(), Code: code, Limits: limits})
}

func TestValues(t *testing.T) {
	tests := []struct {
		name, code, want string
	}{
		{"last expression", "const a = 20;\na + 22", `42`},
		{"last expression awaited", "const r = await tools.math.add({a: 1, b: 2});\nr.sum", `3`},
		{"return", "return [1, 2]", `[1,2]`},
		{"return inside a branch", "if (true) { return 'yes'; }\n'no'", `"yes"`},
		{"nothing", "let x = 1;", `null`},
		{"undefined", "undefined", `null`},
		{"bracket form", `(await tools["my-ns"]["do-thing"]()).done`, `true`},
		{"ns form", `(await tools.ns("math").add({a: 1, b: 1})).sum`, `2`},
		{"replaced JSON does not reach the bridge", "JSON.stringify = () => 'x'; JSON.parse = () => 1;\n(await tools.math.add({a: 1, b: 1})).sum", `2`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res, err := execute(t, quickjs.New(), tc.code, toolcode.Limits{})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(res.Value))
		})
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name, code string
		want       errors.Code
		contains   []string
	}{
		{"syntax error in a script", "const a = 1;\nconst = ;", errors.InvalidArgument, []string{"line 2", "column 7"}},
		{"syntax error with a return", "return 1;\nconst = ;", errors.InvalidArgument, []string{"line 2", "column 7"}},
		{"syntax error on the first line of a wrapped program", "return 1 +;", errors.InvalidArgument, []string{"line 1"}},
		{"exception", "const a = 1;\n\nnull.x;", errors.Execution, []string{"line 3", "TypeError"}},
		{"exception after a call", "await tools.math.add({a: 1, b: 2});\nthrow new Error('late');", errors.Execution, []string{"line 2", "late"}},
		{"thrown value", "throw 42", errors.Execution, []string{"uncaught 42"}},
		{"arguments that are not JSON", "const a = {}; a.self = a;\nawait tools.util.echo(a);", errors.Execution, []string{"line 2", "TypeError"}},
		{"unsettled promise", "await new Promise(() => {});", errors.Execution, []string{"nothing settles"}},
		{"value that is not JSON", "return {toJSON() { throw new Error('no'); }}", errors.Execution, []string{"not JSON"}},
		{"bad search limit", "await tools.search('x', 1.5)", errors.InvalidArgument, []string{"whole number"}},
		{"bad describe level", "await tools.describe('math:add', 'everything')", errors.InvalidArgument, []string{"describe"}},
		{"chain of nothing", "await tools.chain([])", errors.InvalidArgument, []string{"no steps"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := execute(t, quickjs.New(), tc.code, toolcode.Limits{})
			require.Error(t, err)
			assert.Equal(t, tc.want, errors.CodeOf(err), err.Error())
			for _, s := range tc.contains {
				assert.Contains(t, err.Error(), s)
			}
		})
	}
}

func TestLimitMemory(t *testing.T) {
	programs := map[string]string{
		"one big string":  `"x".repeat(256 << 20).length`,
		"array growth":    `const a = []; for (;;) a.push({i: a.length, s: "y".repeat(64)});`,
		"string doubling": `let s = "z"; for (;;) s = s.repeat(2);`,
		// The heap is freed as the exception leaves f: only the null
		// QuickJS throws tells what happened.
		"a function's locals": `function f() { const a = []; for (;;) a.push({i: a.length}); } f();`,
	}
	for name, code := range programs {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := execute(t, quickjs.New(quickjs.WithMemoryLimit(16<<20)), code, toolcode.Limits{WallTime: 30 * time.Second})
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), err.Error())
			assert.Equal(t, toolcode.LimitMemory, toolcode.LimitOf(err))
			assert.Less(t, time.Since(start), 20*time.Second, "stopped by the cap, not the wall time")
		})
	}
	t.Run("a caught failure is the program's", func(t *testing.T) {
		res, err := execute(t, quickjs.New(quickjs.WithMemoryLimit(16<<20)),
			`try { "x".repeat(64 << 20); } catch (e) { return String(e); }`, toolcode.Limits{})
		require.NoError(t, err)
		assert.Contains(t, string(res.Value), "out of memory")
	})
	t.Run("under the cap", func(t *testing.T) {
		res, err := execute(t, quickjs.New(quickjs.WithMemoryLimit(16<<20)), `"x".repeat(4 << 20).length`, toolcode.Limits{})
		require.NoError(t, err)
		assert.Equal(t, strconv.Itoa(4<<20), string(res.Value))
	})
}

func TestLimitStack(t *testing.T) {
	const code = `let depth = 0; function f() { depth++; f(); } try { f(); } catch (e) {} return depth;`
	small, err := execute(t, quickjs.New(quickjs.WithMaxStackSize(200)), code, toolcode.Limits{})
	require.NoError(t, err)
	large, err := execute(t, quickjs.New(quickjs.WithMaxStackSize(4000)), code, toolcode.Limits{})
	require.NoError(t, err)
	s, _ := strconv.Atoi(string(small.Value))
	l, _ := strconv.Atoi(string(large.Value))
	assert.Positive(t, s)
	assert.Greater(t, l, 5*s, "the depth follows the bound (%d, %d)", s, l)

	_, err = execute(t, quickjs.New(quickjs.WithMaxStackSize(200)), `function f(n) { return f(n + 1) + 1; } return f(0);`, toolcode.Limits{})
	require.Error(t, err)
	assert.Equal(t, toolcode.LimitStack, toolcode.LimitOf(err))
}

func TestGlobalsAreTheEnginesOwn(t *testing.T) {
	res, err := execute(t, quickjs.New(), `[typeof __mt_call, typeof __mt_log, typeof __mt_done, delete globalThis.tools, typeof tools]`, toolcode.Limits{})
	require.NoError(t, err)
	assert.JSONEq(t, `["undefined","undefined","undefined",false,"object"]`, string(res.Value))
}

// TestFreshVM shows why every execution gets a VM of its own: what a
// program leaves behind (a global, a changed built-in) does not reach the
// next one.
func TestFreshVM(t *testing.T) {
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, toolcode.WithEngine(quickjs.New()))
	ctx := context.Background()
	_, err := x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: `globalThis.leak = 1; Array.prototype.push = null; var v = 2;`})
	require.NoError(t, err)
	res, err := x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: `[typeof leak, typeof [].push, typeof v]`})
	require.NoError(t, err)
	assert.JSONEq(t, `["undefined","function","undefined"]`, string(res.Value))
}

func TestLanguage(t *testing.T) {
	assert.Equal(t, "javascript", quickjs.New().Language())
	assert.Equal(t, "quickjs", quickjs.New(quickjs.WithLanguage("quickjs")).Language())
	assert.Equal(t, quickjs.DefaultMemoryLimit, quickjs.New().MemoryLimit())
	assert.Equal(t, 1<<20, quickjs.New(quickjs.WithMemoryLimit(10)).MemoryLimit())
}

// vmRSS reads the resident set size of this process, in bytes.
func vmRSS(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmRSS in /proc/self/status")
	return 0
}

// TestMemoryCapBoundsRSS runs programs that allocate far past a 64 MiB cap,
// several times: each is stopped with the memory limit, and the host's
// resident memory grows by less than the cap plus a margin, where without
// a cap one 256 MiB string alone would add 256 MiB (512 MiB as UTF-16).
func TestMemoryCapBoundsRSS(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("needs /proc/self/status (Linux)")
	}
	const limit = 64 << 20
	e := quickjs.New(quickjs.WithMemoryLimit(limit))
	programs := []string{
		`"x".repeat(256 << 20).length`,
		`const a = []; for (;;) a.push("y".repeat(1024) + a.length);`,
		`let s = "z"; for (;;) s = s.repeat(2);`,
	}
	runtime.GC()
	before := vmRSS(t)
	peak := before
	// Time is not what this test bounds: a slow machine (the race
	// detector makes the allocations several times slower) must meet the
	// memory limit first.
	slow := []toolcode.Option{toolcode.WithLimits(toolcode.Limits{WallTime: 10 * time.Minute}), toolcode.WithTimeout(10 * time.Minute)}
	for i := range 3 {
		for _, code := range programs {
			_, err := execute(t, e, code, toolcode.Limits{}, slow...)
			require.Error(t, err)
			require.Equal(t, toolcode.LimitMemory, toolcode.LimitOf(err), "round %d: %v", i, err)
			peak = max(peak, vmRSS(t))
		}
	}
	runtime.GC()
	after := vmRSS(t)
	t.Logf("VmRSS before %d MiB, after %d MiB, highest seen between runs %d MiB (cap %d MiB)", before>>20, after>>20, peak>>20, limit>>20)
	assert.Less(t, peak-before, int64(limit+32<<20), "resident memory grew past the cap")
	assert.Less(t, after-before, int64(limit+32<<20), "resident memory kept past the cap")
}

// TestReservedNamesAreTheEngines checks that the engine answers exactly
// tooldocs.ReservedNames itself (the names the declarations of
// tooldocs.TypeScript avoid): each is one of its functions (then is
// undefined, on the root and on a namespace), any other name is a
// namespace, and a tool a declaration reaches by ID runs.
func TestReservedNamesAreTheEngines(t *testing.T) {
	names, err := json.Marshal(tooldocs.ReservedNames())
	require.NoError(t, err)
	res, err := execute(t, quickjs.New(), `
		const kinds = {};
		for (const name of `+string(names)+`.concat(["plain", "util", "runs", "Then"])) {
			const v = tools[name];
			kinds[name] = v === undefined ? "undefined" : v === tools.ns(name) ? "namespace" : "function";
		}
		kinds["util.then"] = typeof tools.util.then;
		kinds["await tools"] = (await tools) === tools;
		kinds["await tools.util"] = (await tools.util) === tools.util;
		kinds["by ID"] = (await tools.run("my-ns:do-thing", {})).done;
		return kinds;`, toolcode.Limits{})
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"run": "function", "search": "function", "namespaces": "function", "describe": "function",
		"examples": "function", "chain": "function", "ns": "function", "log": "function", "then": "undefined",
		"plain": "namespace", "util": "namespace", "runs": "namespace", "Then": "namespace",
		"util.then": "undefined", "await tools": true, "await tools.util": true, "by ID": true
	}`, string(res.Value))
}
