package toolrun

import (
	"encoding/json"
	"reflect"
)

// jsonValue returns v as a decoded JSON value: map[string]any, []any,
// string, float64, bool or nil at every depth, as the MCP and HTTP
// executors produce with encoding/json. A value already in that form is
// returned as it is, after one walk that allocates nothing; any other
// (Go slices and maps of other types, structs, integers, json.Number,
// json.RawMessage) goes through its JSON form. A value that does not
// encode is returned unchanged.
func jsonValue(v any) any {
	if isJSONValue(v) {
		return v
	}
	if raw, ok := v.(json.RawMessage); ok {
		var decoded any
		if json.Unmarshal(raw, &decoded) == nil {
			return decoded
		}
		return string(raw)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var decoded any
	if json.Unmarshal(raw, &decoded) != nil {
		return v
	}
	return decoded
}

// isJSONValue reports whether v is a decoded JSON value at every depth.
func isJSONValue(v any) bool {
	switch x := v.(type) {
	case nil, string, float64, bool:
		return true
	case map[string]any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range x {
			if !isJSONValue(e) {
				return false
			}
		}
		return true
	}
	return false
}

// cloneArgs returns a deep copy of a call's arguments, so that hooks may
// change any part of them without the caller's map changing. JSON objects
// and arrays are copied at every depth, and so are maps and slices of
// other types (a []string, a map[string]int); pointers, structs and other
// values are shared, as they cannot be changed through the arguments' maps.
func cloneArgs(args map[string]any) map[string]any {
	out := make(map[string]any, len(args))
	for k, v := range args {
		out[k] = cloneValue(v)
	}
	return out
}

func cloneValue(v any) any {
	switch x := v.(type) {
	case nil, string, float64, bool, json.Number, int, int64:
		return x
	case map[string]any:
		return cloneArgs(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = cloneValue(e)
		}
		return out
	case json.RawMessage:
		return append(json.RawMessage(nil), x...)
	}
	rv := reflect.ValueOf(v)
	if c, ok := cloneReflect(rv); ok {
		return c.Interface()
	}
	return v
}

// cloneReflect deep-copies a map or slice of any type; it reports false
// for other kinds, which are shared.
func cloneReflect(v reflect.Value) (reflect.Value, bool) {
	switch v.Kind() {
	case reflect.Map:
		if v.IsNil() {
			return v, true
		}
		out := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			out.SetMapIndex(it.Key(), cloneElem(it.Value()))
		}
		return out, true
	case reflect.Slice:
		if v.IsNil() {
			return v, true
		}
		out := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			out.Index(i).Set(cloneElem(v.Index(i)))
		}
		return out, true
	}
	return v, false
}

// cloneElem copies an element of a map or slice: through an interface
// with cloneValue, as a map or slice with cloneReflect, else as is.
func cloneElem(e reflect.Value) reflect.Value {
	if e.Kind() == reflect.Interface {
		if e.IsNil() {
			return e
		}
		c := reflect.ValueOf(cloneValue(e.Interface()))
		out := reflect.New(e.Type()).Elem()
		out.Set(c)
		return out
	}
	if c, ok := cloneReflect(e); ok {
		return c
	}
	return e
}
