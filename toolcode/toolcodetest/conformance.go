package toolcodetest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Programs are the programs of the conformance suite, in the engine's
// language. Each field says what its program must do.
type Programs struct {
	// Return returns the object {"answer": 42, "list": [1, "two", null]}.
	Return string
	// ReturnNothing returns nothing (the value is null).
	ReturnNothing string
	// CallTool calls math:add with {a: 2, b: 40} through the namespace
	// form and returns the tool's result ({"sum": 42}).
	CallTool string
	// CallGeneric calls "text:upper" with {s: "abc"} through the generic
	// run and returns the result's s ("ABC").
	CallGeneric string
	// CallOddNames calls my-ns:do-thing and the unnamespaced tool plain and
	// returns [doThingResult, plainResult].
	CallOddNames string
	// Discover searches for "add", lists the namespaces, describes
	// "math:add" and lists its examples, and returns
	// {found: <ID of the first search hit>, namespaces: [...],
	// name: <the doc's name>, examples: <number of examples>}.
	Discover string
	// Chain chains math:add {a:1,b:2} then util:echo with the previous
	// result passed whole (usePrevious) and returns the chain's results.
	Chain string
	// Log logs "hello" and then the object {"x": 1}, and returns "done".
	Log string
	// Parallel starts six util:gate calls at once, waits for all and
	// returns how many there were (6).
	Parallel string
	// CallsInLoop calls util:echo 5 times in sequence, catching and
	// ignoring every error, then returns "survived".
	CallsInLoop string
	// CallsWithoutYielding calls util:echo ten million times in a loop
	// that never awaits, then returns "survived".
	CallsWithoutYielding string
	// SearchesInLoop searches 1,000 times in sequence, catching and
	// ignoring every error, then returns "survived".
	SearchesInLoop string
	// Spin loops forever without calling anything.
	Spin string
	// SpinAfterCall calls math:add, then loops forever.
	SpinAfterCall string
	// Recurse recurses without end.
	Recurse string
	// Allocate allocates without end (growing an array of strings).
	Allocate string
	// LogFlood logs lines without end, catching every error.
	LogFlood string
	// BigValue returns a string of 10000 characters.
	BigValue string
	// SyntaxError does not compile: its second line is malformed.
	SyntaxError string
	// Throw throws an error on its third line.
	Throw string
	// ToolFailure calls util:fail {message: "boom"} without catching (the
	// tool fails with code unavailable).
	ToolFailure string
	// CatchToolFailure calls util:fail, catches the error and returns its
	// code.
	CatchToolFailure string
	// UnknownTool calls nope:nothing without catching.
	UnknownTool string
	// Secret calls util:echo with {token: "s3cr3t-value", q: "x"}.
	Secret string
	// Wait awaits a util:gate call (that never passes) and returns.
	Wait string
	// Cases are programs with the outcome each must have, run as they
	// are: how a thrown value is shown, how the functions of the tools
	// check their arguments, and what becomes of a value without JSON.
	// [JavaScriptPrograms] has them for JavaScript; an engine of another
	// language brings its own, or none.
	Cases []Case
	// ThrowSlowGetter throws, without catching it, an object whose
	// getter loops forever.
	ThrowSlowGetter string
	// LogSlowGetter logs an object whose getter loops forever.
	LogSlowGetter string
	// ThrowHuge throws, without catching it, an object of 50000 members
	// "k0": 0, "k1": 1, ...
	ThrowHuge string
}

