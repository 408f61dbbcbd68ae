// Package toolcode is code mode: an agent writes one short program that
// calls many tools, and only what the program returns enters its context.
//
// An [Executor] runs the program in the [Engine] of its language, chosen
// from an [EngineRegistry]. The program reaches tools only through the
// [Tools] environment: search, namespaces, describe (at a
// tooldocs.DetailLevel), examples, run, chain and log. Tools enforces the
// execution's [Limits] — tool calls, chain steps, wall time, output bytes,
// concurrent calls — and traces every call ([TraceEntry]) with its
// arguments as the masker shows them. A request ([ExecuteParams]) may lower
// the executor's limits, never raise them, and its Metadata reaches the
// runner's hooks and policies as the caller's (toolops.Caller).
//
// The package toolcode/javascript provides the built-in engines,
// JavaScript on goja and TypeScript transpiled by esbuild; the core does
// not import them, so a program that brings its own engine does not
// compile goja.
//
//	ops, err := toolops.New(idx, docs, runner)
//	...
//	x := toolcode.New(ops,
//		toolcode.WithEngine(javascript.New()),
//		toolcode.WithLimits(toolcode.Limits{ToolCalls: 20}))
//	res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `
//		const [a, b] = await Promise.all([
//			tools.math.add({a: 1, b: 2}),
//			tools.math.add({a: 3, b: 4}),
//		]);
//		return a.sum + b.sum;`})
//	// res.Value is 10; res.Trace lists both calls; err is nil.
//
// [Executor.Execute] returns the [Result] — value, logs, trace — even when
// the program fails, together with an error whose code tells what
// happened: errors.InvalidArgument (a malformed request, a syntax error),
// errors.Execution (an uncaught exception, with its line),
// errors.Timeout (the wall time), errors.ResourceExhausted (another limit:
// [LimitOf] names it), or a tool's own code when the program did not catch
// the tool's failure.
//
// # How to plug in your own engine
//
// Implement [Engine]: Language returns the language's name, and Execute
// runs [Program.Code] with [Program.Tools] as the program's only way to
// the outside world. The contract is on [Engine]; in short:
//
//   - expose the Tools methods to the program, and let it run several
//     calls at once if the language can (Tools bounds the concurrency);
//   - stop when ctx is done, even in a loop that calls nothing, and bound
//     recursion ([LimitError] with [LimitStack]);
//   - return the program's value as JSON, a syntax error as
//     errors.InvalidArgument with its line and column, an uncaught
//     exception as errors.Execution with its line, the value thrown shown
//     as [Engine] says and cut at [MaxShownLength], and an error that came
//     from Tools unchanged;
//   - hand each call of a function of the tools to [Dispatch], which
//     checks its arguments the same way for every engine (or check them
//     as it does);
//   - never panic, and be safe for concurrent use.
//
// Register it with [WithEngine] or [EngineRegistry.Register], then run the
// conformance suite of toolcode/toolcodetest against it:
//
//	func TestConformance(t *testing.T) {
//		toolcodetest.RunEngineWithPrograms(t, func() toolcode.Engine { return mylang.New() }, myPrograms)
//	}
//
// The Executor does its part whatever the engine does: it enforces the tool
// call, chain and output limits in Tools, fails the execution when a limit
// is reached even if the program caught the error, recovers an engine's
// panic (errors.Internal), and returns shortly after the deadline even if
// the engine does not.
package toolcode
