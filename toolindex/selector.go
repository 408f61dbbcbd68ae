package toolindex

import (
	"context"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// SelectHint states a preference among a tool's backends. A backend
// matches a hint when it has every property the hint sets; a hint that
// sets nothing matches every backend.
type SelectHint struct {
	// Kind, when set, prefers backends of this kind.
	Kind toolmodel.BackendKind `json:"kind,omitempty"`
	// Backend, when set, prefers the backend of this identity
	// ([toolmodel.ToolBackend.Identity]).
	Backend string `json:"backend,omitempty"`
}

// Matches reports whether backend b has every property h sets. A nil b
// is no backend, and matches no hint.
func (h SelectHint) Matches(b *toolmodel.ToolBackend) bool {
	return b != nil && (h.Kind == "" || b.Kind == h.Kind) && (h.Backend == "" || b.Identity() == h.Backend)
}

// DefaultSelector is the default choice among the backends [Index.GetAll]
// returns: the one a toolrun.Runner makes unless given a selector of its
// own (the runner is where a choice is configured). Hints are a list of
// preferences, tried in order: the first hint that matches at least one
// backend restricts the choice to the backends it matches. Hints that
// match no backend are ignored, so a caller's preference never makes a
// tool unusable; a caller that requires a backend checks the identity of
// the one it gets. Among the remaining backends it picks by kind, local
// first, then provider, http, grpc, mcp and other kinds, and among
// backends of one kind the first registered.
// Its zero value is ready to use; it never blocks.
type DefaultSelector struct{}

// kindRank orders backend kinds for the default selector: in-process
// backends cost least and fail least, remote protocols cost more.
func kindRank(k toolmodel.BackendKind) int {
	switch k {
	case toolmodel.BackendLocal:
		return 0
	case toolmodel.BackendProvider:
		return 1
	case toolmodel.BackendHTTP:
		return 2
	case toolmodel.BackendGRPC:
		return 3
	case toolmodel.BackendMCP:
		return 4
	}
	return 5
}

// Select returns the backend that should run tool. It fails with
// [errors.InvalidArgument] when tool is nil, and with [errors.NotFound]
// when backends is empty; it never fails otherwise.
func (DefaultSelector) Select(_ context.Context, tool *toolmodel.Tool, backends []toolmodel.ToolBackend, hints []SelectHint) (toolmodel.ToolBackend, error) {
	const op = "toolindex.Select"
	if tool == nil {
		// The choice does not depend on the tool, but a caller that has
		// none has lost track of what it runs.
		return toolmodel.ToolBackend{}, errors.Opf(op, errors.InvalidArgument, "tool is nil")
	}
	if len(backends) == 0 {
		e := errors.Errorf(errors.NotFound, "no backend to select from")
		e.Op, e.ToolID = op, tool.ID()
		return toolmodel.ToolBackend{}, e
	}
	for _, h := range hints {
		if best, ok := bestMatching(backends, h); ok {
			return best, nil
		}
	}
	best, _ := bestMatching(backends, SelectHint{})
	return best, nil
}

// bestMatching returns the first backend of the best-ranked kind among the
// backends that match h, and whether any does.
func bestMatching(backends []toolmodel.ToolBackend, h SelectHint) (toolmodel.ToolBackend, bool) {
	best := -1
	for i := range backends {
		if !h.Matches(&backends[i]) {
			continue
		}
		if best < 0 || kindRank(backends[i].Kind) < kindRank(backends[best].Kind) {
			best = i
		}
	}
	if best < 0 {
		return toolmodel.ToolBackend{}, false
	}
	return backends[best], true
}
