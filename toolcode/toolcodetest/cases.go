package toolcodetest

import (
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Case is a program of the suite with the outcome it must have: a value
// and logs, or an error.
type Case struct {
	// Name names the case in the test's name.
	Name string
	// Code is the program.
	Code string
	// Value is the JSON the program returns; it must succeed when Error
	// is empty.
	Value string
	// Logs are the lines the program logs, when not nil.
	Logs []string
	// Error is the message the execution fails with: exactly, or before
	// " (line ..." when Line is set. ErrorCode is the error's code.
	Error     string
	ErrorCode errors.Code
	// Line is the line the error names (its Meta["line"]), or 0 when it
	// names none.
	Line int
}

// cut is how an engine shows a text longer than toolcode.MaxShownLength.
func cut(s string) string { return s[:toolcode.MaxShownLength] + "…" }

// uncaught is the case of a program that throws a value it does not
// catch, shown as text.
func uncaught(name, code, text string) Case {
	return Case{Name: "Thrown/" + name, Code: code, Error: "uncaught " + text, ErrorCode: errors.Execution}
}

// badArgument is the case of a call of a function of the tools with bad
// arguments: it rejects with code invalid_argument and message msg, which
// fails the execution when the program does not catch it.
func badArgument(name, code, msg string) Case {
	return Case{Name: "BadArgument/" + name, Code: code, Error: msg, ErrorCode: errors.InvalidArgument}
}

// javaScriptCases are the cases of [JavaScriptPrograms]: how a thrown
// value is shown, how the functions of the tools check their arguments,
// what becomes of values that have no JSON, what console.log prints, and
// what a program sees of the functions of the tools.
var javaScriptCases = []Case{
	// A thrown value is shown as a user reads it (see toolcode.Engine).
	uncaught("PlainObject", `throw {code: "x", message: "y"};`, `{"code":"x","message":"y"}`),
	uncaught("NestedObject", `throw [1, "two", {a: [3, null, true]}];`, `[1,"two",{"a":[3,null,true]}]`),
	uncaught("ObjectInAFunction", "function f() { throw {code: \"deep\"}; }\nf();", `{"code":"deep"}`),
	uncaught("RejectedPromise", `await Promise.reject({code: "x"});`, `{"code":"x"}`),
	uncaught("AfterACall", "await tools.math.add({a: 1, b: 2});\nthrow {step: 2};", `{"step":2}`),
	uncaught("String", `throw "a string";`, `a string`),
	uncaught("Number", `throw 42;`, `42`),
	uncaught("Undefined", `throw undefined;`, `undefined`),
	uncaught("Boolean", `throw false;`, `false`),
	uncaught("BigInt", `throw BigInt(10);`, `10`),
	uncaught("Symbol", `throw Symbol("s");`, `Symbol(s)`),
	uncaught("SymbolWithoutDescription", `throw Symbol();`, `Symbol()`),
	uncaught("Function", `throw function foo() {};`, `[Function: foo]`),
	uncaught("AnonymousFunction", `throw () => 1;`, `[Function (anonymous)]`),
	uncaught("ToolFunction", `throw tools.math.add;`, `[Function: math:add]`),
	uncaught("ToolsMethod", `throw tools.search;`, `[Function: search]`),
	uncaught("Date", `throw new Date(0);`, `"1970-01-01T00:00:00.000Z"`),
	uncaught("Map", `throw new Map([[1, 2]]);`, `{}`),
	uncaught("ClassInstance", "class Point { constructor() { this.x = 1; } }\nthrow new Point();", `{"x":1}`),
	uncaught("ErrorLike", "class Failure { constructor() { this.message = \"it failed\"; this.name = \"Failure\"; } }\nthrow new Failure();", `Failure: it failed`),
	uncaught("ErrorLikeWithoutName", "class Failure { constructor() { this.message = \"it failed\"; } }\nthrow new Failure();", `it failed`),
	uncaught("NullPrototype", `throw Object.assign(Object.create(null), {a: 1});`, `{"a":1}`),
	uncaught("Circular", `const o = {a: 1}; o.self = o; o.list = [o]; throw o;`, `{"a":1,"self":"[Circular]","list":["[Circular]"]}`),
	uncaught("SharedNotCircular", `const s = {n: 1}; throw {a: s, b: s};`, `{"a":{"n":1},"b":{"n":1}}`),
	uncaught("JSONValues", `throw {s: "\u2028\n\t\"\\ \u0001 😀", n: [NaN, -0, 1e21, 1.5, undefined, () => 1, Symbol("x"), BigInt(7), null, true], u: undefined, f() {}};`,
		`{"s":"`+"\u2028"+`\n\t\"\\ \u0001 😀","n":[null,0,1e+21,1.5,null,null,null,7,null,true]}`),
	uncaught("ToJSON", `throw {a: {toJSON(key) { return "key " + key; }}, b: new Date(0)};`, `{"a":"key a","b":"1970-01-01T00:00:00.000Z"}`),
	uncaught("ToJSONOfNothing", `throw {toJSON() { return undefined; }};`, `undefined`),
	uncaught("ThrowingGetter", `throw {get message() { throw new Error("no"); }};`, `(value that cannot be shown)`),
	uncaught("ThrowingProxy", `throw new Proxy({}, {get() { throw 1; }});`, `(value that cannot be shown)`),
	uncaught("ProxyOfArray", `throw new Proxy([1, 2], {});`, `[1,2]`),
	uncaught("Tools", `throw tools;`, `{}`),
	uncaught("ReplacedBuiltIns", "Object.keys = () => []; Array.isArray = () => false; String.prototype.slice = () => \"\";\nJSON.stringify = () => \"x\"; Reflect.apply = null; globalThis.eval = null;\nthrow {a: [1, \"two\"], s: \"x\".repeat(1200)};",
		cut(`{"a":[1,"two"],"s":"`+strings.Repeat("x", 1200))),
	uncaught("LongString", `throw "x".repeat(5000);`, cut(strings.Repeat("x", 5000))),
	{
		Name: "Thrown/LongMessage", Code: `throw new Error("x".repeat(5000));`,
		Error: "uncaught " + cut("Error: "+strings.Repeat("x", 5000)), ErrorCode: errors.Execution, Line: 1,
	},
	uncaught("LongObject", `throw {s: "y".repeat(5000)};`, cut(`{"s":"`+strings.Repeat("y", 5000))),
	uncaught("LongArray", `throw new Array(100000);`, cut("["+strings.Repeat("null,", 100000))),
	uncaught("CutBeforeASurrogatePair", `throw "x".repeat(999) + "😀";`, strings.Repeat("x", 999)+"…"),
	uncaught("ManyMembersShowingNothing", `const o = {}; for (let i = 0; i < 50000; i++) o["k" + i] = undefined; throw o;`, `{}…`),
	uncaught("Deep", "let a = []; let c = a;\nfor (let i = 0; i < 30; i++) { const n = []; c.push(n); c = n; }\nthrow a;",
		strings.Repeat("[", 20)+`"[Array]"`+strings.Repeat("]", 20)),
	{
		Name: "Thrown/Error", Code: "const a = 1;\n\nthrow new TypeError(\"bad \" + a);",
		Error: "uncaught TypeError: bad 1", ErrorCode: errors.Execution, Line: 3,
	},
	{
		Name: "Thrown/ErrorWithoutMessage", Code: "\nthrow new Error();",
		Error: "uncaught Error", ErrorCode: errors.Execution, Line: 2,
	},
	{
		Name: "Thrown/ErrorSubclass", Code: "class MyError extends Error { constructor(m) { super(m); this.name = \"MyError\"; } }\nthrow new MyError(\"custom\");",
		Error: "uncaught MyError: custom", ErrorCode: errors.Execution, Line: 1,
	},
	{
		Name: "Thrown/OnTheFirstLineOfAProgramThatReturns", Code: `return tools.ns(1);`,
		Error: "uncaught TypeError: tools.ns: the namespace must be a string, not number", ErrorCode: errors.Execution, Line: 1,
	},
	{
		// The tools' objects are no primitives; what converting one throws
		// shows nothing of the engine's own values.
		Name: "Thrown/ToolsToPrimitive", Code: `return String(tools);`,
		Error: "uncaught TypeError: toPrimitive", ErrorCode: errors.Execution, Line: 1,
	},
	{
		Name: "Thrown/NamespaceToPrimitive", Code: `return "" + tools.math;`,
		Error: "uncaught TypeError: toPrimitive", ErrorCode: errors.Execution, Line: 1,
	},
	{
		Name: "Thrown/NotJSON", Code: `return {toJSON() { throw {code: "x"}; }};`,
		Error: `the returned value is not JSON: {"code":"x"}`, ErrorCode: errors.Execution,
	},

	// The functions of the tools check their arguments.
	badArgument("ExamplesNegativeLimit", `return await tools.examples("math:add", -5);`, "tools.examples: the limit must be a whole number of at least 1, not -5"),
	badArgument("ExamplesNotAwaited", `return tools.examples("math:add", -5);`, "tools.examples: the limit must be a whole number of at least 1, not -5"),
	badArgument("ExamplesZeroLimit", `return await tools.examples("math:add", 0);`, "tools.examples: the limit must be a whole number of at least 1, not 0"),
	badArgument("ExamplesFractionalLimit", `return await tools.examples("math:add", 1.5);`, "tools.examples: the limit must be a whole number of at least 1, not 1.5"),
	badArgument("ExamplesNaNLimit", `return await tools.examples("math:add", NaN);`, "tools.examples: the limit must be a whole number of at least 1, not NaN"),
	badArgument("ExamplesInfiniteLimit", `return await tools.examples("math:add", Infinity);`, "tools.examples: the limit must be a whole number of at least 1, not Infinity"),
	badArgument("ExamplesTextLimit", `return await tools.examples("math:add", "2");`, "tools.examples: the limit must be a number, not string"),
	badArgument("ExamplesObjectLimit", `return await tools.examples("math:add", {n: 2});`, "tools.examples: the limit must be a number, not object"),
	badArgument("ExamplesWithoutID", `return await tools.examples();`, "tools.examples: missing the tool ID (a string)"),
	badArgument("ExamplesNumberID", `return await tools.examples(42);`, "tools.examples: the tool ID must be a string, not number"),
	badArgument("ExamplesExtra", `return await tools.examples("math:add", 1, "more");`, "tools.examples: expected at most 2 arguments (id, limit), got 3"),
	badArgument("SearchWithoutQuery", `return await tools.search();`, "tools.search: missing the query (a string)"),
	badArgument("SearchNumberQuery", `return await tools.search(5);`, "tools.search: the query must be a string, not number"),
	badArgument("SearchNegativeLimit", `return await tools.search("add", -1);`, "tools.search: the limit must be a whole number of at least 1, not -1"),
	badArgument("SearchBooleanLimit", `return await tools.search("add", true);`, "tools.search: the limit must be a number, not boolean"),
	badArgument("SearchExtra", `return await tools.search("add", undefined, 3);`, "tools.search: expected at most 2 arguments (query, limit), got 3"),
	badArgument("NamespacesExtra", `return await tools.namespaces("math");`, "tools.namespaces: expected no arguments, got 1"),
	badArgument("DescribeWithoutID", `return await tools.describe();`, "tools.describe: missing the tool ID (a string)"),
	badArgument("DescribeArrayID", `return await tools.describe(["math:add"]);`, "tools.describe: the tool ID must be a string, not array"),
	badArgument("DescribeNumberLevel", `return await tools.describe("math:add", 5);`, `tools.describe: the detail level must be "summary", "schema" or "full", not 5`),
	badArgument("DescribeUnknownLevel", `return await tools.describe("math:add", "everything");`, `describe: unknown detail level "everything": want summary, schema or full`),
	badArgument("DescribeExtra", `return await tools.describe("math:add", "full", {});`, "tools.describe: expected at most 2 arguments (id, level), got 3"),
	badArgument("RunWithoutID", `return await tools.run();`, "tools.run: missing the tool ID (a string)"),
	badArgument("RunNullID", `return await tools.run(null, {});`, "tools.run: the tool ID must be a string, not null"),
	badArgument("RunNumberID", `return await tools.run(5, {});`, "tools.run: the tool ID must be a string, not number"),
	badArgument("RunArrayArguments", `return await tools.run("math:add", [1]);`, `tool "math:add": the arguments must be an object, not array`),
	badArgument("RunFunctionArguments", `return await tools.run("math:add", () => 1);`, `tool "math:add": the arguments must be an object, not function`),
	badArgument("RunExtra", `return await tools.run("math:add", {a: 1, b: 2}, "more");`, "tools.run: expected at most 2 arguments (id, args), got 3"),
	badArgument("ToolTextArguments", `return await tools.math.add("a=1");`, `tool "math:add": the arguments must be an object, not string`),
	badArgument("ToolNumberArguments", `return await tools.math.add(1);`, `tool "math:add": the arguments must be an object, not number`),
	badArgument("ToolSymbolArguments", `return await tools.math.add(Symbol("a"));`, `tool "math:add": the arguments must be an object, not symbol`),
	badArgument("ToolBigIntArguments", `return await tools.math.add(BigInt(1));`, `tool "math:add": the arguments must be an object, not bigint`),
	badArgument("ToolExtra", `return await tools.math.add({a: 1, b: 2}, {c: 3});`, `tool "math:add": expected at most 1 argument (the arguments object), got 2`),
	badArgument("ToolInMap", `return await Promise.all([{a: 1, b: 2}].map(tools.math.add));`, `tool "math:add": expected at most 1 argument (the arguments object), got 3`),
	badArgument("ChainWithoutSteps", `return await tools.chain();`, "tools.chain: missing the steps (an array of {id, args, usePrevious, previousKey})"),
	badArgument("ChainObject", `return await tools.chain({id: "math:add"});`, "tools.chain: the steps must be an array of {id, args, usePrevious, previousKey}, not object"),
	badArgument("ChainEmpty", `return await tools.chain([]);`, "chain: the chain has no steps: give at least one"),
	badArgument("ChainStepNotObject", `return await tools.chain([1]);`, "tools.chain: step 0 must be an object {id, args, usePrevious, previousKey}, not number"),
	badArgument("ChainStepWithoutTool", `return await tools.chain([{id: "math:add", args: {a: 1, b: 2}}, {}]);`, "tools.chain: step 1: missing id"),
	badArgument("ChainStepNumberTool", `return await tools.chain([{id: 5}]);`, "tools.chain: step 0: id must be a string, not number"),
	badArgument("ChainStepUnknownField", `return await tools.chain([{id: "math:add", arg: {a: 1}}]);`, `tools.chain: step 0: unknown field "arg" (a step is {id, args, usePrevious, previousKey})`),
	badArgument("ChainStepArrayArguments", `return await tools.chain([{id: "math:add", args: [1]}]);`, "tools.chain: step 0: args must be an object, not array"),
	badArgument("ChainStepTextUsePrevious", `return await tools.chain([{id: "math:add", usePrevious: "yes"}]);`, "tools.chain: step 0: usePrevious must be a boolean, not string"),
	badArgument("ChainStepNumberPreviousKey", `return await tools.chain([{id: "math:add", previousKey: 1}]);`, "tools.chain: step 0: previousKey must be a string, not number"),
	badArgument("ChainExtra", `return await tools.chain([{id: "math:add"}], "more");`, "tools.chain: expected at most 1 argument (steps), got 2"),
	{
		Name: "BadArgument/Caught", Code: `try { await tools.examples("math:add", -5); } catch (e) { return {name: e.name, code: e.code, message: e.message}; }`,
		Value: `{"name":"Error","code":"invalid_argument","message":"tools.examples: the limit must be a whole number of at least 1, not -5"}`,
	},
	{
		Name: "BadArgument/CaughtNamesTheTool", Code: `try { await tools.math.add([1]); } catch (e) { return {code: e.code, toolId: e.toolId}; }`,
		Value: `{"code":"invalid_argument","toolId":"math:add"}`,
	},
	{
		Name: "BadArgument/Namespace", Code: `try { tools.ns(); } catch (e) { return [e instanceof TypeError, e.message]; }`,
		Value: `[true,"tools.ns: the namespace must be a string, not undefined"]`,
	},
	{
		Name: "BadArgument/NamespaceExtra", Code: `try { tools.ns("math", "add"); } catch (e) { return [e instanceof TypeError, e.message]; }`,
		Value: `[true,"tools.ns: expected 1 argument (the namespace), got 2"]`,
	},

	// Optional arguments have defaults, and lists are never null.
	{Name: "Default/ExamplesOfAToolWithout", Code: `return await tools.examples("util:echo");`, Value: `[]`},
	{Name: "Default/ExamplesWithoutLimit", Code: `return (await tools.examples("math:add")).length;`, Value: `1`},
	{Name: "Default/ExamplesNullLimit", Code: `return (await tools.examples("math:add", null)).length;`, Value: `1`},
	{Name: "Default/ExamplesHugeLimit", Code: `return (await tools.examples("math:add", 1e300)).length;`, Value: `1`},
	{Name: "Default/SearchLimit", Code: `return (await tools.search("add", 1)).map((s) => s.id);`, Value: `["math:add"]`},
	{Name: "Default/SearchNullLimit", Code: `return (await tools.search("add", null))[0].id;`, Value: `"math:add"`},
	{Name: "Default/SearchNothing", Code: `return await tools.search("zzzz-nothing-matches");`, Value: `[]`},
	{Name: "Default/DescribeLevel", Code: `return (await tools.describe("math:add")).level;`, Value: `"schema"`},
	{Name: "Default/DescribeNullLevel", Code: `return (await tools.describe("math:add", null)).level;`, Value: `"schema"`},
	{Name: "Default/DescribeLevelInAnyCase", Code: `return (await tools.describe("math:add", " Full ")).level;`, Value: `"full"`},
	{Name: "Default/RunWithoutArguments", Code: `return await tools.plain();`, Value: `{"plain":true}`},
	{Name: "Default/RunNullArguments", Code: `return await tools.run("plain", null);`, Value: `{"plain":true}`},
	{Name: "Default/ChainNullFields", Code: `return await tools.chain([{id: "plain", args: null, usePrevious: null, previousKey: null}]);`, Value: `[{"plain":true}]`},

	// What the program returns becomes JSON, as JSON.stringify writes it.
	{Name: "Value/Undefined", Code: `return undefined;`, Value: `null`},
	{Name: "Value/Function", Code: `return function f() {};`, Value: `null`},
	{Name: "Value/Symbol", Code: `return Symbol("s");`, Value: `null`},
	{Name: "Value/NaN", Code: `return [NaN, Infinity, -0];`, Value: `[null,null,0]`},
	{Name: "Value/Date", Code: `return new Date(0);`, Value: `"1970-01-01T00:00:00.000Z"`},
	{Name: "Value/MapAndSet", Code: `return [new Map([[1, 2]]), new Set([1])];`, Value: `[{},{}]`},
	{Name: "Value/Skipped", Code: `return {u: undefined, f() {}, s: Symbol("s"), list: [undefined, () => 1]};`, Value: `{"list":[null,null]}`},
	{Name: "Value/BigInt", Code: `return BigInt(10);`, Error: "the returned value is not JSON: TypeError: Do not know how to serialize a BigInt", ErrorCode: errors.Execution},
	{Name: "Value/ToolResult", Code: `return (await tools.search("add", 1))[0].id;`, Value: `"math:add"`},

	// console.log prints strings as they are, errors as a user reads them,
	// and values that have no JSON as a thrown value is shown.
	{
		Name:  "Log/Values",
		Code:  `console.log(undefined, null, 1.5, true, "text", {a: [1, undefined]}, function f() {}, Symbol("s"), BigInt(10), new Date(0), new Map([[1, 2]]));`,
		Value: `null`, Logs: []string{`undefined null 1.5 true text {"a":[1,null]} [Function: f] Symbol(s) 10 "1970-01-01T00:00:00.000Z" {}`},
	},
	{
		Name:  "Log/Errors",
		Code:  `console.log(new Error("boom")); console.log(new TypeError("")); try { await tools.util.fail({message: "down"}); } catch (e) { console.error(e); }`,
		Value: `null`, Logs: []string{"Error: boom", "TypeError", `Error: execute: tool "util:fail" (backend local:fail): down`},
	},
	{
		Name: "Log/Circular", Code: `const o = {a: 1}; o.self = o; console.log(o);`,
		Value: `null`, Logs: []string{`{"a":1,"self":"[Circular]"}`},
	},
	{Name: "Log/Nothing", Code: `console.log(); tools.log("via tools");`, Value: `null`, Logs: []string{"", "via tools"}},

	// The functions of the tools look like functions of their own.
	{
		Name: "Functions/NamesAndLengths",
		Code: `const fns = [tools.math.add, tools.run, tools.search, tools.namespaces, tools.describe, tools.examples, tools.chain, tools.ns, tools.log, console.log];
return fns.map((f) => [typeof f, f.name, f.length, f.prototype === undefined]);`,
		Value: `[["function","math:add",1,true],["function","run",2,true],["function","search",2,true],["function","namespaces",0,true],["function","describe",2,true],["function","examples",2,true],["function","chain",1,true],["function","ns",1,true],["function","log",0,true],["function","log",0,true]]`,
	},
	{
		Name:  "Functions/CannotBeChanged",
		Code:  `const f = tools.math.add; f.extra = 1; try { Object.defineProperty(f, "name", {value: "x"}); } catch (e) {} return [f.extra === undefined, f.name];`,
		Value: `[true,"math:add"]`,
	},
}
