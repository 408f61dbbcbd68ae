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
	tools := vm.NewProxy(vm.NewObject(), readOnly(func(name string) goja.Value {
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
		switch name {
		case "run":
			fn = r.jsRun
		case "search":
			fn = r.jsSearch
		case "namespaces":
			fn = r.jsNamespaces
		case "describe":
			fn = r.jsDescribe
		case "examples":
			fn = r.jsExamples
		case "chain":
			fn = r.jsChain
		case "ns":
			fn = func(args []goja.Value) goja.Value { return r.namespace(arg(args, 0).String()) }
		case "log":
			return r.logFunc()
		default:
			// then (tools is not a promise: awaiting it yields it), and
			// any name reserved for a function this engine does not have.
			return goja.Undefined()
		}
		if made == nil {
			made = map[string]goja.Value{}
		}
		v := r.function(name, fn)
		made[name] = v
		return v
	}))
	if err := vm.Set("tools", tools); err != nil {
		return err
	}
	console := vm.NewProxy(vm.NewObject(), readOnly(func(name string) goja.Value {
		switch name {
		case "log", "info", "warn", "error", "debug":
			return r.logFunc()
		}
		return goja.Undefined()
	}))
	return vm.Set("console", console)
}

// logFunc returns console.log, made on first use.
func (r *run) logFunc() goja.Value {
	if r.logFn == nil {
		r.logFn = r.function("log", r.jsLog)
	}
	return r.logFn
}

// function makes a function of the tools, named name: a proxy whose
// apply trap is fn, over one arrow function shared by all (see
// [warmUp]). Making it costs one small object, where a native function of
// its own costs a dozen, and goja would name it by looking its Go code
// up.
func (r *run) function(name string, fn func(args []goja.Value) goja.Value) *goja.Object {
	nameValue := r.vm.ToValue(name)
	return r.vm.ToValue(r.vm.NewProxy(r.fnTarget, &goja.ProxyTrapConfig{
		Apply: func(_ *goja.Object, _ goja.Value, args []goja.Value) goja.Value { return fn(args) },
		Get: func(target *goja.Object, prop string, _ goja.Value) goja.Value {
			if prop == "name" {
				return nameValue
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
	return r.function(id, func(args []goja.Value) goja.Value { return r.runTool(id, arg(args, 0)) })
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
	proxy := r.vm.ToValue(r.vm.NewProxy(r.toolFunc(ns), readOnly(func(name string) goja.Value {
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
// that cannot be changed. Symbols name nothing.
func readOnly(get func(name string) goja.Value) *goja.ProxyTrapConfig {
	return &goja.ProxyTrapConfig{
		Get:               func(_ *goja.Object, name string, _ goja.Value) goja.Value { return get(name) },
		GetIdx:            func(_ *goja.Object, i int, _ goja.Value) goja.Value { return get(strconv.Itoa(i)) },
		GetSym:            func(*goja.Object, *goja.Symbol, goja.Value) goja.Value { return goja.Undefined() },
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

// argString is String(v), with a default for undefined.
func argString(v goja.Value, def string) string {
	if v == nil || goja.IsUndefined(v) {
		return def
	}
	return v.String()
}

func (r *run) jsRun(args []goja.Value) goja.Value {
	return r.runTool(arg(args, 0).String(), arg(args, 1))
}

// runTool queues a call of tools.run. Arguments that are not JSON (a
// cycle, a BigInt) throw at once, as JSON.stringify would.
func (r *run) runTool(id string, args goja.Value) goja.Value {
	var a any
	if args != nil && !goja.IsUndefined(args) {
		a = r.toGo(args)
	}
	// No arguments (or null) are an empty object: dispatch makes it.
	return r.hostCall(call{op: "run", id: id, args: a})
}

func (r *run) jsSearch(args []goja.Value) goja.Value {
	return r.hostCall(call{op: "search", id: argString(arg(args, 0), ""), args: r.toGo(arg(args, 1))})
}

func (r *run) jsNamespaces([]goja.Value) goja.Value {
	return r.hostCall(call{op: "namespaces"})
}

func (r *run) jsDescribe(args []goja.Value) goja.Value {
	return r.hostCall(call{op: "describe", id: arg(args, 0).String(), args: argString(arg(args, 1), "schema")})
}

func (r *run) jsExamples(args []goja.Value) goja.Value {
	return r.hostCall(call{op: "examples", id: arg(args, 0).String(), args: r.toGo(arg(args, 1))})
}

func (r *run) jsChain(args []goja.Value) goja.Value {
	return r.hostCall(call{op: "chain", args: r.toGo(arg(args, 0))})
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

// show is how console.log prints one value.
func (r *run) show(v goja.Value) string {
	if goja.IsString(v) {
		return v.String()
	}
	s, ok, err := r.stringify(v)
	if err != nil {
		var ex *goja.Exception
		if !errors.As(err, &ex) {
			// The interrupt and the stack bound are not the program's
			// to catch.
			panic(err)
		}
		return v.String()
	}
	if !ok {
		return v.String()
	}
	return s
}
