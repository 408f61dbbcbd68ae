package toolsearch

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// cacheQueries are asked after every change in the tests of the cache,
// in every namespace and in none.
var cacheQueries = []string{"read a file", "write file contents", "list issues", "create an issue in a repository", "search the web", "finder"}

// rankings returns the first 10 hits of each of cacheQueries, in each
// namespace.
func rankings(t *testing.T, s *Searcher) map[string][]toolindex.Hit {
	t.Helper()
	out := map[string][]toolindex.Hit{}
	for _, ns := range []string{"", "fs", "gh", "web", "none"} {
		for _, q := range cacheQueries {
			hits, err := s.Search(context.Background(), toolindex.SearchQuery{Text: q, Namespace: ns, Limit: 10})
			require.NoError(t, err)
			out[ns+"|"+q] = hits
		}
	}
	return out
}

// catalogueTools returns tools of three namespaces whose descriptions
// change with version.
func catalogueTools(n, version int) []toolmodel.Tool {
	descs := []string{"Read the contents of a file.", "Write contents to a file.", "List the issues of a repository.", "Create an issue.", "Search the web for pages.", "A file finder."}
	nss := []string{"fs", "gh", "web"}
	out := make([]toolmodel.Tool, n)
	for i := range out {
		desc := descs[(i+version)%len(descs)]
		if version > 0 && i%3 == 0 {
			desc += fmt.Sprintf(" Revision %d of tool %d.", version, i)
		}
		out[i] = tool(nss[i%len(nss)], fmt.Sprintf("tool_%02d", i), desc)
	}
	return out
}

// TestCachedPostingsFollowChanges changes an index one tool at a time,
// querying it after every change so that its segments' caches are warm,
// and checks each time that it ranks as an index built anew from the same
// tools, whose caches are cold.
func TestCachedPostingsFollowChanges(t *testing.T) {
	ctx := context.Background()
	s, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })

	const n = 24
	current := map[string]toolmodel.Tool{}
	check := func(step string) {
		t.Helper()
		fresh, err := New()
		require.NoError(t, err)
		defer func() { require.NoError(t, fresh.Close()) }()
		var tools []toolmodel.Tool
		for _, tl := range current {
			tools = append(tools, tl)
		}
		require.NoError(t, fresh.Upsert(ctx, tools))
		want, got := rankings(t, fresh), rankings(t, s)
		for k := range want {
			require.InDeltaSlice(t, scores(want[k]), scores(got[k]), 1e-9, "%s: scores of %s", step, k)
			require.Equal(t, ids(want[k]), ids(got[k]), "%s: %s", step, k)
		}
	}
	for i, tl := range catalogueTools(n, 0) {
		require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tl}))
		current[tl.ID()] = tl
		if i%5 == 4 {
			check(fmt.Sprintf("after adding %d tools", i+1))
		}
	}
	for i, tl := range catalogueTools(n, 1) {
		if i%2 == 0 {
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tl}))
			current[tl.ID()] = tl
			check(fmt.Sprintf("after changing tool %d", i))
		}
	}
	for i, tl := range catalogueTools(n, 0) {
		if i%4 == 1 {
			require.NoError(t, s.Remove(ctx, []string{tl.ID()}))
			delete(current, tl.ID())
			check(fmt.Sprintf("after removing tool %d", i))
		}
	}
}

func scores(hits []toolindex.Hit) []float64 {
	out := make([]float64, len(hits))
	for i, h := range hits {
		out[i] = h.Score
	}
	return out
}

func ids(hits []toolindex.Hit) []string {
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

// TestPostingCacheIsBounded checks that a segment's cache that would
// grow past its bound is emptied, and that queries rank as before.
func TestPostingCacheIsBounded(t *testing.T) {
	ctx := context.Background()
	for _, bc := range []struct {
		name                  string
		maxPostings, maxTerms int
	}{
		{name: "terms", maxPostings: maxCachedPostings, maxTerms: 3},
		{name: "postings", maxPostings: 5, maxTerms: maxCachedTerms},
	} {
		t.Run(bc.name, func(t *testing.T) {
			bounded, err := New()
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, bounded.Close()) })
			bounded.postings.maxPostings, bounded.postings.maxTerms = bc.maxPostings, bc.maxTerms
			free, err := New()
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, free.Close()) })
			for _, s := range []*Searcher{bounded, free} {
				require.NoError(t, s.Upsert(ctx, catalogueTools(30, 0)))
			}
			assert.Equal(t, rankings(t, free), rankings(t, bounded))
			for _, sp := range bounded.postings.bySeg {
				assert.LessOrEqual(t, len(sp.terms), bc.maxTerms)
				sizes := 0
				for _, tp := range sp.terms {
					for _, p := range tp.fields {
						sizes += len(p)
					}
				}
				for _, p := range sp.leadPairs {
					sizes += len(p)
				}
				assert.Equal(t, sp.size, sizes, "the size counts the postings held")
				assert.LessOrEqual(t, sp.size, max(bc.maxPostings, 30), "at most one term past the bound")
			}
		})
	}
}
