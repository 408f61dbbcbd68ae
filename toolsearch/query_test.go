package toolsearch

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

func TestAgentNoun(t *testing.T) {
	for term, want := range map[string]string{
		"find":  "finder",
		"write": "writer",
		"read":  "reader",
		"go":    "", // too short to be a verb
		"user":  "", // already an agent noun
	} {
		assert.Equal(t, want, agentNoun(term), term)
	}
}

func TestNamePairs(t *testing.T) {
	s := newTestSearcher(t)
	tests := []struct {
		name string
		want string
	}{
		{name: "create_issue", want: "creat_issu"},
		{name: "issue-create", want: "creat_issu"},
		{name: "fetch", want: ""},
		// A split identifier is kept whole too, at the position of its
		// first part.
		{name: "listDirectoryWithSizes", want: "directori_listdirectorywiths directori_list listdirectorywiths_size list_size directori_size"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, s.namePairs(tt.name), tt.name)
	}
}

func TestLeadPairs(t *testing.T) {
	s := newTestSearcher(t)
	require.Equal(t, 4, s.query.leadPairSpan)
	// Words at most 4 apart, stop words not counted, each pair once.
	assert.Equal(t, "air_get get_qualiti forecast_get get_zip air_qualiti air_forecast air_zip air_code forecast_qualiti qualiti_zip code_qualiti forecast_zip code_forecast code_zip",
		strings.Join(leadPairKeys(s, "Get the air quality forecast for a zip code."), " "))
	assert.Empty(t, s.leadPairSet("Weather."))
	set := s.leadPairSet("Get the air quality forecast for a zip code.")
	assert.Len(t, set, 14)
	assert.True(t, slices.IsSorted(set))
	assert.True(t, set.contains(pairHash("air_qualiti")))
	assert.False(t, set.contains(pairHash("air_weather")))

	// A lead of thousands of words forms a bounded number of pairs.
	var long strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&long, "word%c%c ", 'a'+i%26, 'a'+i/26%26)
	}
	assert.Len(t, s.leadPairSet(long.String()), maxLeadPairs)

	// The set holds the pairs pairs forms, on the leads of the labelled
	// datasets.
	for _, name := range []string{"mcp-reference", "metatool"} {
		ds, err := eval.Load(filepath.Join("testdata", "eval", name))
		require.NoError(t, err)
		for i := range ds.Tools {
			lead, _ := splitLead(ds.Tools[i].Description)
			var want pairSet
			for _, k := range leadPairKeys(s, lead) {
				want = append(want, pairHash(k))
			}
			slices.Sort(want)
			assert.Equal(t, slices.Compact(want), s.leadPairSet(lead), lead)
		}
	}

	w := DefaultWeights()
	w.LeadPairs = 0
	off := newTestSearcher(t, WithWeights(w))
	assert.Empty(t, off.leadPairSet("Get the air quality forecast."), "no pairs are kept when they weigh nothing")
}

// leadPairKeys returns the keys of the pairs of words of lead that
// leadPairSet holds, formed by pairs: the reference it is checked
// against.
func leadPairKeys(s *Searcher, lead string) []string {
	return pairs(tokenGroups(s.analyzer.Analyze([]byte(lead))), s.query.leadPairSpan, maxLeadPairs)
}

// TestQueryLeadPairs checks the score a pair of query words adds when a
// tool's description lead holds both near each other: pairWeight × the
// pair's BM25 score with the lead-pairs field's weight, neither
// length-normalised nor counted more than once.
func TestQueryLeadPairs(t *testing.T) {
	const k1 = 1.2
	c := defaultConfig().query
	leadPairs := DefaultWeights().LeadPairs
	require.Positive(t, leadPairs)
	tools := []toolmodel.Tool{
		tool("", "forecast", "Air quality forecast for a city."),
		tool("", "weather", "Air pressure, wind speed, humidity, rain and snow quality of a city."),
		tool("", "maps", "Maps of a city."),
	}
	ctx := context.Background()
	scores := func(opts ...Option) map[string]float64 {
		s := newTestSearcher(t, append([]Option{WithLexicalBlend(0)}, opts...)...)
		require.NoError(t, s.Upsert(ctx, tools))
		hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "quality of the air", Limit: 10})
		require.NoError(t, err)
		out := map[string]float64{}
		for _, h := range hits {
			out[h.ID] = h.Score
		}
		return out
	}
	with := scores(WithWeights(Weights{Description: 1, LeadPairs: leadPairs}))
	without := scores(WithWeights(Weights{Description: 1}))
	pair := c.pairWeight * bm25F(idfOf(3, 1), k1, fieldFreq{weight: leadPairs, b: 0, count: 1, length: 1, avg: 1})
	assert.InDelta(t, without["forecast"]+pair, with["forecast"], 1e-9, "air and quality are next to each other")
	assert.InDelta(t, without["weather"], with["weather"], 1e-9, "air and quality are 7 words apart")
	assert.Greater(t, with["forecast"], with["weather"])
}

// TestQueryPairsAndAgentNouns checks the scores of the terms a query
// gains against the BM25F formula: a pair of query words that a name
// holds both of adds pairWeight × its idf (the pair field is neither
// weighted nor length-normalised, and a pair occurs once), and an agent
// noun counts as an occurrence of its verb, scaled by agentScale.
func TestQueryPairsAndAgentNouns(t *testing.T) {
	const k1, b = 1.2, 0.75
	c := defaultConfig().query
	require.Positive(t, c.pairWeight)
	require.Positive(t, c.agentScale)
	s := newTestSearcher(t, WithWeights(Weights{Name: 1}), WithLexicalBlend(0))
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		tool("", "create_issue", "x"),
		tool("", "create_label", "x"),
		tool("", "close_issue", "x"),
		tool("", "file_finder", "x"),
	}))
	scores := func(q string) map[string]float64 {
		hits, err := s.Search(ctx, toolindex.SearchQuery{Text: q, Limit: 10})
		require.NoError(t, err)
		out := map[string]float64{}
		for _, h := range hits {
			out[h.ID] = h.Score
		}
		return out
	}
	name := func(count, scale float64) fieldFreq {
		return fieldFreq{weight: scale, b: b, count: count, length: 2, avg: 2} // every name has two words
	}

	got := scores("issue create")
	word := bm25F(idfOf(4, 2), k1, name(1, 1))
	pair := c.pairWeight * bm25F(idfOf(4, 1), k1, fieldFreq{weight: 1, b: 0, count: 1, length: 1, avg: 1})
	assert.InDelta(t, 2*word+pair, got["create_issue"], 1e-9)
	// A name holding one of two words of equal idf: its score is
	// scaled by the share of the query's idf its core fields hold.
	half := 1 - c.coreCoverage + c.coreCoverage/2
	assert.InDelta(t, half*word, got["create_label"], 1e-9)
	assert.InDelta(t, half*word, got["close_issue"], 1e-9)

	got = scores("find a file")
	assert.InDelta(t,
		bm25F(idfOf(4, 1), k1, name(1, 1))+bm25F(idfOf(4, 1), k1, name(1, c.agentScale)),
		got["file_finder"], 1e-9, "file, and finder for find; the pair (file, finder) is not the query's (file, find)")
}