// JavaScriptPrograms are the suite's programs in JavaScript; TypeScript
// engines run them as they are.
var JavaScriptPrograms = Programs{
	Return:        `return {answer: 42, list: [1, "two", null]};`,
	ReturnNothing: `const x = 1;`,
	CallTool:      `return await tools.math.add({a: 2, b: 40});`,
	CallGeneric:   `const r = await tools.run("text:upper", {s: "abc"}); return r.s;`,
	CallOddNames:  `return [await tools["my-ns"]["do-thing"]({}), await tools.plain({})];`,
	Discover: `const hits = await tools.search("add");
const ns = await tools.namespaces();
const doc = await tools.describe("math:add", "full");
const ex = await tools.examples("math:add");
return {found: hits[0].id, namespaces: ns, name: doc.name, examples: ex.length};`,
	Chain: `return await tools.chain([{id: "math:add", args: {a: 1, b: 2}}, {id: "util:echo", usePrevious: true}]);`,
	Log:   `console.log("hello"); console.log({x: 1}); return "done";`,
	Parallel: `const calls = [];
for (let i = 0; i < 6; i++) calls.push(tools.util.gate({}));
const all = await Promise.all(calls);
return all.length;`,
	CallsInLoop: `for (let i = 0; i < 5; i++) { try { await tools.util.echo({i}); } catch (e) {} }
return "survived";`,
	CallsWithoutYielding: `for (let i = 0; i < 10000000; i++) { tools.util.echo({i}).catch(() => {}); }
return "survived";`,
	SearchesInLoop: `for (let i = 0; i < 1000; i++) { try { await tools.search("add"); } catch (e) {} }
return "survived";`,
	Spin:          `while (true) {}`,
	SpinAfterCall: `await tools.math.add({a: 1, b: 2}); for (;;) {}`,
	Recurse:       `function f(n) { return f(n + 1) + 1; } return f(0);`,
	Allocate:      `const a = []; while (true) { a.push("x".repeat(1024)); }`,
	LogFlood:      `for (;;) { try { console.log("0123456789"); } catch (e) {} }`,
	BigValue:      `return "x".repeat(10000);`,
	SyntaxError:   "const a = 1;\nconst = ;\n",
	Throw:         "const a = 1;\nconst b = 2;\nthrow new Error(\"bad thing\");\n",
	ToolFailure:   `await tools.util.fail({message: "boom"});`,
	CatchToolFailure: `try { await tools.util.fail({message: "boom"}); } catch (e) { return e.code; }
return "no error";`,
	UnknownTool: `await tools.nope.nothing({});`,
	Secret:      `return await tools.util.echo({token: "s3cr3t-value", q: "x"});`,
	Wait:        `await tools.util.gate({}); return "passed";`,
	Cases:       javaScriptCases,

	ThrowSlowGetter: `throw {get a() { for (;;) {} }};`,
	LogSlowGetter:   `console.log({get a() { for (;;) {} }});`,
	ThrowHuge:       `const o = {}; for (let i = 0; i < 50000; i++) o["k" + i] = i; throw o;`,
}

// Option adapts the suite to how an engine runs programs.
type Option func(*suite)

// suite holds what the options set.
type suite struct {
	startup    time.Duration
	concurrent int
}

// OutOfProcess tells the suite that the engine starts something for each
// execution (a process, a WebAssembly module) that takes up to startup
// before the program's first line runs: the cases that give a program a
// short wall time, to make a call first or to be stopped in a loop at its
// deadline, give it startup more.
func OutOfProcess(startup time.Duration) Option {
	return func(s *suite) { s.startup = startup }
}

// SequentialCalls tells the suite that the engine runs a program's tool
// calls one at a time, whatever the concurrency limit: the suite checks
// that they never overlap instead of checking that they do.
func SequentialCalls() Option { return func(s *suite) { s.concurrent = 1 } }

// RunEngine runs the conformance suite against the engines newEngine
// returns, with [JavaScriptPrograms] for the languages "javascript" and
// "typescript"; other languages need [RunEngineWithPrograms].
func RunEngine(t *testing.T, newEngine func() toolcode.Engine, opts ...Option) {
	t.Helper()
	switch lang := newEngine().Language(); lang {
	case "javascript", "typescript":
		RunEngineWithPrograms(t, newEngine, JavaScriptPrograms, opts...)
	default:
		t.Fatalf("toolcodetest: no built-in programs for language %q: use RunEngineWithPrograms", lang)
	}
}

// execute runs one program on a fresh fixture.
func execute(t *testing.T, f *Fixture, e toolcode.Engine, p toolcode.ExecuteParams, opts ...toolcode.Option) (*toolcode.Result, error) {
	t.Helper()
	x := toolcode.New(f.Ops, append([]toolcode.Option{toolcode.WithEngine(e)}, opts...)...)
	p.Language = e.Language()
	return x.Execute(context.Background(), p)
}

