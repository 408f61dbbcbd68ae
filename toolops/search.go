package toolops

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// MaxScannedPerPage bounds the catalogue entries one search answer looks
// at: when policies hide most of the catalogue, an answer may hold fewer
// tools than asked for, with a cursor to go on.
const MaxScannedPerPage = 1000

// SearchRequest asks for tools. It is plain data, the same on every face.
type SearchRequest struct {
	// Query says what the tools are for, in a few words; a blank query
	// lists the catalogue in ID order.
	Query string `json:"query,omitempty"`
	// Namespace, when set, keeps the tools of one namespace.
	Namespace string `json:"namespace,omitempty"`
	// Limit is the most tools of the answer: 1 to [MaxSearchResults], or
	// 0 for [Limits.SearchResults].
	Limit int `json:"limit,omitempty"`
	// Cursor is the NextCursor of a previous answer to the same request,
	// to go on from there.
	Cursor string `json:"cursor,omitempty"`
}

// SearchResult is one page of a search.
type SearchResult struct {
	// Tools are the tools found, best first (in ID order for a listing).
	Tools []toolindex.Summary `json:"tools"`
	// NextCursor, when not empty, continues the search.
	NextCursor string `json:"nextCursor,omitempty"`
	// Note, on the last page, says which tools the search could not see
	// that the caller may reach: those of upstreams still connecting or
	// failed, and those quarantined until an operator approves them.
	Note string `json:"note,omitempty"`
}

// Search returns the tools offered to the caller that match the request,
// best first, up to its limit, and the cursor of what follows. Tools the
// caller is not offered are left out, and the page is filled past them.
//
// Errors, with code [errors.InvalidArgument]: a limit out of range, a
// cursor that is not one this service gave; [errors.NotFound]: a
// namespace with no tool offered to the caller.
func (s *Service) Search(ctx context.Context, req SearchRequest) (res SearchResult, err error) {
	if s.searchDurations != nil {
		defer func(begin time.Time) { s.measureSearch(ctx, req.Query, begin, err) }(time.Now())
	}
	limit := req.Limit
	switch {
	case limit == 0:
		limit = s.limits.SearchResults
	case limit < 0 || limit > MaxSearchResults:
		return SearchResult{}, errors.Opf(OpSearch, errors.InvalidArgument,
			"limit %d is out of range: ask for 1 to %d tools and go on with the answer's nextCursor", limit, MaxSearchResults)
	}
	at, skip, err := splitCursor(req.Cursor)
	if err != nil {
		return SearchResult{}, err
	}
	if req.Namespace != "" {
		if ok, err := s.namespaceOffered(ctx, req.Namespace); err != nil {
			return SearchResult{}, errors.WithOp(OpSearch, err)
		} else if !ok {
			return SearchResult{}, errors.Opf(OpSearch, errors.NotFound, "no namespace %q; list the namespaces to see those there are", req.Namespace)
		}
	}
	fetch := func(cursor string, limit int) (toolindex.Page, error) {
		return s.index.Search(ctx, toolindex.SearchRequest{Query: req.Query, Namespace: req.Namespace, Cursor: cursor, Limit: limit})
	}
	if strings.TrimSpace(req.Query) == "" {
		fetch = func(cursor string, limit int) (toolindex.Page, error) {
			return s.index.List(ctx, toolindex.ListRequest{Namespace: req.Namespace, Cursor: cursor, Limit: limit})
		}
	}
	tools, next, err := s.offeredPage(ctx, fetch, at, skip, limit)
	if err != nil {
		return SearchResult{}, errors.WithOp(OpSearch, err)
	}
	res = SearchResult{Tools: tools, NextCursor: next}
	if next == "" {
		res.Note = s.unseen(ctx, req.Namespace)
	}
	return res, nil
}

// pageFetcher reads one page of the catalogue (a listing or a search)
// from an index cursor.
type pageFetcher func(cursor string, limit int) (toolindex.Page, error)

