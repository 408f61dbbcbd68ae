package tooldocs

import (
	"context"

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
func IndexResolver(idx IndexReader) ToolResolver {
	return ToolResolverFunc(func(ctx context.Context, id string) (toolmodel.Tool, error) {
		tool, _, err := idx.GetAll(ctx, id)
		return tool, err
	})
}
