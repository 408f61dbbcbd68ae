package javascript

import (
	"math"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/dop251/goja"

	"github.com/metatools-go/metatools/toolcode"
)

// How a value a program threw, or logged without JSON of its own, is
// shown (see toolcode.Engine): the QuickJS engine's prelude (mt$render,
// and its walker) follows the same rules with the same bounds, and the
// conformance suite compares both with what it expects, so a change here
// goes there too.
const (
	// cannotShow is the text of a value that could not be shown: a getter
	// or a proxy's trap threw, or the execution was stopped meanwhile.
	cannotShow = "(value that cannot be shown)"
	// maxShownDepth is the nesting past which an object is written
	// "[Object]" and an array "[Array]".
	maxShownDepth = 20
	// maxShownMembers bounds the members (array elements, object keys)
	// read, so that a huge object whose members show as nothing (all
	// undefined) is not read to its end.
	maxShownMembers = 10000
)

// shownValue is the text of v as the execution's error shows it, once
// the program is over. It never panics: a value whose getters throw, or
// that the interrupt stops, is cannotShow.
func (r *run) shownValue(v goja.Value) (s string) {
	defer func() {
		if recover() != nil {
			s = cannotShow
		}
	}()
	return r.shownLive(v)
}

// shownLive is the text of v while the program runs (console.log): a
// value whose getters throw is cannotShow, and the interrupt and the
// stack bound, which Try panics on with once it has unwound the runtime,
// go on to stop the program.
func (r *run) shownLive(v goja.Value) (s string) {
	if ex := r.vm.Try(func() { s = r.describe(v) }); ex != nil {
		return cannotShow
	}
	return s
}

// describe shows v by the rules of toolcode.Engine; it panics with the
// runtime's exceptions.
func (r *run) describe(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsString(v):
		return cutShown(jsString(v))
	}
	if sym, ok := v.(*goja.Symbol); ok {
		return cutShown("Symbol(" + sym.String() + ")")
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		return v.String() // null, a boolean, a number, a BigInt
	}
	if _, fn := goja.AssertFunction(obj); fn {
		return cutShown(functionText(obj))
	}
	if text, ok := r.errorText(obj); ok {
		return cutShown(text)
	}
	w := shownJSON{r: r}
	// As JSON.stringify, the value's toJSON first: a Date shows as its
	// ISO string.
	top := w.prepare(obj, "")
	if skippedValue(top) {
		return "undefined"
	}
	w.value(top, 0)
	return w.text()
}

// jsString is the text of a string, its first MaxShownLength+1 code
// units at most: a longer string is cut anyway.
func jsString(v goja.Value) string {
	if s, ok := v.(goja.String); ok && s.Length() > toolcode.MaxShownLength+1 {
		return s.Substring(0, toolcode.MaxShownLength+1).String()
	}
	return v.String()
}

// cutShown cuts text longer than MaxShownLength and marks the cut.
func cutShown(text string) string {
	if cut, short := cutText(text); !short {
		return cut + "…"
	}
	return text
}

// cutText returns the longest prefix of text that has MaxShownLength
// UTF-16 code units at most, without splitting a character, and whether
// that is text itself.
func cutText(text string) (string, bool) {
	if len(text) <= toolcode.MaxShownLength {
		return text, true // no more code units than bytes
	}
	units := 0
	for i, c := range text {
		n := utf16.RuneLen(c)
		if n < 0 {
			n = 1 // invalid UTF-8 decodes as U+FFFD, one unit
		}
		if units+n > toolcode.MaxShownLength {
			return text[:i], false
		}
		units += n
	}
	return text, true
}

// functionText shows a function: "[Function: name]", or "[Function
// (anonymous)]".
func functionText(fn *goja.Object) string {
	if name := fn.Get("name"); name != nil && goja.IsString(name) {
		if s := name.String(); s != "" {
			return "[Function: " + s + "]"
		}
	}
	return "[Function (anonymous)]"
}

