package toolcode

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"
)

// The trace records every call's arguments and the size of its result as
// JSON. Those values are almost always what encoding/json decodes into
// (maps, slices, strings, float64, bool, nil); appendJSON writes them
// directly, with exactly encoding/json's output, and leaves any other
// value to encoding/json.

// maxEncodeDepth is the nesting past which a value goes to encoding/json,
// whose cycle detection then reports a value that contains itself.
const maxEncodeDepth = 256

// marshalJSON is json.Marshal(v), faster for JSON-shaped values: the text
// is written in a scratch buffer and copied out at its size, one
// allocation in all.
func marshalJSON(v any) ([]byte, error) {
	var out []byte
	if scratchJSON(v, func(b []byte) { out = bytes.Clone(b) }) {
		return out, nil
	}
	return json.Marshal(v)
}

// jsonSize returns len(json.Marshal(v)), allocating nothing for
// JSON-shaped values.
func jsonSize(v any) (int, error) {
	n := 0
	if scratchJSON(v, func(b []byte) { n = len(b) }) {
		return n, nil
	}
	out, err := json.Marshal(v)
	return len(out), err
}

// scratchBuffers holds the buffers of scratchJSON.
var scratchBuffers = sync.Pool{New: func() any { return new([]byte) }}

// maxPooledBuffer is the largest scratch buffer put back in the pool: a
// huge value does not keep its buffer alive.
const maxPooledBuffer = 64 << 10

// scratchJSON writes v's JSON with appendJSON in a pooled buffer and
// hands it to use, which must not keep it; it reports false, and does not
// call use, when appendJSON does not handle v.
func scratchJSON(v any, use func([]byte)) bool {
	buf := scratchBuffers.Get().(*[]byte)
	b, ok := appendJSON((*buf)[:0], v, 0)
	if ok {
		use(b)
	}
	if cap(b) <= maxPooledBuffer {
		*buf = b[:0]
		scratchBuffers.Put(buf)
	}
	return ok
}

// appendJSON appends the encoding/json text of v to dst; ok is false when
// v holds a value it does not handle, and dst's contents are then
// unspecified.
func appendJSON(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > maxEncodeDepth {
		return dst, false
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "null"...), true
	case bool:
		return strconv.AppendBool(dst, x), true
	case string:
		return appendString(dst, x)
	case float64:
		return appendFloat(dst, x)
	case map[string]any:
		if x == nil {
			return append(dst, "null"...), true
		}
		var small [16]string
		keys := small[:0]
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		dst = append(dst, '{')
		for i, k := range keys {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendString(dst, k); !ok {
				return dst, false
			}
			dst = append(dst, ':')
			if dst, ok = appendJSON(dst, x[k], depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, '}'), true
	case []any:
		if x == nil {
			return append(dst, "null"...), true
		}
		dst = append(dst, '[')
		for i, e := range x {
			if i > 0 {
				dst = append(dst, ',')
			}
			var ok bool
			if dst, ok = appendJSON(dst, e, depth+1); !ok {
				return dst, false
			}
		}
		return append(dst, ']'), true
	}
	return dst, false
}

// appendString writes a string that needs no escape but '"' and '\\';
// encoding/json handles the others (control characters, the HTML
// characters it escapes, U+2028 and U+2029, invalid UTF-8).
func appendString(dst []byte, s string) ([]byte, bool) {
	dst = append(dst, '"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			dst = append(dst, '\\', c)
		case c < 0x20 || c == '<' || c == '>' || c == '&':
			return dst, false
		case c >= utf8.RuneSelf:
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 || r == '\u2028' || r == '\u2029' {
				return dst, false
			}
			dst = append(dst, s[i:i+size]...)
			i += size - 1
		default:
			dst = append(dst, c)
		}
	}
	return append(dst, '"'), true
}

// maxExactInteger is the largest whole number up to which every whole
// number is a float64: 2^53.
const maxExactInteger = 1 << 53

// appendFloat writes a float64 as encoding/json does: like ES6's
// Number.prototype.toString, in 'f' form unless the exponent is small or
// large, with the exponent's leading zero dropped.
func appendFloat(dst []byte, f float64) ([]byte, bool) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return dst, false
	}
	if f == math.Trunc(f) && math.Abs(f) <= maxExactInteger && (f != 0 || !math.Signbit(f)) {
		// A whole number, the commonest in tools' arguments and results:
		// its 'f' form is its digits, which AppendInt writes several
		// times faster than the shortest-form search of AppendFloat.
		return strconv.AppendInt(dst, int64(f), 10), true
	}
	format := byte('f')
	if abs := math.Abs(f); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		if n := len(dst); n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
			dst[n-2] = dst[n-1]
			dst = dst[:n-1]
		}
	}
	return dst, true
}
