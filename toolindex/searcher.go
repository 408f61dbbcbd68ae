package toolindex

import (
	"context"

	"github.com/metatools-go/metatools/toolmodel"
)

// Searcher ranks tools against a free-text query. It is the extension
// point for search: the index keeps a Searcher up to date as tools come
// and go, and asks it for the best matches.
//
// A Searcher is incremental: the index calls Upsert and Remove as changes
// happen, and Search answers from the Searcher's own structures. A query
// must not cost work proportional to the catalogue size beyond what the
// ranking itself needs (no copying, fingerprinting or sorting of every
// document per query), and a single change must not rebuild everything.
//
// Implementations are safe for concurrent use. They must not keep or
// modify the tools passed to Upsert beyond what they index. Search treats
// the query as plain text, never as a query language, and orders hits by
// descending score then ascending ID, so that equal inputs give equal
// pages. Errors: a canceled context yields its error; a malformed request
// (a negative Offset, a Limit below 1) yields code
// [errors.InvalidArgument].
//
// A [MemoryIndex] calls Upsert and Remove for one change at a time,
// before the change becomes visible to its readers, and Search without
// holding any lock of its own, so Search may run while Upsert or Remove
// does: readers of the index never wait for indexing. The index filters
// the hits of tools it does not hold yet. A Searcher must never call
// back into an index from Upsert or Remove, since the index is in the
// middle of a change. Upsert and Remove should change nothing when they
// fail: the index then keeps its previous state and reports the error.
//
// The package toolindextest holds a conformance suite for Searchers.
type Searcher interface {
	// Upsert indexes tools, replacing any earlier version of the same IDs
	// ([toolmodel.Tool.ID]).
	Upsert(ctx context.Context, tools []toolmodel.Tool) error
	// Remove drops tools by ID; unknown IDs are ignored.
	Remove(ctx context.Context, ids []string) error
	// Search returns the hits of q, best first: at most q.Limit of them,
	// after skipping the q.Offset best.
	Search(ctx context.Context, q SearchQuery) ([]Hit, error)
}

// SearchQuery is a request to a [Searcher].
type SearchQuery struct {
	// Text is the user's query, as typed. A text without any searchable
	// word matches nothing.
	Text string
	// Namespace, when set, keeps only the tools of that namespace.
	Namespace string
	// Offset is the number of best hits to skip.
	Offset int
	// Limit is the most hits to return after Offset; it is at least 1.
	Limit int
}

// Hit is one search result: a tool ID and its score. Scores are comparable
// only within one Searcher and one query.
type Hit struct {
	// ID is the matching tool's ID.
	ID string
	// Score is how well the tool matches; higher is better.
	Score float64
}
