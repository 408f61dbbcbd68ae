package quickjs

import (
	"strconv"
	"strings"
	"sync"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
)

// prelude is evaluated in every fresh VM before the program. It defines
// the globals tools and console over three host functions, which it takes
// off the global object so that the program reaches the host only through
// tools; it keeps its own references to the built-ins it uses (JSON,
// Error, Promise, Map, Proxy, Reflect.apply, ...), so a program that
// replaces them changes only what it sees itself. It evaluates to the two
// functions the engine calls: settle, which resolves or rejects the
// promise of a finished call, and watch, which reports how the program's
// promise ends.
//
// The prelude is a template: preludeSource puts the names of
// tooldocs.ReservedNames in place of RESERVED_NAMES, and
// toolcode.MaxShownLength in place of MAX_SHOWN_LENGTH.
//
// Values cross as JSON text both ways: arguments as JSON.stringify writes
// them (top-level scalars as they are, so that Dispatch sees an undefined
// or a NaN for what it is), results as encoding/json writes them, so a
// value arrives as it would through any JSON boundary. The names of the
// prelude's functions start with "mt$" (QuickJS names stack frames by the
// name property): the engine skips their frames when it looks for the
// program's line in a stack trace. The functions the program is given are
// frozen bound functions of those (mt$expose), named as the program reads
// them, as the goja engine's are.
//
// It lives in Go source, as does walker, and is compiled by QuickJS itself
// when the process first needs it: changing either needs no build step.
const prelude = `(() => {
"use strict";
const hostCall = globalThis.__mt_call, hostLog = globalThis.__mt_log, hostDone = globalThis.__mt_done;
delete globalThis.__mt_call; delete globalThis.__mt_log; delete globalThis.__mt_done;
const stringify = JSON.stringify, parse = JSON.parse, ErrorCtor = Error, TypeErrorCtor = TypeError, PromiseCtor = Promise, MapCtor = Map, ProxyCtor = Proxy;
const mapGet = Map.prototype.get, mapSet = Map.prototype.set, mapDelete = Map.prototype.delete;
const defineProperty = Object.defineProperty, freeze = Object.freeze, StringFn = String, apply = Reflect.apply;
const keysOf = Object.keys, getProto = Object.getPrototypeOf, isArray = Array.isArray, ObjectProto = Object.prototype;
const isFinite = Number.isFinite, sliceFn = String.prototype.slice, charCodeAt = String.prototype.charCodeAt, bind = Function.prototype.bind;
const evalFn = eval;
const callKey = Symbol("call");
const pending = new MapCtor();

// How a value is shown when it has no JSON of its own (toolcode.Engine):
// the goja engine's show.go follows the same rules with the same bounds.
const MAX_SHOWN = MAX_SHOWN_LENGTH, CANNOT = "(value that cannot be shown)";

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

// mt$kind says how an argument crosses to the host: "j" an object as its
// JSON text, "o" a function, symbol or BigInt as its type, "v" anything
// else as it is.
function mt$kind(v) {
  const t = typeof v;
  if (t === "object") return v === null ? "v" : "j";
  return t === "function" || t === "symbol" || t === "bigint" ? "o" : "v";
}

// mt$call queues a call of fn (empty for the function of the tool tool)
// with n arguments, of which a0 and a1 are the first two, and returns its
// promise. An argument that is not JSON throws here, as in JSON.stringify.
// The host gets the kinds of the arguments it is given, one letter each,
// and their count only when there are more: every value that crosses
// costs a conversion, and a tool's function passes one.
function mt$call(fn, tool, n, a0, a1) {
  let k0 = mt$kind(a0);
  if (k0 === "j") { a0 = stringify(a0); if (a0 === undefined) k0 = "v"; } else if (k0 === "o") a0 = typeof a0;
  let id;
  if (n === 0) id = hostCall(fn, tool, "");
  else if (n === 1) id = hostCall(fn, tool, k0, a0);
  else {
    let k1 = mt$kind(a1);
    if (k1 === "j") { a1 = stringify(a1); if (a1 === undefined) k1 = "v"; } else if (k1 === "o") a1 = typeof a1;
    id = n === 2 ? hostCall(fn, tool, k0 + k1, a0, a1) : hostCall(fn, tool, k0 + k1, a0, a1, n);
  }
  return new PromiseCtor((resolve, reject) => { mapSet.call(pending, id, [resolve, reject]); });
}

function mt$readOnly(target, get) {
  return new ProxyCtor(target, {
    get: function mt$get(t, name) { return typeof name === "string" ? get(name) : undefined; },
    set() { return false; },
    defineProperty() { return false; },
    deleteProperty() { return false; },
    setPrototypeOf() { return false; },
  });
}

// mt$expose gives the program a function of the prelude under its own
// name: a bound function, which adds no frame of its own, so that frames
// keep the "mt$" name of fn, which the engine skips in stack traces, while
// the program reads name as given, as in the goja engine; frozen, so that
// the program cannot change it.
function mt$expose(fn, name) {
  const f = apply(bind, fn, [undefined]);
  defineProperty(f, "name", {value: name});
  return freeze(f);
}

// mt$runner is a function that runs the tool id (named, so that its
// frames are skipped).
function mt$runner(id) {
  const mt$toolRun = (args, ...more) => mt$call("", id, 1 + more.length, args, more[0]);
  return mt$toolRun;
}

const toolFns = new MapCtor();
function mt$tool(id) {
  let f = mapGet.call(toolFns, id);
  if (f === undefined) {
    f = mt$expose(mt$runner(id), id);
    mapSet.call(toolFns, id, f);
  }
  return f;
}

// A namespace is a proxy over a function of its own, not over the frozen
// tool function: a proxy must report a frozen target's name as it is,
// where a namespace answers every name with a tool.
const namespaces = new MapCtor();
function mt$namespace(ns) {
  let p = mapGet.call(namespaces, ns);
  if (p === undefined) {
    p = mt$readOnly(mt$runner(ns), function mt$member(name) { return name === "then" ? undefined : mt$tool(ns + ":" + name); });
    mapSet.call(namespaces, ns, p);
  }
  return p;
}

// mt$cut is the longest prefix of s of MAX_SHOWN code units at most that
// does not split a surrogate pair.
function mt$cut(s) {
  let n = MAX_SHOWN;
  if (s.length <= n) return s;
  const c = apply(charCodeAt, s, [n - 1]);
  if (c >= 0xD800 && c <= 0xDBFF) {
    const d = apply(charCodeAt, s, [n]);
    if (d >= 0xDC00 && d <= 0xDFFF) n--;
  }
  return apply(sliceFn, s, [0, n]);
}

function mt$cutShown(s) { return s.length > MAX_SHOWN ? mt$cut(s) + "\u2026" : s; }

function mt$fnText(f) {
  const n = f.name;
  return typeof n === "string" && n !== "" ? "[Function: " + n + "]" : "[Function (anonymous)]";
}

// mt$errorText shows an error, an object that is neither plain nor an
// array and whose message is a string, as "<name>: <message>"; undefined
// for anything else.
function mt$errorText(v) {
  if (isArray(v)) return undefined;
  const p = getProto(v);
  if (p === ObjectProto || p === null) return undefined;
  const m = v.message;
  if (typeof m !== "string") return undefined;
  const n = v.name;
  const name = typeof n === "string" ? n : "";
  const t = name === "" ? m : m === "" ? name : name + ": " + m;
  return t === "" ? undefined : t;
}

// mt$walk shows an object as JSON (see walker), made when a program first
// needs it: most never do, and every execution would pay for it.
let mt$walk;

function mt$render(v) {
  const t = typeof v;
  if (t === "undefined") return "undefined";
  if (t === "string") return mt$cutShown(v);
  if (t === "symbol") return mt$cutShown(StringFn(v));
  if (t === "function") return mt$cutShown(mt$fnText(v));
  if (t !== "object" || v === null) return StringFn(v);
  const e = mt$errorText(v);
  if (e !== undefined) return mt$cutShown(e);
  if (mt$walk === undefined) {
    mt$walk = evalFn(hostCall("#walker"))(stringify, apply, sliceFn, isArray, keysOf, isFinite, StringFn, MAX_SHOWN, mt$cut);
  }
  return mt$walk(v);
}

// mt$shown is the text of a value without JSON of its own; the interrupt,
// which no catch sees, still stops the program.
function mt$shown(v) {
  try { return mt$render(v); } catch (e) { return CANNOT; }
}

function mt$show(v) {
  if (typeof v === "string") return v;
  if (v !== null && typeof v === "object") {
    try {
      const e = mt$errorText(v);
      if (e !== undefined) return mt$cutShown(e);
    } catch (x) {}
  }
  let s;
  try { s = stringify(v); } catch (e) { return mt$shown(v); }
  return s === undefined ? mt$shown(v) : s;
}

// mt$log is console.log: it prints each value as mt$show does.
const mt$log = (...args) => {
  let line = "";
  for (let i = 0; i < args.length; i++) line += (i > 0 ? " " : "") + mt$show(args[i]);
  const failed = hostLog(line);
  if (failed !== 0) throw mt$error("output limit reached", "resource_exhausted", "", failed);
};

// mt$ns is tools.ns(name), with the goja engine's messages.
const mt$ns = (name, ...more) => {
  if (more.length > 0) throw new TypeErrorCtor("tools.ns: expected 1 argument (the namespace), got " + (1 + more.length));
  if (typeof name !== "string") {
    const t = name === null ? "null" : isArray(name) ? "array" : typeof name;
    throw new TypeErrorCtor("tools.ns: the namespace must be a string, not " + t);
  }
  return mt$namespace(name);
};

// The functions of tools. Each passes Dispatch the count of its
// arguments, which the goja engine knows from the call: a missing argument
// and an undefined one read the same, so only the arguments past the
// parameters are counted exactly.
const mt$run = (id, args, ...more) => mt$call("run", "", 2 + more.length, id, args);
const mt$search = (query, limit, ...more) => mt$call("search", "", 2 + more.length, query, limit);
const mt$namespaces = (...more) => mt$call("namespaces", "", more.length, more[0], more[1]);
const mt$describe = (id, level, ...more) => mt$call("describe", "", 2 + more.length, id, level);
const mt$examples = (id, limit, ...more) => mt$call("examples", "", 2 + more.length, id, limit);
const mt$chain = (steps, ...more) => mt$call("chain", "", 1 + more.length, steps, more[0]);
const methods = freeze({
  run: mt$run, search: mt$search, namespaces: mt$namespaces, describe: mt$describe,
  examples: mt$examples, chain: mt$chain, ns: mt$ns, log: mt$log,
});
const hasOwn = Object.prototype.hasOwnProperty;

// The functions of tools are exposed when the program first reads them:
// most programs use one or two.
const log = mt$expose(mt$log, "log");
const exposed = new MapCtor([["log", log]]);
function mt$method(name) {
  let f = mapGet.call(exposed, name);
  if (f === undefined) {
    f = mt$expose(methods[name], name);
    mapSet.call(exposed, name, f);
  }
  return f;
}

// The names the engine keeps for itself on tools are tooldocs.ReservedNames
// (put in by preludeSource), which the declarations a model reads are
// rendered with: every other name is a namespace (or a tool without
// namespace), and a reserved name without a method (then) is undefined.
const reserved = freeze(Object.fromEntries(RESERVED_NAMES.map((n) => [n, true])));

defineProperty(globalThis, "tools", {value: mt$readOnly({}, function mt$member(name) {
  if (!hasOwn.call(reserved, name)) return mt$namespace(name);
  return hasOwn.call(methods, name) ? mt$method(name) : undefined;
})});
const consoleObj = freeze({log: log, info: log, warn: log, error: log, debug: log});
defineProperty(globalThis, "console", {value: consoleObj, writable: true, configurable: true});

function mt$settle(n, ok, payload, code, toolId) {
  const p = mapGet.call(pending, n);
  if (p === undefined) return;
  mapDelete.call(pending, n);
  if (ok) p[0](parse(payload));
  else p[1](mt$error(payload, code, toolId, n));
}

// mt$explain is how a thrown value reaches the engine: its text, its name
// (which tells the runtime's own errors), its stack and the number of the
// call whose failure it is.
function mt$explain(e) {
  let name = "", stack = "", id = 0;
  try {
    if (e !== null && (typeof e === "object" || typeof e === "function")) {
      const own = e[callKey];
      if (typeof own === "number") id = own;
      const s = e.stack, n = e.name;
      if (typeof s === "string") stack = s;
      if (typeof n === "string") name = n;
    }
  } catch (x) {}
  return [mt$shown(e), name, stack, id];
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

// walker is the source of the function that shows an object as JSON
// (mt$walk): JSON.stringify's text, but for a circular reference
// ("[Circular]") and a BigInt (its digits), and within the bounds of the
// goja engine's show.go (the text past MAX_SHOWN cut, at most
// MAX_MEMBERS members read, nesting past MAX_DEPTH written as a marker).
// The prelude evaluates it the first time it needs it, with the built-ins
// it kept: as part of the prelude, it would add about a twentieth to the
// start of every execution, for what few of them use.
const walker = `(function mt$walker(stringify, apply, sliceFn, isArray, keysOf, isFinite, StringFn, MAX_SHOWN, mt$cut) {
"use strict";
const MAX_DEPTH = 20, MAX_MEMBERS = 10000;

function mt$write(w, s) {
  w.out += s;
  if (w.out.length > MAX_SHOWN) w.full = true;
}

function mt$member(w) {
  w.members++;
  if (w.members > MAX_MEMBERS) w.full = true;
  return !w.full;
}

function mt$prepare(v, key) {
  if (v === null || (typeof v !== "object" && typeof v !== "function")) return v;
  const f = v.toJSON;
  return typeof f === "function" ? apply(f, v, [key]) : v;
}

function mt$skipped(v) {
  const t = typeof v;
  return t === "undefined" || t === "function" || t === "symbol";
}

function mt$quote(w, s) {
  const room = MAX_SHOWN + 1 - w.out.length;
  if (s.length > room) s = apply(sliceFn, s, [0, room > 0 ? room : 0]);
  mt$write(w, stringify(s));
}

function mt$value(w, v, depth) {
  if (w.full) return;
  if (v === null) { mt$write(w, "null"); return; }
  switch (typeof v) {
  case "string": mt$quote(w, v); return;
  case "number": mt$write(w, isFinite(v) ? StringFn(v) : "null"); return;
  case "object": break;
  default: mt$write(w, StringFn(v)); return;
  }
  for (let i = 0; i < w.stack.length; i++) {
    if (w.stack[i] === v) { mt$write(w, '"[Circular]"'); return; }
  }
  const array = isArray(v);
  if (depth >= MAX_DEPTH) { mt$write(w, array ? '"[Array]"' : '"[Object]"'); return; }
  w.stack[w.stack.length] = v;
  if (array) mt$array(w, v, depth); else mt$object(w, v, depth);
  w.stack.length--;
}

function mt$array(w, a, depth) {
  mt$write(w, "[");
  let n = +a.length;
  if (!(n > 0)) n = 0;
  for (let i = 0; i < n && mt$member(w); i++) {
    if (i > 0) mt$write(w, ",");
    const key = StringFn(i);
    const v = mt$prepare(a[key], key);
    if (mt$skipped(v)) mt$write(w, "null"); else mt$value(w, v, depth + 1);
  }
  mt$write(w, "]");
}

function mt$object(w, o, depth) {
  mt$write(w, "{");
  const keys = keysOf(o);
  let first = true;
  for (let i = 0; i < keys.length; i++) {
    if (!mt$member(w)) break;
    const k = keys[i];
    const v = mt$prepare(o[k], k);
    if (mt$skipped(v)) continue;
    if (!first) mt$write(w, ",");
    first = false;
    mt$quote(w, k);
    mt$write(w, ":");
    mt$value(w, v, depth + 1);
  }
  mt$write(w, "}");
}

return function mt$walk(v) {
  const top = mt$prepare(v, "");
  if (mt$skipped(top)) return "undefined";
  const w = {out: "", members: 0, full: false, stack: []};
  mt$value(w, top, 0);
  return w.out.length > MAX_SHOWN || w.full ? mt$cut(w.out) + "\u2026" : w.out;
};
})`

// preludeSource returns the prelude with the names the engine keeps for
// itself on tools, tooldocs.ReservedNames, as a JavaScript array, and
// without its comments.
func preludeSource() string {
	names := tooldocs.ReservedNames()
	for i, n := range names {
		names[i] = strconv.Quote(n) // ASCII names: a JavaScript string too
	}
	src := strings.Replace(prelude, "RESERVED_NAMES", "["+strings.Join(names, ", ")+"]", 1)
	return withoutComments(strings.Replace(src, "MAX_SHOWN_LENGTH", strconv.Itoa(toolcode.MaxShownLength), 1))
}

// walkerSource is walker without its comments.
var walkerSource = sync.OnceValue(func() string { return withoutComments(walker) })

// withoutComments drops the lines of JavaScript source that are comments
// and the indentation of the others. QuickJS keeps a function's source in
// its bytecode, for Function.prototype.toString: the comments would make
// the bytecode every execution loads twice as large. The sources this
// applies to have no string or template spanning lines.
func withoutComments(src string) string {
	lines := strings.Split(src, "\n")
	out := lines[:0]
	for _, line := range lines {
		line = strings.TrimLeft(line, " ")
		if !strings.HasPrefix(line, "//") {
			out = append(out, line)
		}
	}
	return strings.Join(out, "\n")
}
