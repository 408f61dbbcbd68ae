package toolindex

import (
	"context"
	"reflect"
)

// ctxKey is the context key of an Index; its type is unexported so that
// no other package can collide with it.
type ctxKey struct{}

// WithIndex returns a copy of ctx that carries idx, for code deep in a
// request that needs the live index. Tool definitions stay plain data:
// runtime objects such as an index travel in the context, never in them.
//
// A nil idx, including a nil pointer of a concrete type such as a nil
// *MemoryIndex, counts as no index: [IndexFrom] reports none, even when
// ctx carried one.
func WithIndex(ctx context.Context, idx Index) context.Context {
	if IsNil(idx) {
		// Store an untyped nil, so that an index further out stays hidden
		// as the caller asked, and IndexFrom never hands out a typed nil
		// whose methods would panic.
		return context.WithValue(ctx, ctxKey{}, nil)
	}
	return context.WithValue(ctx, ctxKey{}, idx)
}

// IndexFrom returns the index carried by ctx, and whether there is one. A
// nil index stored with [WithIndex] counts as none.
func IndexFrom(ctx context.Context) (Index, bool) {
	idx, ok := ctx.Value(ctxKey{}).(Index)
	if !ok || IsNil(idx) {
		return nil, false
	}
	return idx, true
}

// IsNil reports whether idx is nil or holds a nil pointer (or other nil
// value of a nilable kind), such as a nil *MemoryIndex: an index that
// would panic when used. Code that accepts an optional Index treats both
// as "no index".
func IsNil(idx Index) bool {
	if idx == nil {
		return true
	}
	if m, ok := idx.(*MemoryIndex); ok {
		return m == nil // the common case, without reflection
	}
	switch v := reflect.ValueOf(idx); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}