// isArray is Array.isArray: an array, or a proxy of one.
func (r *run) isArray(obj *goja.Object) bool {
	for {
		if obj.ClassName() == "Array" {
			return true
		}
		p, ok := obj.Export().(goja.Proxy)
		if !ok {
			return false
		}
		if obj = p.Target(); obj == nil {
			panic(r.vm.NewTypeError("the proxy has been revoked"))
		}
	}
}

// isPlain reports an object whose prototype is Object.prototype or null,
// as an object literal or JSON.parse makes it.
func (r *run) isPlain(obj *goja.Object) bool {
	proto := obj.Prototype()
	return proto == nil || proto == r.objectPrototype()
}

// objectPrototype is the runtime's own Object.prototype, whatever the
// program did to the global Object.
func (r *run) objectPrototype() *goja.Object {
	if r.objectProto == nil {
		r.objectProto = r.vm.NewObject().Prototype()
	}
	return r.objectProto
}

// errorText shows an error: an object, not a plain one nor an array, whose
// message is a string, as "<name>: <message>" (or the one of them that is
// not empty); ok is false for anything else, or when both are empty.
func (r *run) errorText(obj *goja.Object) (text string, ok bool) {
	if r.isArray(obj) || r.isPlain(obj) {
		return "", false
	}
	msg := obj.Get("message")
	if msg == nil || !goja.IsString(msg) {
		return "", false
	}
	message := msg.String()
	name := ""
	if n := obj.Get("name"); n != nil && goja.IsString(n) {
		name = n.String()
	}
	switch {
	case name == "":
		text = message
	case message == "":
		text = name
	default:
		text = name + ": " + message
	}
	return text, text != ""
}

// shownJSON writes an object as JSON.stringify would, but for what it
// cannot write (a circular reference, a BigInt) and within bounds: it
// stops once the text is past MaxShownLength, after maxShownMembers
// members, and writes objects nested deeper than maxShownDepth as a
// marker.
type shownJSON struct {
	r       *run
	b       strings.Builder
	units   int // UTF-16 code units written
	members int
	full    bool // the text was cut
	stack   []*goja.Object
}

// text is what was written, cut.
func (w *shownJSON) text() string {
	s := w.b.String()
	if cut, short := cutText(s); !short || w.full {
		return cut + "…"
	}
	return s
}

// write appends s, of n code units.
func (w *shownJSON) write(s string, n int) {
	w.b.WriteString(s)
	w.units += n
	if w.units > toolcode.MaxShownLength {
		w.full = true
	}
}

// writeASCII appends s, which is ASCII.
func (w *shownJSON) writeASCII(s string) { w.write(s, len(s)) }

// member counts one member read, and reports whether there is room for
// it.
func (w *shownJSON) member() bool {
	w.members++
	if w.members > maxShownMembers {
		w.full = true
	}
	return !w.full
}

// prepare is what JSON.stringify writes for the member key of a value:
// the result of its toJSON method when it has one.
func (w *shownJSON) prepare(v goja.Value, key string) goja.Value {
	obj, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	fn, ok := goja.AssertFunction(obj.Get("toJSON"))
	if !ok {
		return v
	}
	out, err := fn(obj, w.r.vm.ToValue(key))
	if err != nil {
		panic(err)
	}
	return out
}

// skipped reports a value JSON leaves out of an object (and writes null
// for in an array).
func skippedValue(v goja.Value) bool {
	if v == nil || goja.IsUndefined(v) {
		return true
	}
	if _, ok := v.(*goja.Symbol); ok {
		return true
	}
	_, fn := goja.AssertFunction(v)
	return fn
}

