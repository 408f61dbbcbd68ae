package toolindex

import "context"

// ctxKey is the context key of an Index; its type is unexported so that
// no other package can collide with it.
type ctxKey struct{}

// WithIndex returns a copy of ctx that carries idx, for code deep in a
// request that needs the live index. Tool definitions stay plain data:
// runtime objects such as an index travel in the context, never in them.
func WithIndex(ctx context.Context, idx Index) context.Context {
	return context.WithValue(ctx, ctxKey{}, idx)
}

// IndexFrom returns the index carried by ctx, and whether there is one. A
// nil index stored with [WithIndex] counts as none.
func IndexFrom(ctx context.Context) (Index, bool) {
	idx, ok := ctx.Value(ctxKey{}).(Index)
	return idx, ok
}
