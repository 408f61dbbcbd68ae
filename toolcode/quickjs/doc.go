// Package quickjs is a JavaScript engine for toolcode on QuickJS
// (modernc.org/quickjs: QuickJS translated to pure Go, no cgo) with a hard
// cap on the memory of each execution. It is a module of its own, so that
// programs that do not import it never download QuickJS.
//
//	x := toolcode.New(ops, toolcode.WithEngine(quickjs.New(quickjs.WithMemoryLimit(64<<20))))
//
// Programs see what the goja engine (toolcode/javascript) gives them:
//
//	await tools.math.add({a: 1, b: 2})        // namespace:name
//	await tools["my-ns"]["do-thing"]({})       // names that are not identifiers
//	await tools.run("math:add", {a: 1, b: 2}) // by ID
//	await tools.search("add numbers", 5)
//	await tools.namespaces()
//	await tools.describe("math:add", "schema")
//	await tools.examples("math:add")
//	await tools.chain([{toolId: "math:add", args: {a: 1, b: 2}}, {toolId: "util:echo", usePrevious: true}])
//	tools.ns("search").thing({})
//	console.log("text", {any: "value"})
//
// As in the goja engine, the names tools answers itself are
// tooldocs.ReservedNames; a tool they hide is called by ID, as
// tooldocs.TypeScript declares it.
//
// The value of the program's last statement, or what it returns at top
// level, is the result, as JSON. A program without a top-level return runs
// as an async script (its last expression is the value); one with a
// top-level return runs as the body of an async function, where a return
// gives the value and the last expression does not. Values cross between
// the program and Go as JSON text. A failed call rejects with an Error
// whose code is the error's code and whose toolId names the tool. Only
// JavaScript: TypeScript is the goja module's (its transpiler is internal
// to that package).
//
// # The same as the goja engine
//
// A program gets the same outcome on both engines: the functions of tools
// check their arguments with toolcode.Dispatch (an argument of the wrong
// type or out of range, or one too many, rejects with code
// "invalid_argument" and the same message) and have the same name and
// length; an uncaught value is shown the same way (toolcode.Engine), at
// the same line; console.log prints the same line; the returned value is
// the same JSON. The conformance suite (toolcodetest.RunEngine) and
// TestSameAsGoja, which runs programs on both engines and compares what
// they give, hold them to it. What differs is what belongs to each
// runtime:
//
//   - the messages of the runtime's own exceptions ("cannot read property
//     'x' of null" against goja's "Cannot read property 'x' of
//     undefined", JSON.stringify's message for a circular structure) and
//     the column an error names (goja counts from the start of the
//     expression, QuickJS from its operator); the line is the same;
//   - the built-ins: QuickJS has WeakRef, FinalizationRegistry, Atomics,
//     SharedArrayBuffer, Float16Array and Iterator, and Date's toString
//     leaves out the zone's name;
//   - a stack overflow is an exception a program may catch here, and is
//     uncatchable in goja; uncaught, both fail with the limit "stack";
//   - an uncaught null is reported as the memory limit (see Limits);
//   - a program that replaces JSON.stringify or JSON.parse changes only
//     what it sees itself here, while goja uses the replacement for the
//     values that are not plain data (checking that what it writes is
//     JSON).
//
// # Limits
//
//   - memory: each execution's heap is capped ([WithMemoryLimit], default
//     64 MiB); an allocation past it throws, and a program that does not
//     recover fails with code resource_exhausted and limit
//     [toolcode.LimitMemory]. The heap lives outside the Go heap and is
//     released when the execution ends. When the heap is so full that
//     QuickJS cannot build its "out of memory" error it throws null: an
//     uncaught null is reported as the memory limit too.
//   - wall time: the VM is interrupted when the execution's context ends,
//     within about a millisecond, even in `while (true) {}`; one long
//     built-in call (a huge "x".repeat) is bounded by the memory cap.
//   - recursion: deeper than [WithMaxStackSize] fails with limit "stack".
//   - tool calls run on goroutines of their own, at most
//     toolcode.Limits.Concurrency at once; a lone awaited call runs on the
//     execution's goroutine.
//
// Measured on a 2-core Linux machine: programs allocating past a 64 MiB cap
// ("x".repeat(256 MiB), an array grown without end, a string doubled
// without end), nine runs in a row, each stopped with the memory limit in
// under a second, the process's VmRSS stayed within 2 MiB of where it
// started (TestMemoryCapBoundsRSS).
//
// # Cost
//
// Each execution gets a fresh VM: a VM cannot be reset, and a program may
// change its globals and built-ins (TestFreshVM). Measured with
// BenchmarkEngines on a shared 2-core machine: starting one execution
// (VM, prelude compiled once per process, a program returning at once)
// costs about 0.9 ms against 56 µs for goja; a program making ten tool
// calls in sequence 2.1 ms against 0.47 ms (about 120 µs a call against
// 40 µs). Creating a VM alone is about 0.7 ms, and evaluating a small
// program in a VM kept from before about 26 µs: a pool would save most of
// the start, but it would hand one program's globals to the next.
package quickjs
