package toolsearch

import (
	"context"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestFuse(t *testing.T) {
	bm25 := []toolindex.Hit{{ID: "a", Score: 9}, {ID: "b", Score: 5}, {ID: "c", Score: 1}}
	lexical := []toolindex.Hit{{ID: "c", Score: 3}, {ID: "b", Score: 2}, {ID: "d", Score: 1}}
	got := fuse(3, weightedRanking{hits: bm25, weight: 1}, weightedRanking{hits: lexical, weight: 1})
	rrf := func(ranks ...int) float64 {
		s := 0.0
		for _, r := range ranks {
			s += 1 / float64(fusionK+r)
		}
		return s
	}
	// c, first and third, edges out b, second in both; a, first in one
	// ranking only, follows.
	assert.Equal(t, []toolindex.Hit{
		{ID: "c", Score: rrf(3, 1)},
		{ID: "b", Score: rrf(2, 2)},
		{ID: "a", Score: rrf(1)},
	}, got)

	weighted := fuse(10, weightedRanking{hits: bm25, weight: 3}, weightedRanking{hits: lexical, weight: 1})
	require.Len(t, weighted, 4)
	assert.Equal(t, []toolindex.Hit{
		{ID: "b", Score: 3*rrf(2) + rrf(2)},
		{ID: "c", Score: 3*rrf(3) + rrf(1)},
		{ID: "a", Score: 3 * rrf(1)},
		{ID: "d", Score: rrf(3)},
	}, weighted)

	tied := fuse(10, weightedRanking{hits: []toolindex.Hit{{ID: "x", Score: 2}, {ID: "y", Score: 1}, {ID: "z", Score: 1}}, weight: 1})
	assert.Equal(t, []toolindex.Hit{{ID: "x", Score: rrf(1)}, {ID: "y", Score: rrf(2)}, {ID: "z", Score: rrf(2)}}, tied, "equal scores share a rank")
	assert.Empty(t, fuse(5))
}

// TestFusionFollowsChanges checks that the lexical side of a fused
// searcher sees the same upserts and removals as the BM25F side.
func TestFusionFollowsChanges(t *testing.T) {
	s, err := New(WithFusion(true))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		tool("fs", "read_file", "Read a file."),
		tool("fs", "write_file", "Write a file."),
	}))
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "read file", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	assert.Equal(t, "fs:read_file", hits[0].ID)
	assert.InDelta(t, 2/float64(fusionK+1), hits[0].Score, 1e-12, "first in both rankings")

	require.NoError(t, s.Remove(ctx, []string{"fs:read_file"}))
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "read file", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, toolindex.Hit{ID: "fs:write_file", Score: 2 / float64(fusionK+1)}, hits[0])
}

func TestBlend(t *testing.T) {
	bm25 := []toolindex.Hit{{ID: "a", Score: 8}, {ID: "b", Score: 6}, {ID: "c", Score: 2}}
	lexical := []toolindex.Hit{{ID: "b", Score: 4}, {ID: "d", Score: 2}, {ID: "a", Score: 1}}
	got := blend(3, bm25, lexical, 0.5)
	assert.Equal(t, []toolindex.Hit{
		{ID: "b", Score: 6.0/8 + 0.5*4/4},
		{ID: "a", Score: 1 + 0.5*1/4},
		{ID: "c", Score: 2.0 / 8},
	}, got, "d, in the lexical ranking only, scores 0.25 too and ties c: IDs break ties")

	assert.Equal(t, bm25[:2], blend(2, bm25, nil, 0.5), "nothing to blend")
	assert.Empty(t, blend(2, nil, lexical, 0.5), "the BM25F ranking decides what matches")
}

// TestLexicalBlendScores checks a default Searcher's scores: its BM25F
// score over the best one, plus DefaultLexicalBlend times the lexical
// searcher's score over its best.
func TestLexicalBlendScores(t *testing.T) {
	ctx := context.Background()
	tools := []toolmodel.Tool{
		tool("fs", "read_file", "Read the complete contents of a file."),
		tool("fs", "write_file", "Create a new file or overwrite an existing one."),
		tool("git", "git_log", "Show the commit log of a repository."),
		tool("web", "fetch", "Fetch a URL and return its content."),
	}
	query := toolindex.SearchQuery{Text: "read the contents of a file", Limit: 10}
	search := func(s toolindex.Searcher) map[string]float64 {
		require.NoError(t, s.Upsert(ctx, tools))
		hits, err := s.Search(ctx, query)
		require.NoError(t, err)
		require.NotEmpty(t, hits)
		out := map[string]float64{}
		for _, h := range hits {
			out[h.ID] = h.Score / hits[0].Score
		}
		return out
	}
	bm25 := search(newTestSearcher(t, WithLexicalBlend(0)))
	lexical := search(toolindex.NewLexicalSearcher())
	s := newTestSearcher(t)
	require.NoError(t, s.Upsert(ctx, tools))
	hits, err := s.Search(ctx, query)
	require.NoError(t, err)
	require.Len(t, hits, len(bm25))
	for _, h := range hits {
		assert.InDelta(t, bm25[h.ID]+DefaultLexicalBlend*lexical[h.ID], h.Score, 1e-9, h.ID)
	}
}

func TestLexicalBlendWeightIsChecked(t *testing.T) {
	for _, w := range []float64{-0.1, math.NaN(), math.Inf(1)} {
		_, err := New(WithLexicalBlend(w))
		assert.ErrorIs(t, err, errors.ErrInvalidArgument, "%v", w)
	}
}

// TestBlendPageDoesNotDependOnDepth checks that reading the BM25F ranking
// only as deep as the lexical blend can reach loses nothing: the first
// 10 hits of a search for 10 are those of a search for 50, which reads
// both rankings 50 deep.
func TestBlendPageDoesNotDependOnDepth(t *testing.T) {
	ds := datasetVariant(t, "mcp-reference", 8)
	s := newTestSearcher(t)
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, ds.Tools))
	for _, q := range ds.Queries {
		page, err := s.Search(ctx, toolindex.SearchQuery{Text: q.Text, Limit: 10})
		require.NoError(t, err)
		deep, err := s.Search(ctx, toolindex.SearchQuery{Text: q.Text, Limit: 50})
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(deep), len(page))
		assert.Equal(t, deep[:len(page)], page, q.ID)
	}
}
