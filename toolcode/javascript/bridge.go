package javascript

import (
	"strconv"

	"github.com/dop251/goja"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
)

// install defines the globals tools and console, in Go: the tools object
// and its namespaces are proxies whose traps are Go functions, and every
// method is a native function, so that starting an execution builds a
// handful of objects and touches none of the runtime's lazily built
// globals (Map, Proxy, JSON) it does not need.
func (r *run) install() error {
	vm := r.vm
	// The methods are made when the program first reads them: most
	// programs use one or two.
	var made map[string]goja.Value
	tools := vm.NewProxy(vm.NewObject(), r.readOnly(func(name string) goja.Value {
		if v, ok := made[name]; ok {
			return v
		}
		// The names the engine keeps for itself are tooldocs' list, which
		// the declarations a model reads are rendered with: every other
		// name is a namespace (or a tool without namespace).
		if !tooldocs.IsReservedName(name) {
			return r.namespace(name)
		}
		var fn func([]goja.Value) goja.Value
		var length int
		switch name {
		case "ns":
			fn, length = r.jsNamespace, 1
		case "log":
			return r.logFunc()
		default:
			n, ok := parameters[name]
			if !ok {
				// then (tools is not a promise: awaiting it yields it), and
				// any name reserved for a function this engine does not
				// have.
				return goja.Undefined()
			}
			fn, length = func(args []goja.Value) goja.Value { return r.hostCall(r.newCall(name, "", args)) }, n
		}
		if made == nil {
			made = map[string]goja.Value{}
		}
		v := r.function(name, length, fn)
		made[name] = v
		return v
	}))
	if err := vm.Set("tools", tools); err != nil {
		return err
	}
	console := vm.NewProxy(vm.NewObject(), r.readOnly(func(name string) goja.Value {
		switch name {
		case "log", "info", "warn", "error", "debug":
			return r.logFunc()
		}
		return goja.Undefined()
	}))
	return vm.Set("console", console)
}

// parameters are the functions of tools that toolcode.Dispatch runs, and
// the number of parameters each declares (its length, as the QuickJS
// engine's have it).
var parameters = map[string]int{"run": 2, "search": 2, "namespaces": 0, "describe": 2, "examples": 2, "chain": 1}

// logFunc returns console.log, made on first use.
func (r *run) logFunc() goja.Value {
	if r.logFn == nil {
		r.logFn = r.function("log", 0, r.jsLog)
	}
	return r.logFn
}

// function makes a function of the tools, named name, that declares
// length parameters: a proxy whose apply trap is fn, over one arrow
// function shared by all (see [warmUp]). Making it costs one small
// object, where a native function of its own costs a dozen, and goja
// would name it by looking its Go code up.
func (r *run) function(name string, length int, fn func(args []goja.Value) goja.Value) *goja.Object {
	nameValue, lengthValue := r.vm.ToValue(name), r.vm.ToValue(length)
	return r.vm.ToValue(r.vm.NewProxy(r.fnTarget, &goja.ProxyTrapConfig{
		Apply: func(_ *goja.Object, _ goja.Value, args []goja.Value) goja.Value { return fn(args) },
		Get: func(target *goja.Object, prop string, _ goja.Value) goja.Value {
			switch prop {
			case "name":
				return nameValue
			case "length":
				return lengthValue
			}
			return target.Get(prop)
		},
		GetSym:         func(*goja.Object, *goja.Symbol, goja.Value) goja.Value { return goja.Undefined() },
		Set:            func(*goja.Object, string, goja.Value, goja.Value) bool { return false },
		SetIdx:         func(*goja.Object, int, goja.Value, goja.Value) bool { return false },
		SetSym:         func(*goja.Object, *goja.Symbol, goja.Value, goja.Value) bool { return false },
		DeleteProperty: func(*goja.Object, string) bool { return false },
		DefineProperty: func(*goja.Object, string, goja.PropertyDescriptor) bool { return false },
		SetPrototypeOf: func(*goja.Object, *goja.Object) bool { return false },
	})).(*goja.Object)
}

