package javascript

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// DefaultMaxBuiltinSize is the default bound on what one call of a
// guarded built-in may build (see [WithMaxBuiltinSize]): 16 Mi characters
// of a string, or elements of an array.
const DefaultMaxBuiltinSize = 1 << 24

// WithMaxBuiltinSize bounds the size of the string or array one call of a
// built-in that goja cannot interrupt midway may build or walk (default
// [DefaultMaxBuiltinSize]); see the package's Limits for the list. A call
// past the bound throws a RangeError whose code is "resource_exhausted"
// before it allocates anything; uncaught, it fails the execution with
// code [errors.ResourceExhausted] and the limit
// [toolcode.LimitAllocation]. Such a call would otherwise run, out of the
// reach of the wall time, for as long as it takes to build gigabytes.
func WithMaxBuiltinSize(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.maxBuiltin = n
		}
	}
}

// Estimated bytes of one unit of what a built-in builds, to weigh it
// against the memory limit: a character (UTF-16 at worst), an element of
// an array (an interface value), a new string made per element (its
// header, its interface and a little text).
const (
	charBytes    = 2
	elementBytes = 16
	stringBytes  = 48
)

// arrayMethods are the methods of Array.prototype the engine guards by the
// array's length: every one that loops over it natively, but join, fill,
// concat and flat, which have guards of their own, and at, push, pop,
// keys, values and entries, which do not loop.
var arrayMethods = []string{
	"copyWithin", "every", "filter", "find", "findIndex", "findLast", "findLastIndex",
	"flatMap", "forEach", "includes", "indexOf", "lastIndexOf", "map", "reduce",
	"reduceRight", "reverse", "shift", "slice", "some", "sort", "splice",
	"toLocaleString", "toReversed", "toSorted", "toSpliced", "unshift", "with",
}

// typedArrays are the constructors whose instances allocate their
// elements at once.
var typedArrays = []string{
	"ArrayBuffer", "Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
	"Int32Array", "Uint32Array", "Float32Array", "Float64Array", "BigInt64Array", "BigUint64Array",
}

