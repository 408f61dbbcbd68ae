package toolserver

import (
	"context"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun"
)

// The agent is offered only the tools the runner's authorization policies
// let it run (toolrun.Runner.Authorize): a refused tool is left out of
// search_tools and of list_namespaces' namespaces, describe_tool and
// list_tool_examples answer for it as for an unknown tool, and it is not
// passed through. The runner stays the one place that decides; run_tool
// and run_chain are refused by the runner itself.

// maxScannedPerPage bounds the catalogue entries one search_tools answer
// looks at: when policies refuse most of the catalogue, an answer may
// hold fewer tools than asked for, with a cursor to go on.
const maxScannedPerPage = 1000

// offered reports whether the agent may be offered a tool: false only
// when a policy refuses it. A tool that cannot be resolved right now is
// still offered, and its failure shows where it is used.
func (s *Server) offered(ctx context.Context, id string) bool {
	err := s.runner.Authorize(ctx, id)
	if err == nil {
		return true
	}
	var e *errors.Error
	return !errors.As(err, &e) || e.Op != toolrun.OpAuthorize
}

// unknownTool is the error of a tool that is not in the catalogue, or not
// offered: both get the same answer, so that a refused tool is not
// revealed.
func unknownTool(op, id string) *errors.Error {
	e := errors.Errorf(errors.NotFound, "no tool with this ID; search_tools finds tools by what they do")
	e.Op, e.ToolID = op, id
	return e
}

// describable returns the error to answer for id when it is unknown or not
// offered: err from the documentation store when it is a not-found one,
// or nil when id is offered and documented.
func (s *Server) describable(ctx context.Context, op, id string, err error) error {
	if errors.CodeOf(err) == errors.NotFound || (err == nil && !s.offered(ctx, id)) {
		return s.whileConnecting(unknownTool(op, id))
	}
	return err
}

// pageFetcher reads one page of the catalogue (a listing or a search)
// from an index cursor.
type pageFetcher func(cursor string, limit int) (toolindex.Page, error)

// offeredPage returns up to limit offered tools from a server cursor on,
// and the server cursor of what follows. A server cursor is an index
// cursor, followed by "." and the number of entries of that page already
// seen when the answer ended inside it: policies may leave out entries,
// so a page of the answer and a page of the index need not end together.
func (s *Server) offeredPage(ctx context.Context, fetch pageFetcher, cursor string, limit int) ([]toolindex.Summary, string, error) {
	at, skip, err := splitCursor(cursor)
	if err != nil {
		return nil, "", err
	}
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
			if !s.offered(ctx, item.ID) {
				scanned++
				if scanned >= maxScannedPerPage {
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
			if scanned >= maxScannedPerPage {
				return out, after(i), nil
			}
		}
		if page.NextCursor == "" || len(out) == limit {
			return out, page.NextCursor, nil
		}
		at, skip = page.NextCursor, 0
	}
}

// splitCursor parses a server cursor (see offeredPage). The index checks
// its own part.
func splitCursor(cursor string) (string, int, error) {
	at, rest, found := strings.Cut(cursor, ".")
	if !found {
		return cursor, 0, nil
	}
	skip, err := strconv.Atoi(rest)
	if err != nil || skip < 1 || skip >= toolindex.MaxPageSize || strconv.Itoa(skip) != rest {
		return "", 0, errors.Errorf(errors.InvalidArgument, "cursor %q is malformed: pass the nextCursor of the previous answer as it is", cursor)
	}
	return at, skip, nil
}

// joinCursor returns the server cursor of the entries from the skip-th of
// the index page at on.
func joinCursor(at string, skip int) string {
	if skip == 0 {
		return at
	}
	return at + "." + strconv.Itoa(skip)
}

// offeredNamespaces returns the namespaces that have at least one offered
// tool. With no policy, or with policies that allow a namespace's first
// tool, that costs one lookup per namespace.
func (s *Server) offeredNamespaces(ctx context.Context, names []string) ([]string, error) {
	out := names[:0:0]
	for _, ns := range names {
		req := toolindex.ListRequest{Namespace: ns, Limit: toolindex.MaxPageSize}
	scan:
		for {
			page, err := s.index.List(ctx, req)
			if err != nil {
				return nil, err
			}
			for _, item := range page.Items {
				// An empty namespace lists every tool: keep its own.
				if ns == "" && strings.Contains(item.ID, ":") {
					continue
				}
				if s.offered(ctx, item.ID) {
					out = append(out, ns)
					break scan
				}
			}
			if page.NextCursor == "" {
				break
			}
			req.Cursor = page.NextCursor
		}
	}
	return out, nil
}