// RunEngineWithPrograms runs the conformance suite against the engines
// newEngine returns, with programs in their language. It checks values,
// tool access, discovery, logs, the trace, concurrency, every limit with its
// code and every kind of error.
func RunEngineWithPrograms(t *testing.T, newEngine func() toolcode.Engine, p Programs, opts ...Option) {
	t.Helper()
	s := suite{concurrent: 3}
	for _, o := range opts {
		o(&s)
	}
	run := func(t *testing.T, code string, limits toolcode.Limits, opts ...toolcode.Option) (*toolcode.Result, error) {
		t.Helper()
		return execute(t, NewFixture(t), newEngine(), toolcode.ExecuteParams{Code: code, Limits: limits}, opts...)
	}
	values := []struct {
		name, code, want string
	}{
		{"Return", p.Return, `{"answer":42,"list":[1,"two",null]}`},
		{"ReturnNothing", p.ReturnNothing, `null`},
		{"CallTool", p.CallTool, `{"sum":42}`},
		{"CallGeneric", p.CallGeneric, `"ABC"`},
		{"CallOddNames", p.CallOddNames, `[{"done":true},{"plain":true}]`},
		{"Discover", p.Discover, `{"found":"math:add","namespaces":["math","my-ns","text","util"],"name":"add","examples":1}`},
		{"Chain", p.Chain, `[{"sum":3},{"previous":{"sum":3}}]`},
		{"Log", p.Log, `"done"`},
	}
	for _, tc := range values {
		t.Run("Value/"+tc.name, func(t *testing.T) {
			res, err := run(t, tc.code, toolcode.Limits{})
			require.NoError(t, err)
			assert.JSONEq(t, tc.want, string(res.Value))
		})
	}

	t.Run("Logs", func(t *testing.T) {
		res, err := run(t, p.Log, toolcode.Limits{})
		require.NoError(t, err)
		assert.Equal(t, []string{"hello", `{"x":1}`}, res.Logs)
	})

	t.Run("Trace", func(t *testing.T) {
		res, err := run(t, p.CallTool, toolcode.Limits{})
		require.NoError(t, err)
		require.Len(t, res.Trace, 1)
		tr := res.Trace[0]
		assert.Equal(t, "math:add", tr.ToolID)
		assert.JSONEq(t, `{"a":2,"b":40}`, string(tr.Args))
		assert.Equal(t, "local:add", tr.Backend)
		assert.True(t, tr.OK)
		assert.Positive(t, tr.ResultBytes)
	})

	t.Run("TraceMasksSecrets", func(t *testing.T) {
		res, err := run(t, p.Secret, toolcode.Limits{})
		require.NoError(t, err)
		require.Len(t, res.Trace, 1)
		assert.NotContains(t, string(res.Trace[0].Args), "s3cr3t-value")
		assert.Contains(t, string(res.Trace[0].Args), `"q":"x"`)
	})

	t.Run("Metadata", func(t *testing.T) {
		f := NewFixture(t)
		_, err := execute(t, f, newEngine(), toolcode.ExecuteParams{Code: p.CallTool, Metadata: map[string]string{"session": "s-1"}})
		require.NoError(t, err)
		md := f.Metadata()
		require.Len(t, md, 1)
		assert.Equal(t, "s-1", md[0]["session"])
	})

	t.Run("ParallelBoundedByConcurrency", func(t *testing.T) {
		// Six gate calls at once under a limit of three: the suite waits
		// until as many as the engine runs at once are under way, then
		// opens the gate. The bound itself is the Tools' (every engine
		// shares it), so no more may ever be under way.
		f := NewFixture(t)
		type out struct {
			res *toolcode.Result
			err error
		}
		done := make(chan out, 1)
		go func() {
			res, err := execute(t, f, newEngine(), toolcode.ExecuteParams{Code: p.Parallel, Limits: toolcode.Limits{Concurrency: 3}})
			done <- out{res, err}
		}()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		waited := f.Gate.WaitInFlight(ctx, s.concurrent)
		f.Gate.Release()
		o := <-done
		require.NoError(t, waited, "calls under way while the gate is closed")
		require.NoError(t, o.err)
		assert.JSONEq(t, `6`, string(o.res.Value))
		assert.Equal(t, s.concurrent, f.Gate.Max())
		assert.Equal(t, 6, f.Gate.Calls())
		assert.Len(t, o.res.Trace, 6)
	})

	t.Run("Limit/ToolCalls", func(t *testing.T) {
		res, err := run(t, p.CallsInLoop, toolcode.Limits{ToolCalls: 3})
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitToolCalls, toolcode.LimitOf(err))
		assert.Len(t, res.Trace, 3, "the calls within the limit ran and were traced")
	})

	t.Run("Limit/CallsWithoutYielding", func(t *testing.T) {
		// Calls a program makes without yielding are refused past the
		// budget, not held: the execution ends with the limit, long before
		// its wall time.
		res, err := run(t, p.CallsWithoutYielding, toolcode.Limits{ToolCalls: 5, WallTime: time.Minute})
		require.Error(t, err)
		assert.Equal(t, toolcode.LimitToolCalls, toolcode.LimitOf(err), "error: %v", err)
		assert.Len(t, res.Trace, 5, "the calls within the limit ran")
		assert.Less(t, res.Duration, 30*time.Second)
	})

	t.Run("Limit/SearchesCount", func(t *testing.T) {
		_, err := run(t, p.SearchesInLoop, toolcode.Limits{ToolCalls: 3})
		require.Error(t, err)
		assert.Equal(t, toolcode.LimitToolCalls, toolcode.LimitOf(err), "a search counts against the calls")
	})

	t.Run("Limit/ChainSteps", func(t *testing.T) {
		_, err := run(t, p.Chain, toolcode.Limits{ChainSteps: 1})
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitChainSteps, toolcode.LimitOf(err))
	})

	t.Run("Limit/WallTime", func(t *testing.T) {
		// The deadline falls while the program spins, not while the
		// engine starts (see OutOfProcess).
		wall := s.startup + 200*time.Millisecond
		start := time.Now()
		_, err := run(t, p.Spin, toolcode.Limits{WallTime: wall})
		late := time.Since(start) - wall
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitWallTime, toolcode.LimitOf(err))
		assert.Less(t, late, 100*time.Millisecond, "stopped %v after the deadline", late)
	})

	t.Run("Limit/WallTimeAfterCall", func(t *testing.T) {
		// The deadline must fall after the call: on a machine too busy to
		// make it within the first margin, the margin doubles.
		for margin := 100 * time.Millisecond; ; margin *= 2 {
			res, err := run(t, p.SpinAfterCall, toolcode.Limits{WallTime: s.startup + margin})
			require.Error(t, err)
			assert.Equal(t, errors.Timeout, errors.CodeOf(err))
			if len(res.Trace) > 0 || margin >= 3*time.Second {
				assert.Len(t, res.Trace, 1, "the trace of the call made before the deadline")
				break
			}
		}
	})

	t.Run("Limit/WallTimeWhileWaiting", func(t *testing.T) {
		_, err := run(t, p.Wait, toolcode.Limits{WallTime: 50 * time.Millisecond})
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
	})

	t.Run("Limit/Allocation", func(t *testing.T) {
		_, err := run(t, p.Allocate, toolcode.Limits{WallTime: 100 * time.Millisecond})
		require.Error(t, err)
		assert.Contains(t, []errors.Code{errors.Timeout, errors.ResourceExhausted}, errors.CodeOf(err))
	})

	t.Run("Limit/Recursion", func(t *testing.T) {
		_, err := run(t, p.Recurse, toolcode.Limits{WallTime: 10 * time.Second})
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitStack, toolcode.LimitOf(err))
	})

	t.Run("Limit/OutputLogs", func(t *testing.T) {
		res, err := run(t, p.LogFlood, toolcode.Limits{OutputBytes: 1000})
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitOutputBytes, toolcode.LimitOf(err))
		total := 0
		for _, l := range res.Logs {
			total += len(l)
		}
		assert.LessOrEqual(t, total, 1000)
	})

	t.Run("Limit/OutputValue", func(t *testing.T) {
		res, err := run(t, p.BigValue, toolcode.Limits{OutputBytes: 1000})
		require.Error(t, err)
		assert.Equal(t, toolcode.LimitOutputBytes, toolcode.LimitOf(err))
		assert.Empty(t, res.Value)
	})

	t.Run("Limit/RequestCannotRaise", func(t *testing.T) {
		res, err := run(t, p.CallsInLoop, toolcode.Limits{ToolCalls: 1000}, toolcode.WithLimits(toolcode.Limits{ToolCalls: 2}))
		require.Error(t, err)
		assert.Equal(t, 2, res.Limits.ToolCalls)
		assert.Equal(t, toolcode.LimitToolCalls, toolcode.LimitOf(err))
	})

	t.Run("Error/Syntax", func(t *testing.T) {
		_, err := run(t, p.SyntaxError, toolcode.Limits{})
		require.Error(t, err)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		assert.Contains(t, err.Error(), "line 2")
	})

	t.Run("Error/Exception", func(t *testing.T) {
		_, err := run(t, p.Throw, toolcode.Limits{})
		require.Error(t, err)
		assert.Equal(t, errors.Execution, errors.CodeOf(err))
		assert.Contains(t, err.Error(), "bad thing")
		assert.Contains(t, err.Error(), "line 3")
	})

	t.Run("Error/ToolFailure", func(t *testing.T) {
		res, err := run(t, p.ToolFailure, toolcode.Limits{})
		require.Error(t, err)
		assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "the tool's own code")
		assert.Contains(t, err.Error(), "boom")
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		require.Len(t, res.Trace, 1, "the trace comes back with the failure")
		assert.False(t, res.Trace[0].OK)
		assert.Equal(t, errors.Unavailable, res.Trace[0].ErrorCode)
	})

	t.Run("Error/ToolFailureCaught", func(t *testing.T) {
		res, err := run(t, p.CatchToolFailure, toolcode.Limits{})
		require.NoError(t, err)
		assert.JSONEq(t, fmt.Sprintf("%q", errors.Unavailable), string(res.Value))
	})

	t.Run("Error/UnknownTool", func(t *testing.T) {
		_, err := run(t, p.UnknownTool, toolcode.Limits{})
		require.Error(t, err)
		assert.Equal(t, errors.NotFound, errors.CodeOf(err))
	})

	t.Run("Error/Canceled", func(t *testing.T) {
		f := NewFixture(t)
		x := toolcode.New(f.Ops, toolcode.WithEngine(newEngine()))
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := x.Execute(ctx, toolcode.ExecuteParams{Language: newEngine().Language(), Code: p.Spin})
		require.Error(t, err)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err))
	})

	t.Run("ConcurrentExecutions", func(t *testing.T) {
		f := NewFixture(t)
		x := toolcode.New(f.Ops, toolcode.WithEngine(newEngine()))
		errs := make(chan error, 4)
		for range 4 {
			go func() {
				res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: newEngine().Language(), Code: p.CallTool})
				if err == nil && !strings.Contains(string(res.Value), "42") {
					err = fmt.Errorf("value %s", res.Value)
				}
				errs <- err
			}()
		}
		for range 4 {
			assert.NoError(t, <-errs)
		}
	})

	for _, tc := range p.Cases {
		t.Run("Case/"+tc.Name, func(t *testing.T) {
			res, err := run(t, tc.Code, toolcode.Limits{})
			checkCase(t, tc, res, err)
		})
	}

	// Showing a value never outlives the wall time, whatever its getters
	// do, when the program throws it as when it logs it.
	for name, code := range map[string]string{"Thrown/SlowGetter": p.ThrowSlowGetter, "Log/SlowGetter": p.LogSlowGetter} {
		if code == "" {
			continue
		}
		t.Run(name, func(t *testing.T) {
			wall := s.startup + 200*time.Millisecond
			start := time.Now()
			_, err := run(t, code, toolcode.Limits{WallTime: wall})
			late := time.Since(start) - wall
			require.Error(t, err)
			assert.Equal(t, errors.Timeout, errors.CodeOf(err), err.Error())
			assert.Less(t, late, time.Second, "stopped %v after the deadline", late)
		})
	}

	if p.ThrowHuge != "" {
		t.Run("Thrown/Huge", func(t *testing.T) {
			_, err := run(t, p.ThrowHuge, toolcode.Limits{})
			require.Error(t, err)
			assert.Equal(t, errors.Execution, errors.CodeOf(err))
			msg := err.Error()
			assert.True(t, strings.HasPrefix(msg, `uncaught {"k0":0,"k1":1,"k2":2,`), msg)
			assert.True(t, strings.HasSuffix(msg, "…"), "the cut is marked")
			assert.Len(t, msg, len("uncaught ")+toolcode.MaxShownLength+len("…"), "cut to MaxShownLength")
		})
	}

	t.Run("ValueIsJSON", func(t *testing.T) {
		res, err := run(t, p.Return, toolcode.Limits{})
		require.NoError(t, err)
		assert.True(t, json.Valid(res.Value))
	})
}

// checkCase checks the outcome of a [Case].
func checkCase(t *testing.T, tc Case, res *toolcode.Result, err error) {
	t.Helper()
	if tc.Error == "" {
		require.NoError(t, err)
		assert.Equal(t, tc.Value, string(res.Value))
		if tc.Logs != nil {
			assert.Equal(t, tc.Logs, res.Logs)
		}
		return
	}
	require.Error(t, err)
	assert.Equal(t, tc.ErrorCode, errors.CodeOf(err), err.Error())
	var line string
	var e *errors.Error
	for chain := err; errors.As(chain, &e); chain = e.Err {
		if l, ok := e.Meta["line"]; ok {
			line = l
			break
		}
	}
	if tc.Line == 0 {
		assert.Equal(t, tc.Error, err.Error())
		assert.Empty(t, line, "the error names no line")
		return
	}
	assert.True(t, strings.HasPrefix(err.Error(), tc.Error+" (line "+strconv.Itoa(tc.Line)+", column "), "%q does not start with %q at line %d", err.Error(), tc.Error, tc.Line)
	assert.Equal(t, strconv.Itoa(tc.Line), line)
}
