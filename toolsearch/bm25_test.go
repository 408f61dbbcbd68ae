package toolsearch

import (
	"context"
	"math"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
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

// bm25F is the score of one query term, per the formula of rank: the
// frequencies of the fields, each weighted and normalised by its length
// relative to the field's average, are added up and saturated once.
func bm25F(idf, k1 float64, fields ...fieldFreq) float64 {
	freq := 0.0
	for _, f := range fields {
		freq += f.weight * f.count / (1 - f.b + f.b*f.length/f.avg)
	}
	return idf * freq * (k1 + 1) / (k1 + freq)
}

type fieldFreq struct{ weight, b, count, length, avg float64 }

func idfOf(n, df float64) float64 { return math.Log(1 + (n-df+0.5)/(df+0.5)) }

// TestScoresAreBM25F checks the scores of queries against the BM25F
// formula, with the true average length of each field.
func TestScoresAreBM25F(t *testing.T) {
	const weight, k1, b = 3.0, 1.2, 0.75
	// The BM25F ranking alone, without the lexical searcher's scores.
	s, err := New(WithWeights(Weights{Description: weight}), WithLexicalBlend(0))
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
	assert.Equal(t, []string{"b", "a", "c"}, []string{hits[0].ID, hits[1].ID, hits[2].ID})

	avg := (1 + 4 + 4 + 1) / 4.0 // words per description
	idf := idfOf(4, 3)
	desc := func(count, length float64) fieldFreq {
		return fieldFreq{weight: weight, b: b, count: count, length: length, avg: avg}
	}
	assert.InDelta(t, bm25F(idf, k1, desc(4, 4)), hits[0].Score, 1e-9)
	assert.InDelta(t, bm25F(idf, k1, desc(1, 1)), hits[1].Score, 1e-9)
	assert.InDelta(t, bm25F(idf, k1, desc(1, 4)), hits[2].Score, 1e-9)
	assert.Less(t, hits[0].Score, idf*(k1+1), "term frequency saturates")

	// A tool holding one of two query words scores that word alone,
	// scaled by the share of the query's idf it holds.
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "alpha omega", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 4)
	i := slices.IndexFunc(hits, func(hit toolindex.Hit) bool { return hit.ID == "d" })
	require.GreaterOrEqual(t, i, 0)
	core := defaultConfig().query.coreCoverage
	omega := idfOf(4, 1)
	scale := 1 - core + core*omega/(omega+idfOf(4, 3))
	assert.InDelta(t, scale*bm25F(omega, k1, desc(1, 1)), hits[i].Score, 1e-9)

	// The averages follow the catalogue: without b, the longest
	// description, 4 words, is left, and the idf changes with it.
	require.NoError(t, s.Remove(ctx, []string{"a", "d"}))
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "alpha", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	avg = 4
	idf = idfOf(2, 2)
	assert.InDelta(t, bm25F(idf, k1, desc(4, 4)), hits[0].Score, 1e-9)
	assert.InDelta(t, bm25F(idf, k1, desc(1, 4)), hits[1].Score, 1e-9)
}

// TestFieldsSaturateTogether checks that a term's frequencies in several
// fields are added before saturation, so that text repeated across fields
// adds less than the sum of its per-field scores, and that each field is
// normalised by its own average length.
func TestFieldsSaturateTogether(t *testing.T) {
	w := Weights{Name: 2, Description: 1, ParamDescriptions: 0.5}
	s, err := New(WithWeights(w), WithLexicalBlend(0))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := context.Background()
	withParam := tool("", "fetch", "fetch a page of the web")
	withParam.InputSchema = map[string]any{"type": "object", "properties": map[string]any{
		"url": map[string]any{"type": "string", "description": "the address to fetch"},
	}}
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{withParam, tool("", "other", "something else entirely")}))
	// Two words, so that no lookup by name applies; "it" is a stop word.
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "fetch it", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 1)

	// Words after analysis: names "fetch" and "other"; descriptions
	// "fetch page web" and "someth els entir"; parameter descriptions
	// "address fetch" and none.
	const k1, b = 1.2, 0.75
	idf := idfOf(2, 1)
	name := fieldFreq{weight: 2, b: b, count: 1, length: 1, avg: 1}
	desc := fieldFreq{weight: 1, b: b, count: 1, length: 3, avg: 3}
	param := fieldFreq{weight: 0.5, b: b, count: 1, length: 2, avg: 1}
	want := bm25F(idf, k1, name, desc, param)
	assert.InDelta(t, want, hits[0].Score, 1e-9)
	assert.Less(t, want, bm25F(idf, k1, name)+bm25F(idf, k1, desc)+bm25F(idf, k1, param))
}

