package toolindex

import (
	"context"

	"github.com/metatools-go/metatools/toolmodel"
)

// Index is a registry of tools and the backends that serve them, with
// discovery: listings, namespaces and search.
//
// A tool is identified by its ID ([toolmodel.Tool.ID]) and may be served
// by several backends, told apart by [toolmodel.ToolBackend.Identity] (its
// source). Registering a tool from a new source adds a backend; the tool is
// removed when its last backend goes.
//
// Registration rules, for a registration of tool T with backend B (of
// identity S):
//
//   - T unknown: T is added with B ([ToolRegistered]).
//   - T known and S already one of its backends: a different definition or
//     a different configuration of B replaces the old one
//     ([ToolUpdated]); an identical registration changes nothing and
//     emits no event.
//   - T known, S new, same definition ([toolmodel.Tool.Equal]): B is added
//     ([BackendAdded]).
//   - T known, S new, different definition: [errors.Conflict], unless the
//     [Replace] option is given; then T's definition becomes the new one,
//     B is added, and the tool keeps its other backends ([ToolUpdated]).
//
// Implementations are safe for concurrent use. Arguments are copied: the
// caller may modify them after a call returns. Results are copies too:
// callers may modify what they get without affecting the index. A method
// given a context that is already done returns the context's error
// (classified as [errors.Canceled] or [errors.Timeout]) and changes
// nothing; otherwise it passes ctx on to the components it calls (the
// [Searcher], a [Source]). Errors come from the
// repository's errors package: [errors.NotFound] for an unknown tool,
// [errors.InvalidArgument] for malformed input (an invalid tool or
// backend, a bad cursor, a negative limit), [errors.Conflict] for a
// definition that contradicts another source's.
//
// The package toolindextest holds a conformance suite for Indexes.
type Index interface {
	// Register adds a tool served by a backend, following the rules above.
	Register(ctx context.Context, reg Registration, opts ...RegisterOption) error
	// RegisterMany registers every registration or none: when one fails,
	// the index is left unchanged. Registrations are applied in order, so
	// a later one may update an earlier one of the same source.
	RegisterMany(ctx context.Context, regs []Registration, opts ...RegisterOption) error
	// UnregisterBackend removes the backend with the given identity from
	// every tool it serves, and every tool left without a backend. It
	// returns the number of tools it changed or removed; an unknown
	// identity is not an error and changes nothing.
	UnregisterBackend(ctx context.Context, identity string) (int, error)

	// GetAll returns a tool and every one of its backends, in the order
	// they were first registered.
	GetAll(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error)
	// List returns a page of tool summaries in ascending ID order.
	List(ctx context.Context, req ListRequest) (Page, error)
	// Namespaces returns every non-empty namespace that has at least one
	// tool, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Search returns a page of the tools that best match a query, best
	// first; each summary carries its Score.
	Search(ctx context.Context, req SearchRequest) (Page, error)

	// OnChange subscribes fn to the events of every change made after it
	// returns; see [ChangeEvent] for the delivery guarantees. It returns
	// a function that ends the subscription: fn is not called for the
	// events delivered after it returns (a call already under way on
	// another goroutine may still finish), and calling it again is
	// harmless. It may be called from within a subscriber.
	OnChange(fn func(ChangeEvent)) (unsubscribe func())
	// Refresh re-lists the [Source]s the index was given and brings each
	// one's tools in line with what it lists now, then emits one
	// [Refreshed] event, even when there is no source or nothing changed.
	// With no identities it re-lists every source; with identities, only
	// the sources of those identities ([Source.Identity]), so that a
	// change reported by one source costs one listing. Identities that
	// name no source of the index are ignored: a caller that keeps
	// several indexes in step can give each the same list. A source that
	// fails to list keeps its tools; the errors of all the sources that
	// failed are joined in the result.
	Refresh(ctx context.Context, identities ...string) error
	// Version returns the version of the index: the version of the latest
	// event, 0 before any change.
	Version() uint64
}

// Registration is a tool and a backend that serves it.
type Registration struct {
	// Tool is the tool's definition; it must pass [toolmodel.Tool.Validate].
	Tool toolmodel.Tool
	// Backend is where the tool runs; it must pass
	// [toolmodel.ToolBackend.Validate].
	Backend toolmodel.ToolBackend
}

// RegisterOption changes how a registration treats existing tools.
type RegisterOption func(*registerConfig)

// registerConfig is the effect of a list of RegisterOptions.
type registerConfig struct {
	replace bool
}

func newRegisterConfig(opts []RegisterOption) registerConfig {
	var cfg registerConfig
	for _, opt := range opts {
		if opt != nil {
			opt(&cfg)
		}
	}
	return cfg
}

