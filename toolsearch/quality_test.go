package toolsearch_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// TestRetrievalQuality runs the evaluation of the default configuration on
// the labelled datasets of testdata/eval and fails when retrieval quality
// falls below the levels it is known to reach.
func TestRetrievalQuality(t *testing.T) {
	tests := []struct {
		dataset          string
		minRecall5       float64
		minNDCG10        float64
		wantTools, wantQ int
	}{
		{dataset: "mcp-reference", minRecall5: 0.68, minNDCG10: 0.64, wantTools: 45, wantQ: 47},
		{dataset: "metatool", minNDCG10: 0.50, wantTools: 199, wantQ: 2000},
	}
	for _, tt := range tests {
		t.Run(tt.dataset, func(t *testing.T) {
			ds, err := eval.Load(filepath.Join("testdata", "eval", tt.dataset))
			require.NoError(t, err)
			require.Empty(t, ds.Skipped)
			require.Empty(t, ds.UnknownReferences())

			r, err := eval.Run(context.Background(), ds, newSearcher(t))
			require.NoError(t, err)
			t.Logf("%s: Recall@1 %.4f Recall@5 %.4f Recall@10 %.4f MRR %.4f nDCG@10 %.4f",
				tt.dataset, r.Recall[1], r.Recall[5], r.Recall[10], r.MRR, r.NDCG10)
			assert.Equal(t, tt.wantTools, r.Tools)
			assert.Equal(t, tt.wantQ, r.Queries)
			assert.GreaterOrEqual(t, r.Recall[5], tt.minRecall5, "Recall@5")
			assert.GreaterOrEqual(t, r.NDCG10, tt.minNDCG10, "nDCG@10")
		})
	}
}