// guardBuiltins puts, in place of the built-ins goja runs natively to
// their end, functions that measure what the call would build or walk and
// throw when it is too large, or else call the original (see the
// package's Limits). A guard converts its receiver and arguments once,
// and gives the original the converted values, so that a program's
// toString or valueOf runs once, as without the guard.
//
// Every runtime gets them, whatever its program: a program may reach a
// built-in by a name it computes. They are installed when the runtime is
// made, ahead of its program (see [spares]).
func (r *run) guardBuiltins() error {
	vm := r.vm
	str, ok := prototypeOf(vm, "String")
	if !ok {
		return fmt.Errorf("no String.prototype")
	}
	array, _ := vm.Get("Array").(*goja.Object)
	arr, ok := prototypeOf(vm, "Array")
	if !ok || array == nil {
		return fmt.Errorf("no Array.prototype")
	}
	rx, okRx := prototypeOf(vm, "RegExp")
	fn, okFn := prototypeOf(vm, "Function")
	object, _ := vm.Get("Object").(*goja.Object)
	if !okRx || !okFn || object == nil {
		return fmt.Errorf("no RegExp, Function or Object")
	}
	guards := []guardSpec{
		{str, "repeat", 1, r.guardRepeat},
		{str, "padStart", 2, r.guardPad},
		{str, "padEnd", 2, r.guardPad},
		{str, "concat", 1, r.guardStringConcat},
		{str, "replace", 2, r.guardReplace},
		{str, "replaceAll", 2, r.guardReplace},
		{str, "split", 2, r.guardSplit},
		{arr, "join", 1, r.guardJoin},
		{arr, "fill", 1, r.guardFill},
		{arr, "concat", 1, r.guardArrayConcat},
		{arr, "flat", 0, r.guardFlat},
		{array, "from", 1, r.guardFrom},
		{rx, "exec", 1, r.guardRegexp},
		{rx, "test", 1, r.guardRegexp},
		{fn, "apply", 2, r.guardApply(1)},
		{object, "keys", 1, r.guardKeys},
		{object, "values", 1, r.guardKeys},
		{object, "entries", 1, r.guardKeys},
		{object, "getOwnPropertyNames", 1, r.guardKeys},
	}
	for _, name := range arrayMethods {
		guards = append(guards, guardSpec{arr, name, -1, r.guardLength})
	}
	if err := r.installGuards(guards); err != nil {
		return err
	}
	for _, sym := range []*goja.Symbol{goja.SymMatch, goja.SymReplace, goja.SymSearch, goja.SymSplit} {
		orig, ok := goja.AssertFunction(rx.GetSymbol(sym))
		if !ok {
			return fmt.Errorf("no built-in RegExp.prototype[%s]", sym)
		}
		length := int(rx.GetSymbol(sym).(*goja.Object).Get("length").ToInteger())
		name := strings.TrimSuffix(strings.TrimPrefix(sym.String(), "Symbol("), ")")
		if err := r.replace(rx, "["+name+"]", sym, length, orig, r.guardRegexp); err != nil {
			return err
		}
	}

	// What only a global reaches is guarded when the program first reads
	// the global: goja builds these objects on first use, and most
	// programs use none.
	if err := r.lazy([]string{"JSON"}, func() error {
		json, ok := vm.Get("JSON").(*goja.Object)
		if !ok {
			return fmt.Errorf("no JSON")
		}
		return r.installGuards([]guardSpec{
			{json, "stringify", 3, r.guardStringify},
			{json, "parse", 2, r.guardParse},
		})
	}); err != nil {
		return err
	}
	if err := r.lazy([]string{"Reflect"}, func() error {
		reflect, ok := vm.Get("Reflect").(*goja.Object)
		if !ok {
			return fmt.Errorf("no Reflect")
		}
		return r.installGuards([]guardSpec{
			{reflect, "apply", 3, r.guardApply(2)},
			{reflect, "construct", 2, r.guardApply(1)},
			{reflect, "ownKeys", 1, r.guardKeys},
		})
	}); err != nil {
		return err
	}
	// A typed array leads to ArrayBuffer (its buffer's constructor): the
	// family is guarded at once.
	if err := r.lazy(typedArrays, func() error {
		if ab, ok := vm.Get("ArrayBuffer").(*goja.Object); ok {
			r.viewCheck, _ = goja.AssertFunction(ab.Get("isView"))
		}
		for _, name := range typedArrays {
			if err := r.guardConstructor(name); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return r.lazy([]string{"Proxy"}, r.guardProxy)
}

// guardSpec is a built-in to guard: its object, name and length, and the
// guard (length -1 keeps the built-in's).
type guardSpec struct {
	on     *goja.Object
	name   string
	length int
	guard  func(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error)
}

func (r *run) installGuards(guards []guardSpec) error {
	for _, g := range guards {
		orig, ok := goja.AssertFunction(g.on.Get(g.name))
		if !ok {
			return fmt.Errorf("no built-in %s", g.name)
		}
		length := g.length
		if length < 0 {
			length = int(g.on.Get(g.name).(*goja.Object).Get("length").ToInteger())
		}
		if err := r.replace(g.on, g.name, nil, length, orig, g.guard); err != nil {
			return err
		}
	}
	return nil
}

// lazy makes the globals names accessors that, when the program first
// reads or writes one of them, put the globals back as they were and run
// install, which guards them. A program sees the globals as accessors
// until then (in their property descriptors only).
func (r *run) lazy(names []string, install func() error) error {
	vm := r.vm
	global := vm.GlobalObject()
	saved := make(map[string]goja.Value, len(names))
	for _, name := range names {
		saved[name] = nil
	}
	done := false
	restore := func() {
		if done {
			return
		}
		done = true
		for _, name := range names {
			if err := global.DefineDataProperty(name, saved[name], goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
				panic(r.throwable(err))
			}
		}
		if err := install(); err != nil {
			panic(r.throwable(err))
		}
	}
	for _, name := range names {
		// Read through the runtime's own lookup: goja builds the object.
		saved[name] = global.Get(name)
	}
	for _, name := range names {
		get := vm.ToValue(func(goja.FunctionCall) goja.Value {
			restore()
			return global.Get(name)
		})
		set := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			restore()
			if err := global.Set(name, call.Argument(0)); err != nil {
				panic(r.throwable(err))
			}
			return goja.Undefined()
		})
		if err := global.DefineAccessorProperty(name, get, set, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// replace defines, on on, the guard of the built-in orig, named and sized
// as orig.
func (r *run) replace(on *goja.Object, name string, sym *goja.Symbol, length int, orig goja.Callable,
	guard func(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error)) error {
	vm := r.vm
	fn := vm.ToValue(func(call goja.FunctionCall) goja.Value {
		v, err := guard(name, orig, call)
		if err != nil {
			panic(r.throwable(err))
		}
		return v
	}).(*goja.Object)
	shown := name
	if sym != nil {
		shown = "[" + strings.Trim(name, "[]") + "]"
	}
	if err := fn.DefineDataProperty("name", vm.ToValue(shown), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if err := fn.DefineDataProperty("length", vm.ToValue(length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
		return err
	}
	if sym != nil {
		return on.DefineDataPropertySymbol(sym, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return on.DefineDataProperty(name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

func prototypeOf(vm *goja.Runtime, ctor string) (*goja.Object, bool) {
	c, ok := vm.Get(ctor).(*goja.Object)
	if !ok {
		return nil, false
	}
	p, ok := c.Get("prototype").(*goja.Object)
	return p, ok
}

// toStr converts v to a string as the language does (a number's
// ToString is the number itself, in goja).
func (r *run) toStr(v goja.Value) goja.String {
	if _, isSym := v.(*goja.Symbol); isSym {
		panic(r.vm.NewTypeError("Cannot convert a Symbol value to a string"))
	}
	s := v.ToString()
	if gs, ok := s.(goja.String); ok {
		return gs
	}
	return r.vm.ToValue(s.String()).(goja.String)
}

// thisString converts a string method's receiver, as the method does;
// ok is false for null and undefined, which the original rejects.
func thisString(this goja.Value) (goja.String, bool) {
	if this == nil || goja.IsUndefined(this) || goja.IsNull(this) {
		return nil, false
	}
	s := this.ToString()
	if gs, ok := s.(goja.String); ok {
		return gs, true
	}
	return nil, false
}

func (r *run) guardRepeat(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	count := call.Argument(0).ToNumber()
	if n := count.ToFloat(); n > 0 && !math.IsInf(n, 0) {
		r.checkSize("String.prototype."+name, float64(s.Length())*math.Trunc(n), charBytes)
	}
	return orig(s, count)
}

func (r *run) guardPad(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	maxLength := call.Argument(0).ToNumber()
	fill := call.Argument(1)
	if !goja.IsUndefined(fill) {
		fill = r.toStr(fill)
	}
	// An empty filler leaves the string as it is.
	if goja.IsUndefined(fill) || fill.(goja.String).Length() > 0 {
		r.checkSize("String.prototype."+name, maxLength.ToFloat(), charBytes)
	}
	return orig(s, maxLength, fill)
}

func (r *run) guardStringConcat(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	args := make([]goja.Value, len(call.Arguments))
	size := float64(s.Length())
	for i, a := range call.Arguments {
		as := r.toStr(a)
		args[i] = as
		size += float64(as.Length())
	}
	r.checkSize("String.prototype."+name, size, charBytes)
	return orig(s, args...)
}

// guardReplace bounds what replace and replaceAll build: a replacement
// function's strings are counted as it returns them; a replacement
// string's expansion is bounded from above, and, when that bound is past
// the limit, the matches are counted first.
func (r *run) guardReplace(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	what := "String.prototype." + name
	pattern, repl := call.Argument(0), call.Argument(1)
	length := float64(s.Length())
	if fn, isFn := goja.AssertFunction(repl); isFn {
		total := length
		counted := r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
			v, err := fn(c.This, c.Arguments...)
			if err != nil {
				panic(r.throwable(err))
			}
			out := r.toStr(v)
			total += float64(out.Length())
			r.checkSize(what, total, charBytes)
			return out
		})
		return orig(s, pattern, counted)
	}
	rs := r.toStr(repl)
	perMatch := float64(rs.Length())
	if dollars := strings.Count(rs.String(), "$"); dollars > 0 {
		// $&, $` and $' may each bring the whole string.
		perMatch += float64(dollars) * length
	}
	if length+(length+1)*perMatch <= float64(r.maxBuiltin) {
		return orig(s, pattern, rs)
	}
	matches := 0.0
	counter := r.vm.ToValue(func(goja.FunctionCall) goja.Value {
		matches++
		r.checkSize(what, length+matches*perMatch, charBytes)
		return goja.Undefined()
	})
	if _, err := orig(s, pattern, counter); err != nil {
		return nil, err
	}
	return orig(s, pattern, rs)
}

func (r *run) guardSplit(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	sep, limit := call.Argument(0), call.Argument(1)
	parts := float64(s.Length()) + 1
	if sepStr, isStr := sep.(goja.String); isStr && sepStr.Length() > 0 {
		parts = float64(s.Length()/sepStr.Length()) + 1
	}
	if !goja.IsUndefined(limit) {
		if l := float64(uint32(limit.ToInteger())); l < parts {
			parts = l
		}
	}
	r.checkSize("String.prototype."+name, parts, stringBytes)
	return orig(s, sep, limit)
}

// arrayLength is the length of an array-like, as the array methods read
// it; ok is false for a receiver they reject (null, undefined).
func (r *run) arrayLength(v goja.Value) (obj *goja.Object, n float64, ok bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, 0, false
	}
	obj = v.ToObject(r.vm)
	n = obj.Get("length").ToNumber().ToFloat()
	if math.IsNaN(n) || n < 0 {
		n = 0
	}
	return obj, math.Trunc(n), true
}

// guardLength bounds the length of the array a method loops over: past
// the bound, a sparse array of a billion holes would hold the loop.
func (r *run) guardLength(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	r.checkSize("Array.prototype."+name, n, elementBytes)
	return orig(obj, call.Arguments...)
}

// guardJoin joins itself: it converts every element to a string, counts
// their length and the separators', and builds the result only when it
// is within the bound.
func (r *run) guardJoin(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	what := "Array.prototype." + name
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	r.checkSize(what, n, elementBytes)
	sep := goja.String(nil)
	if s := call.Argument(0); goja.IsUndefined(s) {
		sep = r.vm.ToValue(",").(goja.String)
	} else {
		sep = r.toStr(s)
	}
	r.enterNative(what)
	defer r.leaveNative()
	total := 0.0
	if n > 1 {
		total = (n - 1) * float64(sep.Length())
	}
	r.checkSize(what, total, charBytes)
	parts := make([]goja.String, int(n))
	for i := range parts {
		r.checkHalt()
		v := obj.Get(strconv.Itoa(i))
		if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
			continue
		}
		parts[i] = r.toStr(v)
		total += float64(parts[i].Length())
		r.checkSize(what, total, charBytes)
	}
	var b goja.StringBuilder
	b.Grow(int(total))
	for i, p := range parts {
		if i > 0 {
			b.WriteString(sep)
		}
		if p != nil {
			b.WriteString(p)
		}
	}
	return b.String(), nil
}

func (r *run) guardFill(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	r.checkSize("Array.prototype."+name, n, elementBytes)
	return orig(obj, call.Arguments...)
}

func (r *run) guardArrayConcat(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	for _, a := range call.Arguments {
		if o, isObj := a.(*goja.Object); isObj {
			if l := o.Get("length"); l != nil && !goja.IsUndefined(l) {
				if m := l.ToNumber().ToFloat(); m > 0 {
					n += math.Trunc(m)
				}
			}
		}
		n++
	}
	r.checkSize("Array.prototype."+name, n, elementBytes)
	return orig(obj, call.Arguments...)
}

// guardFlat walks, before flat does, the arrays it would descend into, as
// deep as it would: goja's flat recurses natively, once per level.
func (r *run) guardFlat(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	what := "Array.prototype." + name
	r.checkSize(what, n, elementBytes)
	depth := 1.0
	if d := call.Argument(0); !goja.IsUndefined(d) {
		depth = d.ToNumber().ToFloat()
	}
	if depth > 1 {
		total := 0.0
		var walk func(o *goja.Object, level int)
		walk = func(o *goja.Object, level int) {
			if float64(level) >= depth {
				return
			}
			if level > r.stack {
				panic(r.throwLimit("RangeError", fmt.Sprintf("%s: arrays nested deeper than %d", what, r.stack),
					toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))))
			}
			_, l, _ := r.arrayLength(o)
			total += l
			r.checkSize(what, total, elementBytes)
			for i := 0; i < int(l); i++ {
				r.checkHalt()
				if e, isObj := o.Get(strconv.Itoa(i)).(*goja.Object); isObj && e.ClassName() == "Array" {
					walk(e, level+1)
				}
			}
		}
		walk(obj, 0)
	}
	return orig(obj, call.Arguments...)
}

func (r *run) guardFrom(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	// An array-like: an object with a length, or a string. Iterables
	// without a length are left alone: what they yield comes from the
	// program's own code, which the wall time stops.
	switch items := call.Argument(0).(type) {
	case *goja.Object:
		if l := items.Get("length"); l != nil && !goja.IsUndefined(l) {
			if n := l.ToNumber().ToFloat(); n > 0 {
				r.checkSize("Array."+name, math.Trunc(n), elementBytes)
			}
		}
	case goja.String:
		r.checkSize("Array."+name, float64(items.Length()), stringBytes)
	}
	return orig(call.This, call.Arguments...)
}

// guardApply bounds the array-like of arguments of apply, Reflect.apply
// and Reflect.construct (the argument at index at): goja copies it into a
// list of its length before the call.
func (r *run) guardApply(at int) func(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	return func(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
		if o, ok := call.Argument(at).(*goja.Object); ok {
			if l := o.Get("length"); l != nil && !goja.IsUndefined(l) {
				r.checkSize(name, l.ToNumber().ToFloat(), elementBytes)
			}
		}
		return orig(call.This, call.Arguments...)
	}
}

// guardKeys bounds the list of keys (or values) of a string, an array or
// a typed array: one new string per element.
func (r *run) guardKeys(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	switch v := call.Argument(0).(type) {
	case goja.String:
		r.checkSize(name, float64(v.Length()), stringBytes)
	case *goja.Object:
		if v.ClassName() == "Array" || r.isView(v) {
			_, n, _ := r.arrayLength(v)
			r.checkSize(name, n, stringBytes)
		}
	}
	return orig(call.This, call.Arguments...)
}

// isView reports a typed array or a DataView, by the runtime's own
// ArrayBuffer.isView.
func (r *run) isView(v goja.Value) bool {
	if r.viewCheck == nil {
		return false
	}
	out, err := r.viewCheck(goja.Undefined(), v)
	return err == nil && out.ToBoolean()
}

// guardConstructor puts in place of the constructor name (a typed array's
// or ArrayBuffer) one that bounds the elements the new object would
// allocate, and then calls it.
func (r *run) guardConstructor(name string) error {
	target, ok := r.vm.Get(name).(*goja.Object)
	if !ok {
		return fmt.Errorf("no built-in %s", name)
	}
	bytesPer := 1.0
	if b := target.Get("BYTES_PER_ELEMENT"); b != nil && !goja.IsUndefined(b) {
		bytesPer = b.ToNumber().ToFloat()
	}
	what := "new " + name
	return r.wrapConstructor(name, target, func(args []goja.Value) func(*goja.Object) {
		if len(args) > 0 {
			n := 0.0
			switch a := args[0].(type) {
			case *goja.Object:
				// An array-like or an iterable: its length. A buffer to
				// view is there already.
				if l := a.Get("length"); l != nil && !goja.IsUndefined(l) {
					n = l.ToNumber().ToFloat()
				}
			default:
				n = a.ToNumber().ToFloat()
			}
			r.checkSize(what, n, bytesPer)
		}
		return nil
	})
}

// guardProxy bounds how deep proxies of proxies may nest: goja forwards
// an operation through each level natively, one Go frame per level.
func (r *run) guardProxy() error {
	target, ok := r.vm.Get("Proxy").(*goja.Object)
	if !ok {
		return fmt.Errorf("no built-in Proxy")
	}
	depths := map[*goja.Object]int{}
	check := func(args []goja.Value) func(*goja.Object) {
		depth := 1
		for _, a := range args {
			if o, isObj := a.(*goja.Object); isObj {
				depth = max(depth, depths[o]+1)
			}
		}
		if depth > r.stack {
			panic(r.throwLimit("RangeError", fmt.Sprintf("new Proxy: proxies nested deeper than %d", r.stack),
				toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))))
		}
		return func(made *goja.Object) { depths[made] = depth }
	}
	if err := r.wrapConstructor("Proxy", target, check); err != nil {
		return err
	}
	// Proxy.revocable makes proxies too: {proxy, revoke}.
	proxy, _ := r.vm.Get("Proxy").(*goja.Object)
	orig, ok := goja.AssertFunction(target.Get("revocable"))
	if !ok {
		return fmt.Errorf("no built-in Proxy.revocable")
	}
	return r.replace(proxy, "revocable", nil, 2, orig, func(_ string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
		record := check(call.Arguments)
		v, err := orig(call.This, call.Arguments...)
		if err == nil {
			if o, ok := v.(*goja.Object); ok {
				if p, ok := o.Get("proxy").(*goja.Object); ok {
					record(p)
				}
			}
		}
		return v, err
	})
}

// wrapConstructor puts in place of the global constructor name a
// function of JavaScript that, called with new, calls check with the
// arguments, then target with the same new.target, and gives check's
// returned function (if any) the new object; called without new, it
// throws a TypeError, as target does. The wrapper has target's prototype,
// static members, name and length, and target's prototype names it as
// its constructor, so that instanceof, subclasses and species work as
// with target. (A Proxy of target would be simpler, but goja rejects a
// proxy on the right of instanceof; a native constructor of goja cannot
// tell a call from a new.)
func (r *run) wrapConstructor(name string, target *goja.Object, check func(args []goja.Value) func(*goja.Object)) error {
	vm := r.vm
	construct, ok := goja.AssertConstructor(target)
	if !ok {
		return fmt.Errorf("%s is no constructor", name)
	}
	build := func(call goja.FunctionCall) goja.Value {
		newTarget, _ := call.Argument(0).(*goja.Object)
		args := call.Arguments[min(1, len(call.Arguments)):]
		done := check(args)
		if newTarget == nil {
			newTarget = target
		}
		obj, err := construct(newTarget, args...)
		if err != nil {
			panic(r.throwable(err))
		}
		if done != nil {
			done(obj)
		}
		return obj
	}
	factory, err := vm.RunProgram(wrapperProgram)
	if err != nil {
		return err
	}
	fn, ok := goja.AssertFunction(factory)
	if !ok {
		return fmt.Errorf("wrap %s", name)
	}
	wrapper, err := fn(goja.Undefined(), vm.ToValue(name), vm.ToValue(build), target)
	if err != nil {
		return fmt.Errorf("wrap %s: %w", name, err)
	}
	return vm.GlobalObject().DefineDataProperty(name, wrapper, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// wrapperProgram makes the wrapper of a constructor (see
// [run.wrapConstructor]): it gives it the own properties of the
// constructor it stands for (prototype, name and length included), its
// [[Prototype]], and names it as the constructor of the prototype.
var wrapperProgram = goja.MustCompile("wrapper.js", `(function (name, build, target) {
	const wrapper = function (...args) {
		if (new.target === undefined) {
			throw new TypeError("Constructor " + name + " requires 'new'");
		}
		return build(new.target, ...args);
	};
	for (const key of Object.getOwnPropertyNames(target).concat(Object.getOwnPropertySymbols(target))) {
		Object.defineProperty(wrapper, key, Object.getOwnPropertyDescriptor(target, key));
	}
	Object.setPrototypeOf(wrapper, Object.getPrototypeOf(target));
	if (target.prototype) {
		Object.defineProperty(target.prototype, "constructor", {value: wrapper, writable: true, configurable: true, enumerable: false});
	}
	return wrapper;
})`, false)

// guardRegexp calls a method of RegExp.prototype that runs the
// expression, and throws if it ran as long as a match may: the match was
// then cut short (see [RegexpMatchTimeout]) and its result is wrong.
func (r *run) guardRegexp(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	begin := time.Now()
	v, err := orig(call.This, call.Arguments...)
	if err == nil && time.Since(begin) >= RegexpMatchTimeout {
		r.checkHalt()
		limit := toolcode.LimitError(toolcode.LimitMatchTime, RegexpMatchTimeout)
		msg := fmt.Sprintf("RegExp.prototype.%s: the regular expression ran longer than %v", name, RegexpMatchTimeout)
		limit.Err = errors.New(msg)
		panic(r.throwLimit("RangeError", msg, limit))
	}
	return v, err
}

// guardStringify stringifies with a replacer of the engine's, called by
// goja for every value, which bounds the nesting and the size of the
// text, and stops a call that outlived the execution; it calls the
// program's own replacer, a function, first, and keeps only the listed
// properties when that is an array.
func (r *run) guardStringify(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	what := "JSON." + name
	value, replacer, space := call.Argument(0), call.Argument(1), call.Argument(2)
	userFn, _ := goja.AssertFunction(replacer)
	var allowed map[string]bool
	if obj, ok := replacer.(*goja.Object); ok && userFn == nil && obj.ClassName() == "Array" {
		allowed = map[string]bool{}
		_, n, _ := r.arrayLength(obj)
		r.checkSize(what, n, elementBytes)
		for i := 0; i < int(n); i++ {
			switch v := obj.Get(strconv.Itoa(i)); {
			case goja.IsString(v), goja.IsNumber(v):
				allowed[v.String()] = true
			case isWrapper(v):
				allowed[v.ToString().String()] = true
			}
		}
	}
	indent := 0.0
	if goja.IsNumber(space) {
		indent = min(10, max(0, space.ToFloat()))
	} else if s, ok := space.(goja.String); ok {
		indent = float64(min(10, s.Length()))
	}
	r.enterNative(what)
	defer r.leaveNative()
	depths := map[*goja.Object]int{}
	total := 0.0
	hook := r.vm.ToValue(func(c goja.FunctionCall) goja.Value {
		r.checkHalt()
		holder, _ := c.This.(*goja.Object)
		key, v := c.Argument(0), c.Argument(1)
		depth := depths[holder]
		if allowed != nil && depth > 0 && holder != nil && holder.ClassName() != "Array" && !allowed[key.String()] {
			return goja.Undefined()
		}
		if userFn != nil {
			out, err := userFn(c.This, key, v)
			if err != nil {
				panic(r.throwable(err))
			}
			v = out
		}
		total += float64(len(key.String())) + 4 + indent*float64(depth)
		switch x := v.(type) {
		case *goja.Object:
			if depth+1 > r.stack {
				panic(r.throwLimit("RangeError", fmt.Sprintf("%s: values nested deeper than %d", what, r.stack),
					toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))))
			}
			depths[x] = depth + 1
		case goja.String:
			total += float64(x.Length())
		}
		r.checkBytes(what, total*charBytes)
		return v
	})
	return orig(call.This, value, hook, space)
}

// isWrapper reports a String or Number object, which a replacer list
// takes as its string.
func isWrapper(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	return ok && (o.ClassName() == "String" || o.ClassName() == "Number")
}

// guardParse bounds how deep the JSON text nests before goja parses it,
// recursively, one Go frame per level.
func (r *run) guardParse(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	text := call.Argument(0).ToString()
	if d := textDepth(text.String()); d > r.stack {
		panic(r.throwLimit("RangeError", fmt.Sprintf("JSON.%s: the text nests deeper than %d", name, r.stack),
			toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))))
	}
	args := append([]goja.Value{text}, call.Arguments[min(1, len(call.Arguments)):]...)
	return orig(call.This, args...)
}

