package javascript

import "github.com/dop251/goja"

// preludeSource builds, from the host's two functions, the globals a
// program sees: tools (the generic methods, and a namespace object for
// every other property name) and console. It is compiled once.
const preludeSource = `(function (host) {
	"use strict";
	const stringify = JSON.stringify;
	const call = (op, payload) => host.call(op, stringify(payload === undefined ? null : payload));
	const show = (a) => {
		if (typeof a === "string") return a;
		try {
			const s = stringify(a);
			return s === undefined ? String(a) : s;
		} catch (e) {
			return String(a);
		}
	};
	const log = (...args) => host.log(args.map(show).join(" "));
	const run = (id, args) => call("run", [String(id), args === undefined ? {} : args]);
	// Namespace objects and their tool functions are made once per name:
	// a program calling a tool in a loop allocates nothing for the lookup.
	const namespaces = new Map();
	const namespace = (ns) => {
		let proxy = namespaces.get(ns);
		if (proxy === undefined) {
			const fns = new Map();
			proxy = new Proxy((args) => run(ns, args), {
				get(target, name) {
					if (typeof name !== "string" || name === "then") return undefined;
					let fn = fns.get(name);
					if (fn === undefined) {
						const id = ns + ":" + name;
						fn = (args) => run(id, args);
						fns.set(name, fn);
					}
					return fn;
				},
			});
			namespaces.set(ns, proxy);
		}
		return proxy;
	};
	const base = Object.freeze({
		run,
		search: (query, limit) => call("search", [String(query === undefined ? "" : query), limit === undefined ? 0 : limit]),
		namespaces: () => call("namespaces", null),
		describe: (id, level) => call("describe", [String(id), level === undefined ? "schema" : String(level)]),
		examples: (id, limit) => call("examples", [String(id), limit === undefined ? 0 : limit]),
		chain: (steps) => call("chain", steps),
		ns: (name) => namespace(String(name)),
		log,
	});
	const tools = new Proxy(base, {
		get(target, name) {
			if (typeof name !== "string") return undefined;
			if (Object.prototype.hasOwnProperty.call(target, name)) return target[name];
			if (name === "then") return undefined;
			return namespace(name);
		},
	});
	const console = Object.freeze({ log, info: log, warn: log, error: log, debug: log });
	const mkerr = (message, code, toolId) => {
		const e = new Error(message);
		e.code = code;
		if (toolId) e.toolId = toolId;
		return e;
	};
	return { tools, console, mkerr, stringify, parse: JSON.parse };
})`

var prelude = goja.MustCompile("prelude.js", preludeSource, true)

// programName is the file name of programs in stack traces.
const programName = "program.js"

// wrapPrefix and wrapSuffix turn a program into an async function called at
// once, so that it may await and return at top level. The prefix shares the
// program's first line, so line numbers need no correction; columns of the
// first line are shifted by len(wrapPrefix).
const (
	wrapPrefix = "(async function () {"
	wrapSuffix = "\n})()"
)
