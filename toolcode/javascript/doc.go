// Package javascript provides the built-in engines of toolcode: JavaScript
// on goja ([New], language "javascript") and TypeScript ([NewTypeScript],
// language "typescript"), transpiled in-process by esbuild.
//
// A program is the body of an async function: it may await and return at
// top level, and the value it returns, converted by JSON.stringify, is the
// result. A program whose last statement is an expression returns that
// expression's value, as a notebook cell does. It sees two globals:
//
//	await tools.math.add({a: 1, b: 2})        // namespace:name
//	await tools["my-ns"]["do-thing"]({})       // names that are not identifiers
//	await tools.plain({})                     // a tool without namespace
//	await tools.run("math:add", {a: 1, b: 2}) // by ID
//	await tools.search("add numbers", 5)      // summaries, best first
//	await tools.namespaces()
//	await tools.describe("math:add", "schema") // "summary", "schema" or "full"
//	await tools.examples("math:add")
//	await tools.chain([{toolId: "math:add", args: {a: 1, b: 2}}, {toolId: "util:echo", usePrevious: true}])
//	tools.ns("search").thing({})               // a namespace named like a method
//	console.log("text", {any: "value"})
//
// The names of the functions of tools, and then (undefined, so that
// awaiting tools or a namespace yields it), are tooldocs.ReservedNames:
// every other name is a namespace. A tool these names hide (search:thing,
// a tool without namespace named run, a tool named then in a namespace) is
// called by ID, as tooldocs.TypeScript declares it.
//
// Every tool call returns a promise; Promise.all runs calls concurrently,
// at most toolcode.Limits.Concurrency at once (the others wait their turn).
// A failed call rejects with an Error whose code is the error's code
// ("not_found", "validation", "resource_exhausted", ...) and whose toolId
// names the tool. The arguments of every function of tools are checked by
// toolcode.Dispatch, as in the QuickJS engine: a bad one (a negative
// limit, an ID that is not a string, an array for a tool's arguments, one
// argument too many) rejects with code "invalid_argument" and a message
// naming it. The functions are named and sized as they read
// (tools.math.add.name is "math:add", tools.search.length is 2), and the
// program cannot change them.
//
// An uncaught exception fails the execution with "uncaught <value>": an
// Error as "<name>: <message>" with its line, a plain object or an array
// as JSON, as toolcode.Engine says, cut at toolcode.MaxShownLength.
// console.log prints strings as they are, errors as "<name>: <message>",
// and anything else as JSON, or, when it has none (undefined, a function,
// a cycle, a BigInt), as an uncaught value is shown.
//
// # Limits
//
// goja runs on the calling goroutine's heap with no sandbox of its own, so
// the engine enforces:
//
//   - wall time: the runtime is interrupted when the execution's context
//     ends, within about a millisecond, even in `while (true) {}`;
//   - recursion: calls deeper than [WithMaxCallStackSize] fail with
//     errors.ResourceExhausted (goja's own bound is unlimited);
//   - concurrency: the calls beyond the limit wait in a queue, so that a
//     program starting thousands of calls starts no more goroutines than
//     the limit;
//   - built-ins that goja cannot interrupt: String.prototype.repeat,
//     padStart and padEnd, Array.prototype.join and fill, and Array.from
//     throw a RangeError with code "resource_exhausted", before they
//     allocate, when what they would build is past [WithMaxBuiltinSize]
//     (uncaught, the execution fails with errors.ResourceExhausted); the
//     guard covers the built-ins the program's source names, so that
//     programs that use none pay nothing for it.
//
// goja has no memory cap: a program may allocate until the wall time
// stops it, and what it allocates lands on the host's Go heap. Give it a
// short wall time, and run untrusted programs in a process or sandbox of
// their own when memory matters. One call of a built-in runs to its end
// before the interrupt is seen; those that remain unguarded include the
// array methods that walk a huge sparse array (new Array(1e9).map(f),
// indexOf, sort), the concatenation of huge strings (s += s doubles in
// one step), JSON.stringify and split of huge values, and regular
// expressions that backtrack (goja runs those with lookaround or
// backreferences on a backtracking engine). The executor stops waiting
// for such a call shortly after the deadline and leaves its goroutine to
// finish.
//
// # Cost
//
// Each execution gets a fresh runtime; runtimes are never reused, since a
// program may change its globals. An engine makes them ahead of need
// ([WithSpareRuntimes]): after an execution takes a spare, a goroutine
// makes the next, with the tools installed and the Promise machinery
// built, so that an execution finding one starts in less than half the
// time. An engine keeps the compiled form of
// recent programs ([WithProgramCache]), which holds no state of the runs
// that used it. Values cross between the program and Go directly when
// they are plain data, and through JSON text otherwise, with the same
// result either way.
//
// The runtime has no I/O: no require, no timers, no network or file
// access. A program's only way out is tools.
package javascript