// Replace lets a registration replace the definition of a tool that
// another source registered differently, instead of failing with
// [errors.Conflict]. The tool keeps its other backends.
func Replace() RegisterOption {
	return func(c *registerConfig) { c.replace = true }
}

// Page sizes of listings and searches.
const (
	// DefaultPageSize is the page size of a request whose Limit is 0.
	DefaultPageSize = 20
	// MaxPageSize is the largest page; larger limits are lowered to it.
	MaxPageSize = 100
)

// ListRequest asks for a page of tools in ascending ID order. Filters
// combine: a tool must pass all that are set.
type ListRequest struct {
	// Namespace, when set, keeps the tools of that namespace.
	Namespace string `json:"namespace,omitempty"`
	// Backend, when set, keeps the tools served by the backend of that
	// identity ([toolmodel.ToolBackend.Identity]).
	Backend string `json:"backend,omitempty"`
	// Cursor is the NextCursor of the previous page, empty for the first
	// page. It is only valid with the same filters. A listing cursor
	// records the last tool seen, so paging goes on correctly while tools
	// are added or removed elsewhere in the catalogue.
	Cursor string `json:"cursor,omitempty"`
	// Limit is the page size: 0 means [DefaultPageSize], more than
	// [MaxPageSize] means MaxPageSize; a negative limit is invalid.
	Limit int `json:"limit,omitempty"`
}

// SearchRequest asks for a page of the tools that best match a query.
type SearchRequest struct {
	// Query is free text, as typed by a user or a model. It is never
	// parsed as a query language.
	Query string `json:"query"`
	// Namespace, when set, keeps the tools of that namespace.
	Namespace string `json:"namespace,omitempty"`
	// Cursor is the NextCursor of the previous page, empty for the first
	// page. It is only valid with the same Query and Namespace; a search
	// cursor records a position in the ranking, so a change to the
	// catalogue between pages may shift results across pages.
	Cursor string `json:"cursor,omitempty"`
	// Limit is the page size, as in [ListRequest].
	Limit int `json:"limit,omitempty"`
}

// Page is one page of a listing or a search.
type Page struct {
	// Items are the page's tools.
	Items []Summary `json:"items"`
	// NextCursor fetches the next page; it is empty on the last page.
	NextCursor string `json:"nextCursor,omitempty"`
}

// Source is a place tools come from, such as an MCP server or an API
// description, which an index re-lists on [Index.Refresh].
//
// A source owns the backend of one identity: every registration it lists
// must have a backend of that identity, and on refresh the index removes
// that backend from the tools the source no longer lists. Sources that
// share an identity own it together: a [MemoryIndex] reconciles that
// backend with the union of their listings (see [WithSource]).
type Source interface {
	// Identity returns the identity of the backend of every registration
	// the source lists ([toolmodel.ToolBackend.Identity]). It must not
	// change.
	Identity() string
	// ListTools returns the source's tools as they are now. It may block
	// and must honour ctx.
	ListTools(ctx context.Context) ([]Registration, error)
}

// ChangeKind says what a [ChangeEvent] reports.
type ChangeKind string

// The kinds of change.
const (
	// ToolRegistered: a new tool was added.
	ToolRegistered ChangeKind = "registered"
	// ToolUpdated: a tool's definition, or the configuration of one of its
	// backends, changed.
	ToolUpdated ChangeKind = "updated"
	// BackendAdded: a known tool gained a backend.
	BackendAdded ChangeKind = "backend_added"
	// BackendRemoved: a tool lost a backend but still has others.
	BackendRemoved ChangeKind = "backend_removed"
	// ToolRemoved: a tool lost its last backend and left the index.
	ToolRemoved ChangeKind = "removed"
	// Refreshed: a refresh pass ended; ToolID and Backend are empty.
	Refreshed ChangeKind = "refreshed"
)

// ChangeEvent describes one change of an index.
//
// Every event has its own version: the first is 1 and each next one is
// the previous plus 1, so a subscriber can tell it has seen every change.
// An atomic operation that changes several tools emits one event per tool,
// in a row.
//
// Delivery: events are delivered to each subscriber in version order, one
// at a time, on the goroutine of a caller that made a change, after the
// change is visible and without any lock of the index held, so a
// subscriber may call back into the index, even to make changes. When
// changes are made concurrently, or from within a subscriber, one
// goroutine may deliver the events of several changes, and a call that
// made a change may return before its events are delivered; a caller
// alone on the index sees its events delivered before the call returns.
// Subscribers must be quick and must not panic.
type ChangeEvent struct {
	// Kind says what changed.
	Kind ChangeKind `json:"kind"`
	// ToolID is the ID of the tool concerned.
	ToolID string `json:"toolId,omitempty"`
	// Backend is the identity of the backend concerned.
	Backend string `json:"backend,omitempty"`
	// Version is the index version after this change.
	Version uint64 `json:"version"`
}