// textDepth is how deep JSON text nests: its most brackets open at once,
// outside strings.
func textDepth(s string) int {
	depth, deepest, inString, escaped := 0, 0, false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '[' || c == '{':
			depth++
			deepest = max(deepest, depth)
		case c == ']' || c == '}':
			depth--
		}
	}
	return deepest
}

// enterNative counts a guard that calls back into the program and may be
// called again from there (join through an element's toString), so that
// native recursion is bounded as the program's own is.
func (r *run) enterNative(what string) {
	r.nativeDepth++
	if r.nativeDepth > r.stack {
		r.nativeDepth--
		panic(r.throwLimit("RangeError", fmt.Sprintf("%s: nested deeper than %d", what, r.stack),
			toolcode.LimitError(toolcode.LimitStack, fmt.Sprintf("call depth %d", r.stack))))
	}
}

func (r *run) leaveNative() { r.nativeDepth-- }

// checkHalt throws in a guard's loop once the execution is over (its
// deadline, its memory): the runtime's interrupt follows at the next
// instruction, and this ends the loop first.
func (r *run) checkHalt() {
	if r.halted.Load() == nil && (r.ctx == nil || r.ctx.Err() == nil) {
		return
	}
	panic(r.vm.NewGoError(errors.Errorf(errors.Canceled, "the execution is over")))
}