// arg is the i-th argument, undefined when missing.
func arg(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

// toolFunc returns a function that runs the tool id.
func (r *run) toolFunc(id string) *goja.Object {
	return r.function(id, 1, func(args []goja.Value) goja.Value {
		if len(args) == 1 {
			// The hot path: one argument, its conversion in place.
			return r.hostCall(call{tool: id, n: 1, argv: [2]any{r.toArg(args[0])}})
		}
		return r.hostCall(r.newCall("", id, args))
	})
}

// namespace returns the object of a namespace: called, it runs the tool
// named like the namespace (a tool without namespace); its properties are
// the namespace's tools, but for then, which is undefined so that
// awaiting a namespace yields it (a tool named then is reached by ID, as
// tooldocs.ReservedNames says). Namespaces and their tool functions are made once
// per name, so a program calling a tool in a loop allocates nothing for
// the lookup.
func (r *run) namespace(ns string) goja.Value {
	if v, ok := r.namespaces[ns]; ok {
		return v
	}
	fns := map[string]goja.Value{}
	if r.namespaces == nil {
		r.namespaces = map[string]goja.Value{}
	}
	proxy := r.vm.ToValue(r.vm.NewProxy(r.toolFunc(ns), r.readOnly(func(name string) goja.Value {
		if v, ok := fns[name]; ok {
			return v
		}
		if name == "then" {
			return goja.Undefined()
		}
		v := r.toolFunc(ns + ":" + name)
		fns[name] = v
		return v
	})))
	r.namespaces[ns] = proxy
	return proxy
}

// readOnly returns the traps of a proxy whose properties get answers, and
// that cannot be changed. Symbols name nothing, but Symbol.toPrimitive:
// the proxy is no primitive, and converting it throws the TypeError the
// QuickJS engine throws, rather than one that would show the proxy's Go
// value (and its heap addresses).
func (r *run) readOnly(get func(name string) goja.Value) *goja.ProxyTrapConfig {
	return &goja.ProxyTrapConfig{
		Get:    func(_ *goja.Object, name string, _ goja.Value) goja.Value { return get(name) },
		GetIdx: func(_ *goja.Object, i int, _ goja.Value) goja.Value { return get(strconv.Itoa(i)) },
		GetSym: func(_ *goja.Object, sym *goja.Symbol, _ goja.Value) goja.Value {
			if sym == goja.SymToPrimitive {
				return r.noPrimitive()
			}
			return goja.Undefined()
		},
		Set:               func(*goja.Object, string, goja.Value, goja.Value) bool { return false },
		SetIdx:            func(*goja.Object, int, goja.Value, goja.Value) bool { return false },
		SetSym:            func(*goja.Object, *goja.Symbol, goja.Value, goja.Value) bool { return false },
		DeleteProperty:    func(*goja.Object, string) bool { return false },
		DeletePropertyIdx: func(*goja.Object, int) bool { return false },
		DeletePropertySym: func(*goja.Object, *goja.Symbol) bool { return false },
		DefineProperty:    func(*goja.Object, string, goja.PropertyDescriptor) bool { return false },
		DefinePropertyIdx: func(*goja.Object, int, goja.PropertyDescriptor) bool { return false },
		DefinePropertySym: func(*goja.Object, *goja.Symbol, goja.PropertyDescriptor) bool { return false },
		SetPrototypeOf:    func(*goja.Object, *goja.Object) bool { return false },
	}
}

// noPrimitive returns the function that stands for Symbol.toPrimitive of
// the tools' objects, made on first use: it throws a TypeError.
func (r *run) noPrimitive() goja.Value {
	if r.toPrimitive == nil {
		r.toPrimitive = r.vm.ToValue(func(goja.FunctionCall) goja.Value {
			panic(r.vm.NewTypeError("toPrimitive"))
		})
	}
	return r.toPrimitive
}

// newCall converts a call's arguments (the first two: Dispatch only
// counts the others). An argument that is not JSON (a cycle, a BigInt in
// an object) throws at once, as JSON.stringify would.
func (r *run) newCall(fn, tool string, args []goja.Value) call {
	c := call{fn: fn, tool: tool, n: len(args)}
	for i := range min(len(args), len(c.argv)) {
		c.argv[i] = r.toArg(args[i])
	}
	return c
}

// jsNamespace is tools.ns(name): the namespace of that name, even one the
// functions of tools hide. It throws a TypeError for anything but one
// string, with the message of the QuickJS engine.
func (r *run) jsNamespace(args []goja.Value) goja.Value {
	if len(args) > 1 {
		panic(r.vm.NewTypeError("tools.ns: expected 1 argument (the namespace), got %d", len(args)))
	}
	name := arg(args, 0)
	if !goja.IsString(name) {
		panic(r.vm.NewTypeError("tools.ns: the namespace must be a string, not %s", r.typeOf(name)))
	}
	return r.namespace(name.String())
}

// typeOf names the type of a value as the messages of tools do: typeof,
// but "null" and "array" for what typeof calls objects.
func (r *run) typeOf(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "null"
	case goja.IsString(v):
		return "string"
	case goja.IsNumber(v):
		return "number"
	case goja.IsBigInt(v):
		return "bigint"
	}
	switch x := v.(type) {
	case *goja.Symbol:
		return "symbol"
	case *goja.Object:
		if _, fn := goja.AssertFunction(x); fn {
			return "function"
		}
		if r.isArray(x) {
			return "array"
		}
		return "object"
	}
	return "boolean"
}

// jsLog is console.log: its arguments, strings as they are and other
// values as JSON (or String(value) when they have none), joined by
// spaces. It throws when the output limit is reached.
func (r *run) jsLog(args []goja.Value) goja.Value {
	var line []byte
	for i, a := range args {
		if i > 0 {
			line = append(line, ' ')
		}
		line = append(line, r.show(a)...)
	}
	if err := r.prog.Tools.Log(r.ctx, string(line)); err != nil {
		panic(r.jsError(err))
	}
	return goja.Undefined()
}

// show is how console.log prints one value: a string as it is, an error
// as "<name>: <message>", anything else as JSON, or as an uncaught
// exception would show it when it has no JSON (undefined, a function, a
// symbol, a cycle, a BigInt).
func (r *run) show(v goja.Value) string {
	if goja.IsString(v) {
		return v.String()
	}
	if obj, ok := v.(*goja.Object); ok {
		if _, fn := goja.AssertFunction(obj); !fn {
			if text, ok := r.loggedError(obj); ok {
				return text
			}
		}
	}
	s, ok, err := r.stringify(v)
	if err != nil {
		var ex *goja.Exception
		if !errors.As(err, &ex) {
			// The interrupt and the stack bound are not the program's
			// to catch.
			panic(err)
		}
		return r.shownLive(v)
	}
	if !ok {
		return r.shownLive(v)
	}
	return s
}

// loggedError is the text console.log prints for an error (see
// [run.errorText]); ok is false for any other value, or when reading it
// threw. The interrupt and the stack bound go on to stop the program.
func (r *run) loggedError(obj *goja.Object) (text string, ok bool) {
	if ex := r.vm.Try(func() { text, ok = r.errorText(obj) }); ex != nil {
		return "", false
	}
	if ok {
		text = cutShown(text)
	}
	return text, ok
}