// TestLeadAndDetailsAreTwoFields checks that the first paragraph of a
// description and the rest are scored as two fields, each with its
// weight and normalised by its own average length, and that a tool's
// score is scaled by the share of the query words' idf its core fields
// (the lead, not the details) hold.
func TestLeadAndDetailsAreTwoFields(t *testing.T) {
	w := Weights{Name: 1, Description: 1, Details: 0.25}
	s, err := New(WithWeights(w), WithLexicalBlend(0))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	ctx := context.Background()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		tool("", "a", "Fetch a web page.\n\nResponse fields:\n- page (string): the page fetched"),
		tool("", "b", "Fetch the weather of a city.\n- temp (number): the temperature"),
		tool("", "c", "Store a note."),
	}))
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "fetch page", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 2)
	require.Equal(t, "a", hits[0].ID)

	// Words after analysis: leads "fetch web page" (3), "fetch weather
	// citi" (3) and "store note" (2); details "respons field page
	// string page fetch" (6), "temp number temperatur" (3) and none.
	// No name holds two words, and the pairs of the leads weigh 0.
	const k1, b = 1.2, 0.75
	leadAvg, detailsAvg := 8.0/3, 9.0/3
	lead := func(count, length float64) fieldFreq {
		return fieldFreq{weight: 1, b: b, count: count, length: length, avg: leadAvg}
	}
	details := func(count, length float64) fieldFreq {
		return fieldFreq{weight: 0.25, b: b, count: count, length: length, avg: detailsAvg}
	}
	fetch, page := idfOf(3, 2), idfOf(3, 1)
	wantA := bm25F(fetch, k1, lead(1, 3), details(1, 6)) + bm25F(page, k1, lead(1, 3), details(2, 6))
	assert.InDelta(t, wantA, hits[0].Score, 1e-9, "both words in the lead: not scaled")
	core := defaultConfig().query.coreCoverage
	require.Positive(t, core)
	scale := 1 - core + core*fetch/(fetch+page)
	assert.InDelta(t, scale*bm25F(fetch, k1, lead(1, 3)), hits[1].Score, 1e-9)

	// A word found in the details only: the tool's core fields hold
	// none of the query.
	hits, err = s.Search(ctx, toolindex.SearchQuery{Text: "temperature", Limit: 10})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.InDelta(t, (1-core)*bm25F(idfOf(3, 1), k1, details(1, 3)), hits[0].Score, 1e-9)
}

// TestLengthsSurviveReopening checks that an index reopened from disk
// scores as it did before it was closed: the field lengths it normalises
// with are read back from the index. The pairs of the leads, kept in
// memory, are back once the tools are upserted again.
func TestLengthsSurviveReopening(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	tools := []toolmodel.Tool{
		tool("fs", "read_file", "Read the complete contents of a file from the file system."),
		tool("fs", "write_file", "Create a new file or overwrite an existing one."),
		tool("git", "git_log", "Show the commit log of a repository."),
		tool("web", "fetch", "Fetch a URL and return its content as markdown."),
	}
	query := toolindex.SearchQuery{Text: "read a file's content", Limit: 10}

	// Without the lexical searcher's scores and the pairs of the leads:
	// they are in memory, and hold the tools upserted since the Searcher
	// was opened.
	noLeadPairs := DefaultWeights()
	noLeadPairs.LeadPairs = 0
	opts := []Option{WithPath(dir), WithLexicalBlend(0), WithWeights(noLeadPairs)}
	s, err := New(opts...)
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, tools))
	require.NoError(t, s.Remove(ctx, []string{"git:git_log"}))
	before, err := s.Search(ctx, query)
	require.NoError(t, err)
	require.NoError(t, s.Close())

	s, err = New(opts...)
	require.NoError(t, err)
	after, err := s.Search(ctx, query)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	assertSameHits(t, before, after)

	// With them: the same once the tools are upserted again.
	dir = t.TempDir()
	s, err = New(WithPath(dir))
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, tools))
	before, err = s.Search(ctx, query)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	s, err = New(WithPath(dir))
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, s.Close()) })
	_, err = s.Search(ctx, query) // cache what the segments hold before the pairs are known
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, tools))
	after, err = s.Search(ctx, query)
	require.NoError(t, err)
	assertSameHits(t, before, after)
}

// assertSameHits checks that two rankings hold the same tools in the same
// order with the same scores.
func assertSameHits(t *testing.T, want, got []toolindex.Hit) {
	t.Helper()
	require.Len(t, got, len(want))
	for i := range want {
		assert.Equal(t, want[i].ID, got[i].ID)
		assert.InDelta(t, want[i].Score, got[i].Score, 1e-9, want[i].ID)
	}
}
