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
// goja runs on the host's goroutines and heap, with no sandbox of its own
// and no memory cap (its maintainers leave that out of scope). The engine
// bounds what it can from outside:
//
//   - wall time: the runtime is interrupted when the execution's context
//     ends, within about a millisecond, even in `while (true) {}`;
//   - recursion: calls deeper than [WithMaxCallStackSize] fail with
//     errors.ResourceExhausted and the limit "stack" (goja's own bound is
//     unlimited); so does what goja does natively one Go frame per level:
//     JSON.stringify and returning values nested deeper, JSON.parse of
//     text nested deeper, join through nested arrays' toString, flat,
//     and proxies of proxies;
//   - concurrency: the calls beyond the limit wait in a queue, so that a
//     program starting thousands of calls starts no more goroutines than
//     the limit;
//   - memory: the heap is read every 2 ms during an execution, and one
//     that grew it past [WithMemoryLimit] (default 64 MiB) is stopped
//     with the limit "memory" (see its documentation for what it counts);
//   - built-ins that goja runs natively to their end, out of the reach of
//     the interrupt: every runtime's String.prototype.repeat, padStart,
//     padEnd, concat, replace, replaceAll and split, Array.prototype.join,
//     fill, concat, flat and every method that loops over the array's
//     length (map, indexOf, sort, ...), Array.from, apply,
//     Reflect.apply and Reflect.construct (their list of arguments),
//     Object.keys, values, entries and getOwnPropertyNames and
//     Reflect.ownKeys (of strings, arrays and typed arrays),
//     JSON.stringify (its text), and the constructors of ArrayBuffer and
//     the typed arrays are replaced by guards that throw a RangeError with
//     code "resource_exhausted" before the call allocates, when what it
//     would build or walk is past [WithMaxBuiltinSize] elements or
//     characters (the limit "allocation") or would take more bytes than
//     the memory limit (the limit "memory"); uncaught, it fails the
//     execution with that limit. A program reaches them however it names
//     them ("re" + "peat" included): the guards are installed when the
//     runtime is made, ahead of its program;
//   - regular expressions: goja runs those Go's regexp cannot (lookaround,
//     backreferences) on a backtracking engine that does not see the
//     interrupt; the package makes that engine give up a match after
//     [RegexpMatchTimeout], and a RegExp method (exec, test, and those
//     String.prototype.match, replace, search and split call) that ran
//     that long throws a RangeError with the limit "match_time", since the
//     answer it got was cut short.
//
// What it does not bound, and why a program you do not trust belongs in
// a process of its own (toolruntime's standard profile) wherever one is
// available:
//
//   - memory exactly: the bound is on the process's heap, which other
//     goroutines share; the heap may overshoot it by what the program
//     allocates between two readings plus one step under way (s += s
//     doubles a string in one step of the runtime, which no hook can
//     stop: such a program peaked 130 MiB above its start under the
//     default bound of 64 MiB, 18 MiB under 8 MiB, on a loaded two-core
//     machine), and the collector's work for that memory is the host's;
//   - the latency of the host's other goroutines: one step that copies a
//     big string cannot be preempted, and a collection that starts
//     meanwhile stops every goroutine until the copy ends (on a machine
//     where fresh memory faults in at 150 MB/s, a 32 MiB step held
//     searches for 200 ms; keep the bound small where latency matters);
//   - CPU: a program uses a core until its wall time, and one step of a
//     guarded built-in may still run for as long as the bounds allow (a
//     sort of 16 Mi elements);
//   - every native loop of goja: the guards cover the built-ins above;
//     others that walk big but bounded values (a RegExp's matchAll
//     iterator, Object.assign, spread of a huge iterable) run until they
//     end, and a String.prototype.matchAll iteration cut short by the
//     match timeout ends silently;
//   - the semantics of a few guarded built-ins at their edges: a guard
//     reads an array-like's length before the built-in does, replace with
//     a replacement string whose expansion could pass the bound runs the
//     expression twice (to count matches), JSON.stringify with a list
//     of properties keeps them in the object's own order, the globals
//     JSON, Reflect, Proxy, ArrayBuffer and the typed arrays are
//     accessors until the program first uses them, and the wrappers of
//     Proxy, ArrayBuffer and the typed arrays are functions of JavaScript
//     (their toString shows it).
//
// When the wall time or the memory bound ends an execution during one
// step of a built-in, the guards that loop (join, stringify, flat) stop at
// their next element; any other step runs to its end, within the bounds
// above, and the runtime stops before its next instruction. The
// executor stops waiting 250 ms after the deadline; the engine's
// goroutines end with that step, not later.
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