// offeredPage returns up to limit offered tools from the entry skip of
// the index page at, and the service cursor of what follows. A service
// cursor is an index cursor, followed by "." and the number of entries of
// that page already seen when the answer ended inside it: hidden entries
// are left out, so a page of the answer and a page of the index need not
// end together.
func (s *Service) offeredPage(ctx context.Context, fetch pageFetcher, at string, skip, limit int) ([]toolindex.Summary, string, error) {
	out := make([]toolindex.Summary, 0, limit)
	scanned := 0
	for {
		page, err := fetch(at, min(skip+2*limit, toolindex.MaxPageSize))
		if err != nil {
			return nil, "", err
		}
		// after is the cursor of the entries after the i-th of the page.
		after := func(i int) string {
			if i+1 < len(page.Items) {
				return joinCursor(at, i+1)
			}
			return page.NextCursor
		}
		for i := skip; i < len(page.Items); i++ {
			item := page.Items[i]
			if hidden, _ := s.hidden(ctx, item.ID); hidden {
				scanned++
				if scanned >= MaxScannedPerPage {
					return out, after(i), nil
				}
				continue
			}
			if len(out) == limit {
				// The answer ends before the next offered tool.
				return out, joinCursor(at, i), nil
			}
			out = append(out, item)
			scanned++
			if scanned >= MaxScannedPerPage {
				return out, after(i), nil
			}
		}
		if page.NextCursor == "" || len(out) == limit {
			return out, page.NextCursor, nil
		}
		at, skip = page.NextCursor, 0
	}
}

// splitCursor parses a service cursor (see offeredPage). The index checks
// its own part.
func splitCursor(cursor string) (string, int, error) {
	at, rest, found := strings.Cut(cursor, ".")
	if !found {
		return cursor, 0, nil
	}
	skip, err := strconv.Atoi(rest)
	if err != nil || skip < 1 || skip >= toolindex.MaxPageSize || strconv.Itoa(skip) != rest {
		return "", 0, errors.Opf(OpSearch, errors.InvalidArgument, "cursor %q is malformed: pass the nextCursor of the previous answer as it is", cursor)
	}
	return at, skip, nil
}

// joinCursor returns the service cursor of the entries from the skip-th
// of the index page at on.
func joinCursor(at string, skip int) string {
	if skip == 0 {
		return at
	}
	return at + "." + strconv.Itoa(skip)
}

// Namespaces returns the namespaces that hold at least one tool offered
// to the caller, sorted; "" stands for the tools without a namespace.
func (s *Service) Namespaces(ctx context.Context) ([]string, error) {
	names, err := s.index.Namespaces(ctx)
	if err != nil {
		return nil, errors.WithOp(OpNamespaces, err)
	}
	out := make([]string, 0, len(names))
	for _, ns := range names {
		ok, err := s.namespaceOffered(ctx, ns)
		if err != nil {
			return nil, errors.WithOp(OpNamespaces, err)
		}
		if ok {
			out = append(out, ns)
		}
	}
	slices.Sort(out)
	return out, nil
}

// namespaceOffered reports whether the namespace ns holds a tool offered
// to the caller. With no policy, or policies that allow its first tool,
// that costs one lookup.
func (s *Service) namespaceOffered(ctx context.Context, ns string) (bool, error) {
	offered, _, err := s.namespaceState(ctx, ns)
	return offered, err
}

// namespaceState reports whether the namespace ns holds a tool offered to
// the caller, and whether it holds some tool.
func (s *Service) namespaceState(ctx context.Context, ns string) (offered, some bool, err error) {
	// The first page holds one tool, which the policies allow unless they
	// hide much of the namespace: the next pages are full ones.
	req := toolindex.ListRequest{Namespace: ns, Limit: 1}
	for {
		page, err := s.index.List(ctx, req)
		if err != nil {
			return false, some, err
		}
		for _, item := range page.Items {
			// An empty namespace lists every tool: keep its own.
			if ns == "" && strings.Contains(item.ID, ":") {
				continue
			}
			some = true
			if hidden, _ := s.hidden(ctx, item.ID); !hidden {
				return true, true, nil
			}
		}
		if page.NextCursor == "" {
			return false, some, nil
		}
		req.Cursor, req.Limit = page.NextCursor, toolindex.MaxPageSize
	}
}
