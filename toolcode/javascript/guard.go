package javascript

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/dop251/goja"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// DefaultMaxBuiltinSize is the default bound on what one call of a
// guarded built-in may build (see [WithMaxBuiltinSize]): 16 Mi characters
// of a string, or elements of an array.
const DefaultMaxBuiltinSize = 1 << 24

// WithMaxBuiltinSize bounds the size of the string or array one call of a
// built-in that goja cannot interrupt midway may build (default
// [DefaultMaxBuiltinSize]): String.prototype.repeat, padStart and padEnd
// (characters of the result), Array.prototype.join (the array's elements,
// and the characters its separators add), Array.prototype.fill (the
// array's elements) and Array.from (the elements of an array-like). A
// call past the bound throws a RangeError whose code is
// "resource_exhausted" before it allocates anything; uncaught, it fails
// the execution with code [errors.ResourceExhausted] and the limit
// [toolcode.LimitAllocation]. Such a call would otherwise run, out of the
// reach of the wall time, for as long as it takes to build gigabytes.
func WithMaxBuiltinSize(n int) Option {
	return func(e *Engine) {
		if n > 0 {
			e.maxBuiltin = n
		}
	}
}

// guardBuiltins puts, in place of the built-ins named in
// [WithMaxBuiltinSize], functions that measure what the call would build
// and throw when it is too large, or else call the original. A guard
// converts its receiver and arguments once, and gives the original the
// converted values, so that a program's toString or valueOf runs once, as
// without the guard.
//
// Only the built-ins whose names the program's source mentions are
// guarded (see [mentionedBuiltins]): guarding costs every execution the
// prototypes of String and Array, which goja otherwise builds only when a
// program uses them.
func (r *run) guardBuiltins(names []string) error {
	if len(names) == 0 {
		return nil
	}
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
	guards := []struct {
		on     *goja.Object
		name   string
		length int
		guard  func(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error)
	}{
		{str, "repeat", 1, r.guardRepeat},
		{str, "padStart", 2, r.guardPad},
		{str, "padEnd", 2, r.guardPad},
		{arr, "join", 1, r.guardJoin},
		{arr, "fill", 1, r.guardFill},
		{array, "from", 1, r.guardFrom},
	}
	for _, g := range guards {
		if !slices.Contains(names, g.name) {
			continue
		}
		orig, ok := goja.AssertFunction(g.on.Get(g.name))
		if !ok {
			return fmt.Errorf("no built-in %s", g.name)
		}
		guard, name := g.guard, g.name
		fn := vm.ToValue(func(call goja.FunctionCall) goja.Value {
			v, err := guard(name, orig, call)
			if err != nil {
				panic(r.throwable(err))
			}
			return v
		}).(*goja.Object)
		// Named and sized as the built-in it stands for.
		if err := fn.DefineDataProperty("name", vm.ToValue(g.name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if err := fn.DefineDataProperty("length", vm.ToValue(g.length), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
		if err := g.on.DefineDataProperty(g.name, fn, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE); err != nil {
			return err
		}
	}
	return nil
}

// guardedBuiltins are the names of the built-ins [run.guardBuiltins]
// guards.
var guardedBuiltins = []string{"repeat", "padStart", "padEnd", "join", "fill", "from"}

// mentionedBuiltins returns the names of guardedBuiltins that appear in a
// program's source. A program that reaches a built-in by a name it
// computes ("re" + "peat") escapes the guard: the guard is there for
// programs that build too much by mistake; goja has no memory bound that
// a determined program could not get around (see the package's Limits).
func mentionedBuiltins(code string) []string {
	var names []string
	for _, name := range guardedBuiltins {
		if strings.Contains(code, name) {
			names = append(names, name)
		}
	}
	return names
}

func prototypeOf(vm *goja.Runtime, ctor string) (*goja.Object, bool) {
	c, ok := vm.Get(ctor).(*goja.Object)
	if !ok {
		return nil, false
	}
	p, ok := c.Get("prototype").(*goja.Object)
	return p, ok
}

// thisString converts a string method's receiver, as the method does;
// ok is false for null and undefined, which the original rejects.
func thisString(this goja.Value) (goja.String, bool) {
	if this == nil || goja.IsUndefined(this) || goja.IsNull(this) {
		return nil, false
	}
	s, ok := this.ToString().(goja.String)
	return s, ok
}

func (r *run) guardRepeat(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	s, ok := thisString(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	count := call.Argument(0).ToNumber()
	if n := count.ToFloat(); n > 0 && !math.IsInf(n, 0) {
		r.checkSize("String.prototype."+name, float64(s.Length())*math.Trunc(n))
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
		fill = fill.ToString()
	}
	// An empty filler leaves the string as it is.
	if goja.IsUndefined(fill) || fill.(goja.String).Length() > 0 {
		r.checkSize("String.prototype."+name, maxLength.ToFloat())
	}
	return orig(s, maxLength, fill)
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

func (r *run) guardJoin(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	sep := call.Argument(0)
	sepLen := 1 // ","
	if !goja.IsUndefined(sep) {
		sep = sep.ToString()
		sepLen = sep.(goja.String).Length()
	}
	r.checkSize("Array.prototype."+name, max(n, (n-1)*float64(sepLen)))
	return orig(obj, sep)
}

func (r *run) guardFill(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	obj, n, ok := r.arrayLength(call.This)
	if !ok {
		return orig(call.This, call.Arguments...)
	}
	r.checkSize("Array.prototype."+name, n)
	return orig(obj, call.Arguments...)
}

func (r *run) guardFrom(name string, orig goja.Callable, call goja.FunctionCall) (goja.Value, error) {
	// An array-like: an object with a length. Strings and iterables
	// without a length are left alone: what they yield exists already,
	// or comes from the program's own code, which the wall time stops.
	if items, ok := call.Argument(0).(*goja.Object); ok {
		if l := items.Get("length"); l != nil && !goja.IsUndefined(l) {
			if n := l.ToNumber().ToFloat(); n > 0 {
				r.checkSize("Array."+name, math.Trunc(n))
			}
		}
	}
	return orig(call.This, call.Arguments...)
}

// checkSize throws, in the program, the RangeError of a built-in call
// that would build more than the bound.
func (r *run) checkSize(what string, size float64) {
	if size <= float64(r.maxBuiltin) || math.IsNaN(size) {
		return
	}
	msg := fmt.Sprintf("%s: the result would have %.0f elements or characters, more than the %d allowed", what, size, r.maxBuiltin)
	if math.IsInf(size, 1) {
		msg = fmt.Sprintf("%s: the result would be infinite, more than the %d elements or characters allowed", what, r.maxBuiltin)
	}
	limit := toolcode.LimitError(toolcode.LimitAllocation, r.maxBuiltin)
	limit.Err = errors.New(msg)
	panic(r.throwError("RangeError", msg, limit))
}
