package toolsearch

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func tool(namespace, name, description string) toolmodel.Tool {
	return toolmodel.Tool{
		Tool:      mcp.Tool{Name: name, Description: description, InputSchema: map[string]any{"type": "object"}},
		Namespace: namespace,
	}
}

func TestIndexIsScorchWithBM25(t *testing.T) {
	for name, opts := range map[string][]Option{
		"Memory": nil,
		"Disk":   {WithPath(t.TempDir())},
	} {
		t.Run(name, func(t *testing.T) {
			s, err := New(opts...)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, s.Close()) })

			m, ok := s.idx.Mapping().(*mapping.IndexMappingImpl)
			require.True(t, ok)
			assert.Equal(t, index.BM25Scoring, m.ScoringModel)
			adv, err := s.idx.Advanced()
			require.NoError(t, err)
			assert.IsType(t, &scorch.Scorch{}, adv, "the index must be scorch: upsidedown has no BM25")

			// bleve reports the model it scored with in its explanations.
			require.NoError(t, s.Upsert(context.Background(), []toolmodel.Tool{tool("", "a", "alpha")}))
			q := bleve.NewMatchQuery("alpha")
			q.SetField(descriptionField)
			req := bleve.NewSearchRequest(q)
			req.Explain = true
			res, err := s.idx.Search(req)
			require.NoError(t, err)
			require.Len(t, res.Hits, 1)
			assert.Contains(t, res.Hits[0].Expl.String(), "as per bm25 model")
		})
	}
}

// TestScoresAreBM25 checks the scores of queries against the BM25
// formula, on documents where BM25 and tf-idf disagree: under tf-idf a
// word said once in a one-word field and four times in a four-word field
// scores the same (sqrt(tf)/sqrt(length) = 1); BM25 saturates the term
// frequency and ranks the short field first. The scores are also those
// bleve's own BM25 search gives.
func TestScoresAreBM25(t *testing.T) {
	const weight = 3
	s, err := New(WithWeights(Weights{Description: weight}))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		tool("", "a", "alpha"),
		tool("", "b", "alpha alpha alpha alpha"),
		tool("", "c", "alpha beta gamma delta"),
		tool("", "d", "omega"),
	}))
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "alpha", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 3)
	assert.Equal(t, []string{"a", "b", "c"}, []string{hits[0].ID, hits[1].ID, hits[2].ID})

	// The expected scores, with bleve's statistics: the average field
	// length is the field's distinct terms per document, rounded up, and
	// the term frequency is the square root of the count.
	adv, err := s.idx.Advanced()
	require.NoError(t, err)
	r, err := adv.Reader()
	require.NoError(t, err)
	defer r.Close()
	card, err := r.(index.BM25Reader).FieldCardinality(descriptionField)
	require.NoError(t, err)
	const n, df = 4.0, 3.0
	avg := math.Ceil(float64(card) / n)
	idf := math.Log(1 + (n-df+0.5)/(df+0.5))
	bm25 := func(count, length float64) float64 {
		tf := math.Sqrt(count)
		k1, b := search.BM25_k1, search.BM25_b
		return idf * tf * k1 / (tf + k1*(1-b+b*length/avg))
	}
	assert.InDelta(t, weight*bm25(1, 1), hits[0].Score, 1e-6)
	assert.InDelta(t, weight*bm25(4, 4), hits[1].Score, 1e-6)
	assert.InDelta(t, weight*bm25(1, 4), hits[2].Score, 1e-6)
	assert.Greater(t, hits[0].Score, hits[1].Score, "term frequency must saturate")

	// bleve's BM25 search of the term alone scores each tool the same,
	// but for the weight.
	q := bleve.NewTermQuery("alpha")
	q.SetField(descriptionField)
	res, err := s.idx.Search(bleve.NewSearchRequest(q))
	require.NoError(t, err)
	require.Len(t, res.Hits, 3)
	for _, h := range res.Hits {
		i := slices.IndexFunc(hits, func(hit toolindex.Hit) bool { return hit.ID == h.ID })
		require.GreaterOrEqual(t, i, 0, h.ID)
		assert.InDelta(t, weight*h.Score, hits[i].Score, 1e-6, h.ID)
	}

	// A tool holding one of two query words gets half its score.
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "alpha omega", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 4)
	i := slices.IndexFunc(hits, func(hit toolindex.Hit) bool { return hit.ID == "a" })
	require.GreaterOrEqual(t, i, 0)
	assert.InDelta(t, weight*bm25(1, 1)/2, hits[i].Score, 1e-6)
}
