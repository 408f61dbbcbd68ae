package toolsearch

import (
	"context"
	"fmt"
	"testing"

	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestLevel(t *testing.T) {
	const f = mergeFactor
	for size, want := range map[int]int{1: 0, f - 1: 0, f: 1, f*f - 1: 1, f * f: 2, f*f*f - 1: 2, f * f * f: 3, f*f*f*f*f + 1: 5} {
		assert.Equal(t, want, level(size), "level(%d)", size)
	}
}

func TestSegmentsMergeFullLevels(t *testing.T) {
	s := newSegments()
	doc := func(id string) *document { return &document{id: id, hash: "h"} }
	for i := range mergeFactor - 1 {
		s.indexed([]*document{doc(fmt.Sprintf("d%02d", i))})
	}
	assert.Nil(t, s.nextMerge(), "mergeFactor-1 segments of level 0 do not fill it")
	s.indexed([]*document{doc(fmt.Sprintf("d%02d", mergeFactor-1))})
	merge := s.nextMerge()
	require.Len(t, merge, mergeFactor)
	assert.Equal(t, "d00", merge[0].id, "merges come in ID order")
	s.indexed(merge)
	assert.Len(t, s.all, 1)

	// Updating a document moves it to the new segment; removing the
	// others empties and forgets the old one.
	s.indexed([]*document{doc("d01")})
	assert.Len(t, s.all, 2)
	var others []string
	for _, d := range merge {
		if d.id != "d01" {
			others = append(others, d.id)
		}
	}
	s.removed(others)
	assert.Len(t, s.all, 1)
	assert.Len(t, s.docs, 1)
	assert.Nil(t, s.nextMerge())
}

// maxSegments is the most segments an in-memory index of n documents
// keeps: mergeFactor-1 per level.
func maxSegments(n int) int { return (mergeFactor - 1) * (level(n) + 1) }

func TestInMemoryIndexStaysCompact(t *testing.T) {
	s, err := New()
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := context.Background()

	const n = 200
	for i := range n {
		require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool("ns", fmt.Sprintf("tool_%03d", i), "word")}))
		live := bleveSegments(t, s)
		require.Equal(t, len(s.segs.all), live, "after %d upserts", i+1)
		require.LessOrEqual(t, live, maxSegments(i+1), "after %d upserts", i+1)
	}
	// Updating tools one at a time keeps the index as compact.
	for i := range n {
		require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool("ns", fmt.Sprintf("tool_%03d", i), "updated")}))
	}
	assert.LessOrEqual(t, bleveSegments(t, s), maxSegments(n))
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "updated", Limit: n + 1})
	require.NoError(t, err)
	assert.Len(t, hits, n)
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "word", Limit: 1})
	require.NoError(t, err)
	assert.Empty(t, hits)

	// Removing tools one at a time too.
	for i := range n - 1 {
		require.NoError(t, s.Remove(ctx, []string{fmt.Sprintf("ns:tool_%03d", i)}))
	}
	assert.Equal(t, 1, bleveSegments(t, s))
}

// bleveSegments returns the number of segments bleve holds.
func bleveSegments(t *testing.T, s *Searcher) int {
	t.Helper()
	adv, err := s.idx.Advanced()
	require.NoError(t, err)
	r, err := adv.Reader()
	require.NoError(t, err)
	defer r.Close()
	snap, ok := r.(*scorch.IndexSnapshot)
	require.True(t, ok)
	return len(snap.Segments())
}

func TestUnchangedUpsertIsSkipped(t *testing.T) {
	for name, opts := range map[string][]Option{
		"Memory": nil,
		"Disk":   {WithPath(t.TempDir())},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := New(opts...)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			ctx := context.Background()
			tools := []toolmodel.Tool{tool("a", "one", "first"), tool("a", "two", "second")}
			require.NoError(t, s.Upsert(ctx, tools))
			before := updates(t, s)

			// Metadata is not searched: changing it changes nothing.
			tools[0].Metadata = map[string]any{"owner": "someone"}
			require.NoError(t, s.Upsert(ctx, tools))
			assert.Equal(t, before, updates(t, s))

			tools[1].Description = "changed"
			require.NoError(t, s.Upsert(ctx, tools))
			assert.Equal(t, before+1, updates(t, s), "only the changed tool is re-indexed")
		})
	}
}

// updates returns the number of documents bleve has indexed.
func updates(t *testing.T, s *Searcher) uint64 {
	t.Helper()
	adv, err := s.idx.Advanced()
	require.NoError(t, err)
	n, ok := adv.StatsMap()["TotUpdates"].(uint64)
	require.True(t, ok)
	return n
}