// value writes a value that is not skipped.
func (w *shownJSON) value(v goja.Value, depth int) {
	if w.full {
		return
	}
	switch {
	case goja.IsNull(v):
		w.writeASCII("null")
		return
	case goja.IsString(v):
		w.quote(v)
		return
	case goja.IsNumber(v):
		if f := v.ToFloat(); math.IsNaN(f) || math.IsInf(f, 0) {
			w.writeASCII("null")
			return
		}
		w.writeASCII(v.String())
		return
	}
	obj, ok := v.(*goja.Object)
	if !ok {
		w.writeASCII(v.String()) // a boolean, a BigInt
		return
	}
	for _, seen := range w.stack {
		if seen == obj {
			w.writeASCII(`"[Circular]"`)
			return
		}
	}
	array := w.r.isArray(obj)
	if depth >= maxShownDepth {
		if array {
			w.writeASCII(`"[Array]"`)
		} else {
			w.writeASCII(`"[Object]"`)
		}
		return
	}
	w.stack = append(w.stack, obj)
	if array {
		w.array(obj, depth)
	} else {
		w.object(obj, depth)
	}
	w.stack = w.stack[:len(w.stack)-1]
}

func (w *shownJSON) array(obj *goja.Object, depth int) {
	w.writeASCII("[")
	n := obj.Get("length").ToFloat()
	if math.IsNaN(n) || n < 0 {
		n = 0
	}
	for i := 0.0; i < n && w.member(); i++ {
		if i > 0 {
			w.writeASCII(",")
		}
		key := strconv.FormatFloat(i, 'f', -1, 64)
		v := w.prepare(obj.Get(key), key)
		if skippedValue(v) {
			w.writeASCII("null")
		} else {
			w.value(v, depth+1)
		}
	}
	w.writeASCII("]")
}

func (w *shownJSON) object(obj *goja.Object, depth int) {
	w.writeASCII("{")
	first := true
	for _, key := range obj.Keys() {
		if !w.member() {
			break
		}
		v := w.prepare(obj.Get(key), key)
		if skippedValue(v) {
			continue
		}
		if !first {
			w.writeASCII(",")
		}
		first = false
		w.quote(w.r.vm.ToValue(key))
		w.writeASCII(":")
		w.value(v, depth+1)
	}
	w.writeASCII("}")
}

// quote writes a string as JSON.stringify does, lone surrogates escaped;
// a string longer than the room left is cut first, since what follows
// the cut is never shown.
func (w *shownJSON) quote(v goja.Value) {
	s, ok := v.(goja.String)
	if !ok {
		s, _ = v.ToString().(goja.String)
	}
	n := s.Length()
	if room := toolcode.MaxShownLength + 1 - w.units; n > room {
		n = max(room, 0)
	}
	w.writeASCII(`"`)
	var buf [utf8.UTFMax]byte
	for i := 0; i < n && !w.full; i++ {
		c := s.CharAt(i)
		switch {
		case c == '"':
			w.writeASCII(`\"`)
		case c == '\\':
			w.writeASCII(`\\`)
		case c == '\b':
			w.writeASCII(`\b`)
		case c == '\f':
			w.writeASCII(`\f`)
		case c == '\n':
			w.writeASCII(`\n`)
		case c == '\r':
			w.writeASCII(`\r`)
		case c == '\t':
			w.writeASCII(`\t`)
		case c < 0x20:
			w.writeASCII(`\u00` + hex2(c))
		case utf16.IsSurrogate(rune(c)):
			if c < 0xDC00 && i+1 < s.Length() {
				if d := s.CharAt(i + 1); d >= 0xDC00 && d <= 0xDFFF {
					r := utf16.DecodeRune(rune(c), rune(d))
					w.write(string(buf[:utf8.EncodeRune(buf[:], r)]), 2)
					i++
					continue
				}
			}
			w.writeASCII(`\u` + strconv.FormatUint(uint64(c), 16))
		default:
			w.write(string(buf[:utf8.EncodeRune(buf[:], rune(c))]), 1)
		}
	}
	w.writeASCII(`"`)
}

// hex2 writes a byte as two lower-case hexadecimal digits.
func hex2(c uint16) string {
	const digits = "0123456789abcdef"
	return string([]byte{digits[c>>4&0xF], digits[c&0xF]})
}
