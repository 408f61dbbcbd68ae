package tooldocs

import (
	"context"
	"reflect"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// ToolResolver finds tool definitions the Store does not keep itself,
// typically in a toolindex.Index, so that the Store documents every tool
// of a catalogue without copying it. See [IndexResolver].
//
// ResolveTool returns the definition of the tool with the given ID.
// Implementations must be safe for concurrent use and return a tool the
// caller owns (a copy, never shared state). They honour ctx if they block.
// An unknown ID yields an error of code [errors.NotFound]; the Store
// passes other errors on unchanged.
type ToolResolver interface {
	ResolveTool(ctx context.Context, id string) (toolmodel.Tool, error)
}

// ToolResolverFunc adapts a function to the [ToolResolver] interface.
type ToolResolverFunc func(ctx context.Context, id string) (toolmodel.Tool, error)

var _ ToolResolver = ToolResolverFunc(nil)

// ResolveTool calls f(ctx, id).
func (f ToolResolverFunc) ResolveTool(ctx context.Context, id string) (toolmodel.Tool, error) {
	return f(ctx, id)
}

// IndexReader is the one method of a toolindex.Index that [IndexResolver]
// needs; every toolindex.Index has it. Declaring it here keeps this package
// independent of toolindex's other types.
type IndexReader interface {
	// GetAll returns a tool and every backend that serves it, failing
	// with code [errors.NotFound] for an unknown tool.
	GetAll(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error)
}

// IndexResolver returns a [ToolResolver] that reads tool definitions from
// an index, typically a toolindex.Index:
//
//	store := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
//
// It uses GetAll rather than Get, so that documenting a tool never runs
// the index's backend selection, which documentation does not need.
//
// A nil idx, or a nil pointer such as a nil *toolindex.MemoryIndex, has
// no tool to give: the resolver then fails every call with
// [errors.InvalidArgument] rather than panic in the middle of a request.
func IndexResolver(idx IndexReader) ToolResolver {
	if isNil(idx) {
		return ToolResolverFunc(func(context.Context, string) (toolmodel.Tool, error) {
			return toolmodel.Tool{}, errors.Opf("tooldocs.IndexResolver", errors.InvalidArgument, "the resolver was given no index")
		})
	}
	return ToolResolverFunc(func(ctx context.Context, id string) (toolmodel.Tool, error) {
		tool, _, err := idx.GetAll(ctx, id)
		return tool, err
	})
}

// isNil reports whether idx is nil or holds a nil value of a kind that
// can be nil, whose methods would most likely panic. It is checked once,
// when the resolver is made.
func isNil(idx IndexReader) bool {
	if idx == nil {
		return true
	}
	switch v := reflect.ValueOf(idx); v.Kind() {
	case reflect.Pointer, reflect.Map, reflect.Slice, reflect.Func, reflect.Chan, reflect.Interface:
		return v.IsNil()
	}
	return false
}
