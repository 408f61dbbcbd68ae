package quickjs

import (
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/tooldocs"
)

// prelude is evaluated in every fresh VM before the program. It defines
// the globals tools and console over three host functions, which it takes
// off the global object so that the program reaches the host only through
// tools; it keeps its own references to the built-ins it uses (JSON,
// Error, Promise, Map), so a program that replaces them changes only what
// it sees itself. It evaluates to the two functions the engine calls:
// settle, which resolves or rejects the promise of a finished call, and
// watch, which reports how the program's promise ends.
//
// The prelude is a template: preludeSource puts the names of
// tooldocs.ReservedNames in place of RESERVED_NAMES.
//
// Values cross as JSON text both ways: arguments as JSON.stringify writes
// them, results as encoding/json writes them, so a value arrives as it
// would through any JSON boundary. Function names start with "mt$" (and keep
// that name: QuickJS names stack frames by it): the engine skips their frames when it looks for the program's line in a
// stack trace.
const prelude = `(() => {
"use strict";
const hostCall = globalThis.__mt_call, hostLog = globalThis.__mt_log, hostDone = globalThis.__mt_done;
delete globalThis.__mt_call; delete globalThis.__mt_log; delete globalThis.__mt_done;
const stringify = JSON.stringify, parse = JSON.parse, ErrorCtor = Error, PromiseCtor = Promise, MapCtor = Map;
const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
const defineProperty = Object.defineProperty, freeze = Object.freeze, StringFn = String;
const callKey = Symbol("call");
const pending = new MapCtor();

function mt$json(v) {
  if (v === undefined) return "null";
  const s = stringify(v);
  return s === undefined ? "null" : s;
}

function mt$error(message, code, toolId, id) {
  const e = new ErrorCtor(message);
  e.code = code;
  if (toolId) e.toolId = toolId;
  defineProperty(e, callKey, {value: id});
  return e;
}

function mt$call(op, id, args) {
  const n = hostCall(op, id === undefined ? "" : StringFn(id), mt$json(args));
  return new PromiseCtor((resolve, reject) => { mapSet.call(pending, n, [resolve, reject]); });
}

function mt$readOnly(target, get) {
  return new Proxy(target, {
    get: function mt$get(t, name) { return typeof name === "string" ? get(name) : undefined; },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
}

const toolFns = new MapCtor();
function mt$tool(id) {
  let f = mapGet.call(toolFns, id);
  if (f === undefined) {
    f = {["mt$" + id]: (args) => mt$call("run", id, args === undefined ? {} : args)}["mt$" + id];
    mapSet.call(toolFns, id, f);
  }
  return f;
}

const namespaces = new MapCtor();
function mt$namespace(ns) {
  let p = mapGet.call(namespaces, ns);
  if (p === undefined) {
    p = mt$readOnly(mt$tool(ns), function mt$member(name) { return name === "then" ? undefined : mt$tool(ns + ":" + name); });
    mapSet.call(namespaces, ns, p);
  }
  return p;
}

function mt$show(v) {
  if (typeof v === "string") return v;
  try {
    const s = stringify(v);
    if (s !== undefined) return s;
  } catch (e) {}
  try { return StringFn(v); } catch (e) { return "(value that cannot be shown)"; }
}

function mt$log(...args) {
  let line = "";
  for (let i = 0; i < args.length; i++) line += (i > 0 ? " " : "") + mt$show(args[i]);
  const failed = hostLog(line);
  if (failed !== 0) throw mt$error("output limit reached", "resource_exhausted", "", failed);
}

const methods = freeze({
  run: function mt$run(id, args) { return mt$call("run", id, args === undefined ? {} : args); },
  search: function mt$search(query, limit) { return mt$call("search", query, limit); },
  namespaces: function mt$namespaces() { return mt$call("namespaces", "", undefined); },
  describe: function mt$describe(id, level) { return mt$call("describe", id, level === undefined ? "schema" : level); },
  examples: function mt$examples(id, limit) { return mt$call("examples", id, limit); },
  chain: function mt$chain(steps) { return mt$call("chain", "", steps); },
  ns: function mt$ns(name) { return mt$namespace(StringFn(name)); },
  log: mt$log,
});
const hasOwn = Object.prototype.hasOwnProperty;

// The names the engine keeps for itself on tools are tooldocs.ReservedNames
// (put in by preludeSource), which the declarations a model reads are
// rendered with: every other name is a namespace (or a tool without
// namespace), and a reserved name without a method (then) is undefined.
const reserved = freeze(Object.fromEntries(RESERVED_NAMES.map((n) => [n, true])));

defineProperty(globalThis, "tools", {value: mt$readOnly({}, function mt$member(name) {
  if (!hasOwn.call(reserved, name)) return mt$namespace(name);
  return hasOwn.call(methods, name) ? methods[name] : undefined;
})});
const consoleObj = freeze({log: mt$log, info: mt$log, warn: mt$log, error: mt$log, debug: mt$log});
defineProperty(globalThis, "console", {value: consoleObj, writable: true, configurable: true});

function mt$settle(n, ok, payload, code, toolId) {
  const p = mapGet.call(pending, n);
  if (p === undefined) return;
  mapDelete.call(pending, n);
  if (ok) p[0](parse(payload));
  else p[1](mt$error(payload, code, toolId, n));
}

function mt$explain(e) {
  let message = "(value that cannot be shown)", name = "", stack = "", id = 0;
  try { message = StringFn(e); } catch (x) {}
  try {
    if (e !== null && (typeof e === "object" || typeof e === "function")) {
      const own = e[callKey];
      if (typeof own === "number") id = own;
      const s = e.stack, n = e.name;
      if (typeof s === "string") stack = s;
      if (typeof n === "string") name = n;
      const m = e.message;
      if (typeof m === "string" && name !== "") message = name + (m === "" ? "" : ": " + m);
    }
  } catch (x) {}
  return [message, name, stack, id];
}

function mt$watch(p, script) {
  p.then((r) => {
    const v = script ? r.value : r;
    let s;
    try {
      s = mt$json(v);
    } catch (e) {
      const d = mt$explain(e);
      hostDone("notjson", d[0], d[1], d[2], d[3]);
      return;
    }
    hostDone("value", s, "", "", 0);
  }, (e) => {
    const d = mt$explain(e);
    hostDone("throw", d[0], d[1], d[2], d[3]);
  });
}

return [mt$settle, mt$watch];
})()`

// preludeSource returns the prelude with the names the engine keeps for
// itself on tools, tooldocs.ReservedNames, as a JavaScript array.
func preludeSource() string {
	names := tooldocs.ReservedNames()
	for i, n := range names {
		names[i] = strconv.Quote(n) // ASCII names: a JavaScript string too
	}
	return strings.Replace(prelude, "RESERVED_NAMES", "["+strings.Join(names, ", ")+"]", 1)
}
