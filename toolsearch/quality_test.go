package toolsearch

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// TestRetrievalQuality runs the evaluation of the default configuration on
// the labelled datasets of testdata/eval, and on their long,
// parameter-heavy variants (see datasetVariant), and fails when retrieval
// quality falls below the levels it is known to reach, or below that of
// toolindex's lexical searcher.
//
// The floors of the datasets as they are sit above the figures of the
// BM25 scoring this package had before BM25F (nDCG@10 0.690 on
// mcp-reference, 0.545 on MetaTool). On the variant of mcp-reference with
// 32 extra parameters the default configuration falls short of the
// lexical searcher (0.498 against 0.501, less than one query of 47), and
// so does the fused one ([WithFusion], 0.496): that variant is held to
// its floor only. The floors of the other variants sit at or above the
// figures of the scoring before agent nouns and name pairs (0.574, 0.493,
// 0.506 and 0.476 on mcp-reference +8 and +32 and MetaTool +8 and +32).
func TestRetrievalQuality(t *testing.T) {
	tests := []struct {
		dataset          string
		extra            int
		minRecall5       float64
		minNDCG10        float64
		lexicalAhead     bool // the lexical searcher does better
		wantTools, wantQ int
	}{
		{dataset: "mcp-reference", minRecall5: 0.74, minNDCG10: 0.70, wantTools: 45, wantQ: 47},
		{dataset: "mcp-reference", extra: 8, minNDCG10: 0.58, wantTools: 45, wantQ: 47},
		{dataset: "mcp-reference", extra: 32, minNDCG10: 0.497, lexicalAhead: true, wantTools: 45, wantQ: 47},
		{dataset: "metatool", minNDCG10: 0.564, wantTools: 199, wantQ: 2000},
		{dataset: "metatool", extra: 8, minNDCG10: 0.51, wantTools: 199, wantQ: 2000},
		{dataset: "metatool", extra: 32, minNDCG10: 0.477, wantTools: 199, wantQ: 2000},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%s/extra=%d", tt.dataset, tt.extra), func(t *testing.T) {
			t.Parallel()
			ds := datasetVariant(t, tt.dataset, tt.extra)
			require.Empty(t, ds.Skipped)
			require.Empty(t, ds.UnknownReferences())
			run := func(s toolindex.Searcher) eval.Report {
				r, err := eval.Run(context.Background(), ds, s)
				require.NoError(t, err)
				return r
			}

			r := run(newTestSearcher(t))
			t.Logf("Recall@1 %.4f Recall@5 %.4f Recall@10 %.4f MRR %.4f nDCG@10 %.4f",
				r.Recall[1], r.Recall[5], r.Recall[10], r.MRR, r.NDCG10)
			assert.Equal(t, tt.wantTools, r.Tools)
			assert.Equal(t, tt.wantQ, r.Queries)
			assert.GreaterOrEqual(t, r.Recall[5], tt.minRecall5, "Recall@5")
			assert.GreaterOrEqual(t, r.NDCG10, tt.minNDCG10, "nDCG@10")

			if !tt.lexicalAhead {
				lexical := run(toolindex.NewLexicalSearcher())
				assert.GreaterOrEqual(t, r.NDCG10, lexical.NDCG10, "nDCG@10 against the lexical searcher")
			}
		})
	}
}

// newTestSearcher returns a Searcher closed at the end of the test.
func newTestSearcher(t *testing.T, opts ...Option) *Searcher {
	t.Helper()
	s, err := New(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	return s
}
