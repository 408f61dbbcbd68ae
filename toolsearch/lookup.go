package toolsearch

import (
	"context"
	"encoding/binary"
	"slices"
	"strings"
	"unicode"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/metatools-go/metatools/toolindex"
)

// selectPrefix starts a query that names the tools it wants:
// "select:read_file,fs:write_file".
const selectPrefix = "select:"

// lookupNames returns the tool names or IDs a query asks for by name, and
// the text to rank tools with. A "select:" query names a comma-separated
// list, and its text is the names' words; a query of one word may be a
// name itself, and is also ranked as text.
func lookupNames(query string) (names []string, text string) {
	trimmed := strings.TrimSpace(query)
	if len(trimmed) >= len(selectPrefix) && strings.EqualFold(trimmed[:len(selectPrefix)], selectPrefix) {
		for name := range strings.SplitSeq(trimmed[len(selectPrefix):], ",") {
			if name = strings.TrimSpace(name); name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
		return names, strings.Join(names, " ")
	}
	if trimmed != "" && !strings.ContainsFunc(trimmed, unicode.IsSpace) {
		return []string{trimmed}, query
	}
	return nil, query
}

// named returns the IDs of the tools names designate, in groups of equal
// rank, in the order of the names: for each name, the tool with that ID,
// then the tools with that name in any case, in ID order. Tools outside
// namespace are left out when it is not empty; each tool comes once.
func (s *Searcher) named(ctx context.Context, r index.IndexReader, names []string, namespace string) ([][]string, error) {
	var groups [][]string
	seen := map[string]bool{}
	for _, name := range names {
		if id, err := r.InternalID(name); err != nil {
			return nil, err
		} else if len(id) > 0 && !seen[name] && inNamespace(name, namespace) {
			seen[name] = true
			groups = append(groups, []string{name})
		}
		docs, err := docsWith(ctx, r, strings.ToLower(name), nameKeyField)
		if err != nil {
			return nil, err
		}
		var byName []string
		var num [8]byte
		for d := range docs {
			binary.BigEndian.PutUint64(num[:], d)
			id, err := r.ExternalID(num[:])
			if err != nil {
				return nil, err
			}
			if !seen[id] && inNamespace(id, namespace) {
				seen[id] = true
				byName = append(byName, id)
			}
		}
		if len(byName) > 0 {
			slices.Sort(byName)
			groups = append(groups, byName)
		}
	}
	return groups, nil
}

// inNamespace reports whether the tool of ID id is in namespace, or
// namespace is empty. An ID is "namespace:name", or the name alone when
// the namespace is empty.
func inNamespace(id, namespace string) bool {
	return namespace == "" || strings.HasPrefix(id, namespace+":")
}

// pin returns the first end hits of the pinned groups, then of ranking
// without them. Pinned tools score above every tool of ranking, group by
// group; the tools of a group tie, in ID order.
func pin(ranking []toolindex.Hit, pinned [][]string, end int) []toolindex.Hit {
	if len(pinned) == 0 {
		return ranking[:min(end, len(ranking))]
	}
	top := 0.0
	if len(ranking) > 0 {
		top = ranking[0].Score
	}
	var out []toolindex.Hit
	isPinned := map[string]bool{}
	for i, group := range pinned {
		for _, id := range group {
			isPinned[id] = true
			out = append(out, toolindex.Hit{ID: id, Score: top + float64(len(pinned)-i)})
		}
	}
	for _, h := range ranking {
		if !isPinned[h.ID] {
			out = append(out, h)
		}
	}
	return out[:min(end, len(out))]
}
