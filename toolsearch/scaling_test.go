package toolsearch_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolsearch"
)

// maxScaling is the most a query may take on a catalogue ten times as
// large, against the same query on the smaller one.
const maxScaling = 3

// TestSearchScales checks that a query on 10 000 tools takes at most
// maxScaling times as long as on 1 000 (the catalogues of evalCatalogue,
// the queries of the labelled datasets): a query reads the postings of
// its words, whose number grows with the catalogue, on top of a part that
// does not (analysing the query, looking its terms up, the lexical
// ranking's fixed costs), and the first must stay small.
//
// The machine it runs on may be busy with other work, so timings are
// compared, not checked against a bound: the two searchers answer each
// query in turn, alternately, several rounds, and the medians of the two
// sets of timings are compared; a burst of load slows a few timings of
// both, which the medians leave out.
func TestSearchScales(t *testing.T) {
	if testing.Short() {
		t.Skip("indexes 11 000 tools; run without -short")
	}
	if raceEnabled {
		t.Skip("the race detector's instrumentation weighs on every posting read, not on the fixed part")
	}
	ctx := context.Background()
	small, large := scalingSearcher(t, 1000), scalingSearcher(t, 10000)
	queries := evalQueries(t)
	if len(queries) > 400 {
		queries = queries[:400] // both datasets: evalQueries interleaves them
	}
	timeQuery := func(s *toolsearch.Searcher, q string) time.Duration {
		start := time.Now()
		_, err := s.Search(ctx, toolindex.SearchQuery{Text: q, Limit: 10})
		elapsed := time.Since(start)
		require.NoError(t, err)
		return elapsed
	}
	for _, q := range queries { // read each query's postings once first
		timeQuery(small, q)
		timeQuery(large, q)
	}
	var onSmall, onLarge []time.Duration
	for round := range 5 {
		for i, q := range queries {
			if (i+round)%2 == 0 {
				onSmall = append(onSmall, timeQuery(small, q))
				onLarge = append(onLarge, timeQuery(large, q))
			} else {
				onLarge = append(onLarge, timeQuery(large, q))
				onSmall = append(onSmall, timeQuery(small, q))
			}
		}
	}
	ratio := float64(median(onLarge)) / float64(median(onSmall))
	t.Logf("median query: %v on 1 000 tools, %v on 10 000: %.2f times as long", median(onSmall), median(onLarge), ratio)
	assert.LessOrEqual(t, ratio, float64(maxScaling))
}

func scalingSearcher(t *testing.T, n int) *toolsearch.Searcher {
	t.Helper()
	s := newSearcher(t)
	require.NoError(t, s.Upsert(context.Background(), evalCatalogue(t, n)))
	return s
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}
