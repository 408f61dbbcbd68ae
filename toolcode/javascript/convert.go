package javascript

import (
	"encoding/json"
	"math"
	"reflect"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// The bridge between the program's values and Go's has the semantics of
// JSON: a value crossing it arrives as if it had been written by
// JSON.stringify and read by encoding/json (arguments), or written by
// encoding/json and read by JSON.parse (results). Plain data — objects,
// arrays, strings, finite numbers, booleans, null — crosses directly,
// without text in between; anything else (a Date, a toJSON method, a
// proxy, a cycle, a non-finite number, a Go type other than JSON's) takes
// the JSON text path itself, so the outcome is the same.

// maxDirectDepth is the nesting past which a value takes the text path: a
// cycle in a tool's Go result must end in encoding/json's error, not in a
// stack overflow.
const maxDirectDepth = 256

// maxDirectArray is the length past which an array takes the text path.
const maxDirectArray = 1 << 20

var (
	typeMap   = reflect.TypeFor[map[string]any]()
	typeSlice = reflect.TypeFor[[]any]()
)

// toGo converts a program's value to the Go value encoding/json would
// decode from its JSON.stringify; it throws the program's TypeError for a
// value JSON.stringify rejects. undefined (or a function, a symbol)
// becomes nil.
func (r *run) toGo(v goja.Value) any {
	if out, ok := r.directGo(v, 0); ok {
		return out
	}
	out, _ := r.textGo(v)
	return out
}

// toArg converts an argument of a call of the tools as toolcode.Call
// says: as toGo does, but for undefined (toolcode.Undefined), a number
// (a float64, NaN and infinities included), and a function, a symbol or a
// BigInt (a toolcode.Opaque).
func (r *run) toArg(v goja.Value) any {
	if v == nil || goja.IsUndefined(v) {
		return toolcode.Undefined{}
	}
	if obj, ok := v.(*goja.Object); ok {
		if out, ok := r.directGo(obj, 0); ok {
			return out // plain data: the hot path
		}
		if _, fn := goja.AssertFunction(obj); fn {
			return toolcode.Opaque("function")
		}
		if out, ok := r.textGo(obj); ok {
			return out
		}
		return toolcode.Undefined{} // its toJSON returned nothing
	}
	switch {
	case goja.IsNull(v):
		return nil
	case goja.IsString(v):
		return v.String()
	case goja.IsNumber(v):
		if f := v.ToFloat(); f != 0 {
			return f
		}
		return 0.0 // -0 is 0, as String writes it
	case goja.IsBigInt(v):
		return toolcode.Opaque("bigint")
	}
	if _, ok := v.(*goja.Symbol); ok {
		return toolcode.Opaque("symbol")
	}
	return v.ToBoolean()
}

// textGo converts v through its JSON text; ok is false when
// JSON.stringify returns undefined. It throws the program's TypeError for
// a value JSON.stringify rejects.
func (r *run) textGo(v goja.Value) (out any, ok bool) {
	s, ok, err := r.stringify(v)
	if err != nil {
		panic(r.throwable(err))
	}
	if !ok {
		return nil, false
	}
	if err := json.Unmarshal([]byte(s), &out); err != nil {
		panic(r.vm.NewTypeError("the value is not JSON: %v", err))
	}
	return out, true
}

// directGo converts plain data; ok is false for anything else, which
// then takes the text path. It calls no JavaScript, so it has no effect a
// program can see.
func (r *run) directGo(v goja.Value, depth int) (any, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return nil, true
	}
	if depth > maxDirectDepth {
		return nil, false
	}
	obj, isObj := v.(*goja.Object)
	if !isObj {
		if goja.IsString(v) {
			return v.String(), true
		}
		switch x := v.Export().(type) {
		case bool:
			return x, true
		case int64:
			return float64(x), true
		case float64:
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, true // JSON.stringify writes null
			}
			if x == 0 {
				return 0.0, true // -0 is written 0
			}
			return x, true
		}
		return nil, false // a symbol, a BigInt
	}
	switch obj.ClassName() {
	case "Object":
		if obj.ExportType() != typeMap || hasToJSON(obj) {
			return nil, false
		}
		keys := obj.Keys()
		out := make(map[string]any, len(keys))
		for _, k := range keys {
			p := obj.Get(k)
			if skipped(p) {
				continue
			}
			val, ok := r.directGo(p, depth+1)
			if !ok {
				return nil, false
			}
			out[k] = val
		}
		return out, true
	case "Array":
		if obj.ExportType() != typeSlice || hasToJSON(obj) {
			return nil, false
		}
		n := obj.Get("length").ToInteger()
		if n < 0 || n > maxDirectArray {
			return nil, false
		}
		out := make([]any, n)
		for i := range n {
			p := obj.Get(strconv.FormatInt(i, 10))
			if skipped(p) {
				continue // JSON.stringify writes null
			}
			val, ok := r.directGo(p, depth+1)
			if !ok {
				return nil, false
			}
			out[i] = val
		}
		return out, true
	}
	return nil, false
}

