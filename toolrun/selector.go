package toolrun

import (
	"context"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// SelectHint states a preference among a tool's backends; see
// [toolindex.SelectHint].
type SelectHint = toolindex.SelectHint

// BackendSelector chooses which of a tool's backends runs a call. The
// runner is the one place where this choice is made: it reads every
// backend of the tool from its index or resolvers and asks its selector
// ([WithSelector]; by default [toolindex.DefaultSelector]).
//
// Select is given the tool, its backends (at least one, in registration
// order) and the call's hints ([CallOptions.Prefer]), and returns one of
// the backends. Implementations must be safe for concurrent use, and may
// read, but must not keep or modify, their arguments. Select may block
// (for example to check a backend's health), honouring ctx. Its error
// fails the call at the stage [OpSelectBackend], keeping its code
// (not_found for an error without one); so does a panic, with code
// [errors.Internal].
type BackendSelector interface {
	Select(ctx context.Context, tool *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []SelectHint) (toolmodel.ToolBackend, error)
}

// BackendSelectorFunc adapts a function to the [BackendSelector] interface.
type BackendSelectorFunc func(ctx context.Context, tool *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []SelectHint) (toolmodel.ToolBackend, error)

var (
	_ BackendSelector = BackendSelectorFunc(nil)
	_ BackendSelector = toolindex.DefaultSelector{}
)

// Select calls f(ctx, tool, backends, hints).
func (f BackendSelectorFunc) Select(ctx context.Context, tool *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []SelectHint) (toolmodel.ToolBackend, error) {
	return f(ctx, tool, backends, hints)
}