// checkSize throws, in the program, the RangeError of a built-in call
// that would build more than the bound, in elements or characters, or
// more bytes than the memory limit, at bytesPer bytes a unit.
func (r *run) checkSize(what string, size, bytesPer float64) {
	if math.IsNaN(size) {
		return
	}
	if size > float64(r.maxBuiltin) {
		msg := fmt.Sprintf("%s: the result would have %.0f elements or characters, more than the %d allowed", what, size, r.maxBuiltin)
		if math.IsInf(size, 1) {
			msg = fmt.Sprintf("%s: the result would be infinite, more than the %d elements or characters allowed", what, r.maxBuiltin)
		}
		limit := toolcode.LimitError(toolcode.LimitAllocation, r.maxBuiltin)
		limit.Err = errors.New(msg)
		panic(r.throwLimit("RangeError", msg, limit))
	}
	r.checkBytes(what, size*bytesPer)
}

// checkBytes throws, in the program, the RangeError of a built-in call
// that would take more bytes than the memory limit.
func (r *run) checkBytes(what string, bytes float64) {
	if r.memLimit <= 0 || bytes <= float64(r.memLimit) || math.IsNaN(bytes) {
		return
	}
	msg := fmt.Sprintf("%s: the result would take about %.0f bytes, more than the %d allowed", what, bytes, r.memLimit)
	limit := toolcode.LimitError(toolcode.LimitMemory, r.memLimit)
	limit.Err = errors.New(msg)
	panic(r.throwLimit("RangeError", msg, limit))
}

// throwLimit is what a guard panics with to throw an error of the
// runtime's constructor ctor for a limit reached.
func (r *run) throwLimit(ctor, msg string, err error) any {
	return r.throwError(ctor, msg, err)
}