// skipped reports a member JSON.stringify leaves out of an object (and
// writes null for in an array): undefined, a function, a symbol.
func skipped(v goja.Value) bool {
	if v == nil || goja.IsUndefined(v) {
		return true
	}
	if obj, ok := v.(*goja.Object); ok {
		_, fn := goja.AssertFunction(obj)
		return fn
	}
	return v.ExportType() == reflect.TypeFor[*goja.Symbol]()
}

// hasToJSON reports an object with a toJSON member, own or inherited:
// JSON.stringify would call it.
func hasToJSON(obj *goja.Object) bool {
	v := obj.Get("toJSON")
	return v != nil && !goja.IsUndefined(v)
}

// toJS converts a Go value to what JSON.parse would make of its
// encoding/json text.
func (r *run) toJS(v any) (goja.Value, error) {
	if out, ok := r.directJS(v, 0); ok {
		return out, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return r.parseJSON(string(b))
}

// directJS converts the values encoding/json decodes into (maps, slices,
// strings, finite numbers, booleans, nil); ok is false for anything else.
func (r *run) directJS(v any, depth int) (goja.Value, bool) {
	if depth > maxDirectDepth {
		return nil, false
	}
	switch x := v.(type) {
	case nil:
		return goja.Null(), true
	case bool:
		return r.vm.ToValue(x), true
	case string:
		if !utf8.ValidString(x) {
			return nil, false
		}
		return r.vm.ToValue(x), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) || x == 0 && math.Signbit(x) {
			return nil, false
		}
		return r.vm.ToValue(x), true
	case map[string]any:
		if x == nil {
			return goja.Null(), true
		}
		var small [8]string
		keys := small[:0]
		for k := range x {
			if !utf8.ValidString(k) {
				return nil, false
			}
			keys = append(keys, k)
		}
		// encoding/json writes the keys sorted, and JSON.parse defines
		// them in the order it reads them.
		slices.Sort(keys)
		obj := r.vm.NewObject()
		for _, k := range keys {
			val, ok := r.directJS(x[k], depth+1)
			if !ok {
				return nil, false
			}
			// Defined, not assigned: a key "__proto__" is a property, as
			// JSON.parse makes it, not the object's prototype.
			if err := obj.DefineDataProperty(k, val, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_TRUE); err != nil {
				return nil, false
			}
		}
		return obj, true
	case []any:
		if x == nil {
			return goja.Null(), true
		}
		items := make([]any, len(x))
		for i, e := range x {
			val, ok := r.directJS(e, depth+1)
			if !ok {
				return nil, false
			}
			items[i] = val
		}
		return r.vm.NewArray(items...), true
	}
	return nil, false
}

// jsonFunc returns JSON.stringify or JSON.parse, looked up on first use:
// the runtime builds its JSON object only when a program needs it. A
// program that replaced them gets its own functions, as it would in its
// own code; the engine checks what comes back ([run.output]).
func (r *run) jsonFunc(name string) (goja.Callable, error) {
	if fn, ok := r.jsonFns[name]; ok {
		return fn, nil
	}
	var fn goja.Callable
	ok := false
	if obj, isObj := r.vm.Get("JSON").(*goja.Object); isObj {
		fn, ok = goja.AssertFunction(obj.Get(name))
	}
	if !ok {
		return nil, errors.Errorf(errors.Execution, "JSON.%s is not a function", name)
	}
	if r.jsonFns == nil {
		r.jsonFns = map[string]goja.Callable{}
	}
	r.jsonFns[name] = fn
	return fn, nil
}

// stringify is JSON.stringify(v); ok is false when it returns undefined.
// The error is the exception it threw (or the runtime's interrupt).
func (r *run) stringify(v goja.Value) (s string, ok bool, err error) {
	fn, err := r.jsonFunc("stringify")
	if err != nil {
		return "", false, err
	}
	out, err := fn(goja.Undefined(), v)
	if err != nil {
		return "", false, err
	}
	if out == nil || goja.IsUndefined(out) {
		return "", false, nil
	}
	return out.String(), true, nil
}

// parseJSON is JSON.parse(s).
func (r *run) parseJSON(s string) (goja.Value, error) {
	fn, err := r.jsonFunc("parse")
	if err != nil {
		return nil, err
	}
	return fn(goja.Undefined(), r.vm.ToValue(s))
}

// throwable is what a native function panics with to throw err in the
// program: the runtime's own exceptions and interrupts as they are, a
// TypeError for anything else.
func (r *run) throwable(err error) any {
	var ex *goja.Exception
	var intr *goja.InterruptedError
	var so *goja.StackOverflowError
	switch {
	case errors.As(err, &ex):
		return ex
	case errors.As(err, &intr):
		return intr
	case errors.As(err, &so):
		return so
	}
	return r.vm.NewTypeError(err.Error())
}
