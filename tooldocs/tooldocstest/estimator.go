package tooldocstest

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/tooldocs"
)

// estimatorSamples are texts of the kinds a Store prices.
var estimatorSamples = []string{
	"weather",
	"## github:create_issue — Create issue\nCreate a new issue in a repository.\nTags: github, issues\n",
	"`github:create_issue(owner: string, repo: string, title: string, body?: string, labels?: string[]) -> object`",
	`{"type":"object","properties":{"city":{"type":"string"},"days":{"type":"integer","default":3}},"required":["city"]}`,
	"天气预报 🙂 Größe",
	"    indented\n\n\tlines\r\n",
}

// RunEstimatorConformance checks that est keeps the contract of
// [tooldocs.TokenEstimator]: nothing costs nothing, no text costs a
// negative number of tokens, and estimates are deterministic, also when
// made concurrently.
func RunEstimatorConformance(t *testing.T, est tooldocs.TokenEstimator) {
	t.Helper()

	t.Run("empty text costs nothing", func(t *testing.T) {
		assert.Zero(t, est.EstimateTokens(""))
	})

	t.Run("estimates are positive and deterministic", func(t *testing.T) {
		for _, text := range estimatorSamples {
			n := est.EstimateTokens(text)
			assert.Positive(t, n, "EstimateTokens(%q)", text)
			assert.Equal(t, n, est.EstimateTokens(text), "EstimateTokens(%q) changed", text)
		}
	})

	t.Run("concurrent use", func(t *testing.T) {
		want := make([]int, len(estimatorSamples))
		for i, text := range estimatorSamples {
			want[i] = est.EstimateTokens(text)
		}
		got := make([][]int, 4)
		var wg sync.WaitGroup
		for g := range got {
			wg.Go(func() {
				got[g] = make([]int, len(estimatorSamples))
				for i, text := range estimatorSamples {
					got[g][i] = est.EstimateTokens(text)
				}
			})
		}
		wg.Wait()
		for _, g := range got {
			require.Equal(t, want, g)
		}
	})
}
