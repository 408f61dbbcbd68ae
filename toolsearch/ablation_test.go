package toolsearch

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// lengthenSeed fixes the extra text of the long variants of the datasets.
const lengthenSeed = 1

// extraParams are the lengths of the dataset variants the ablation
// measures: the tools as they are, and with that many extra documented
// parameters and return fields (see eval.Lengthen).
var extraParams = []int{0, 8, 32}

// datasetVariant loads a dataset of testdata/eval, lengthened with extra
// parameters and return fields taken from the tools of testdata/livemcp.
func datasetVariant(tb testing.TB, name string, extra int) *eval.Dataset {
	tb.Helper()
	ds, err := eval.Load(filepath.Join("testdata", "eval", name))
	require.NoError(tb, err)
	donors, err := eval.Load(filepath.Join("testdata", "livemcp"))
	require.NoError(tb, err)
	long, err := eval.Lengthen(ds, donors.Tools, extra, lengthenSeed)
	require.NoError(tb, err)
	return long
}

// ablationConfigs are the configurations BenchmarkAblation compares: the
// default, and each scoring component changed or left out.
func ablationConfigs() []struct {
	name string
	opts []Option
} {
	withWeights := func(change func(*Weights)) Option {
		w := DefaultWeights()
		change(&w)
		return WithWeights(w)
	}
	lengthNorm := func(b float64) Option {
		return func(c *config) {
			c.lengthNorm = map[string]float64{descriptionField: b, detailsField: b, paramNamesField: b, paramDescriptionField: b}
		}
	}
	bs := func(m map[string]float64) Option {
		return func(c *config) { c.lengthNorm = m }
	}
	return []struct {
		name string
		opts []Option
	}{
		{name: "default"},
		{name: "fusion", opts: []Option{WithFusion(true)}},
		{name: "fusion-bm25x3", opts: []Option{WithFusion(true), func(c *config) { c.fusionWeight = 3 }}},
		{name: "coverage-terms", opts: []Option{func(c *config) { c.coverage = coverageTerms }}},
		{name: "coverage-idf", opts: []Option{func(c *config) { c.coverage = coverageIDF }}},
		{name: "k1=2", opts: []Option{func(c *config) { c.k1 = 2 }}},
		{name: "weights-of-bleve-bm25", opts: []Option{WithWeights(Weights{Name: 2, Namespace: 1, Tags: 2, Title: 2, Description: 1, Details: 1, ParamNames: 0.5, ParamDescriptions: 0.25})}},
		{name: "flat-weights", opts: []Option{WithWeights(Weights{Name: 1, Namespace: 1, Tags: 1, Title: 1, Description: 1, Details: 1, ParamNames: 1, ParamDescriptions: 1})}},
		{name: "no-params", opts: []Option{withWeights(func(w *Weights) { w.ParamNames, w.ParamDescriptions = 0, 0 })}},
		{name: "no-param-descriptions", opts: []Option{withWeights(func(w *Weights) { w.ParamDescriptions = 0 })}},
		{name: "long-fields-b=0.3", opts: []Option{lengthNorm(0.3)}},
		{name: "long-fields-b=1", opts: []Option{lengthNorm(1)}},
		{name: "no-stemming", opts: []Option{func(c *config) { c.stem = false }}},
		{name: "feedback", opts: []Option{WithFeedback(DefaultFeedback())}},
		{name: "feedback-5-docs", opts: []Option{WithFeedback(Feedback{Docs: 5, Terms: 10, QueryWeight: 0.7})}},
		{name: "feedback-20-terms-0.5", opts: []Option{WithFeedback(Feedback{Docs: 3, Terms: 20, QueryWeight: 0.5})}},
		{name: "feedback-query-0.9", opts: []Option{WithFeedback(Feedback{Docs: 3, Terms: 10, QueryWeight: 0.9})}},
		{name: "no-agent-nouns", opts: []Option{func(c *config) { c.query.agentScale = 0 }}},
		{name: "agent-nouns-1", opts: []Option{func(c *config) { c.query.agentScale = 1 }}},
		{name: "no-name-pairs", opts: []Option{func(c *config) { c.query.pairWeight = 0 }}},
		{name: "name-pairs-1", opts: []Option{func(c *config) { c.query.pairWeight = 1 }}},
		{name: "name-pairs-adjacent", opts: []Option{func(c *config) { c.query.pairWindow = 1 }}},
		{name: "no-lead-pairs", opts: []Option{withWeights(func(w *Weights) { w.LeadPairs = 0 })}},
		{name: "lead-pairs-1", opts: []Option{withWeights(func(w *Weights) { w.LeadPairs = 1 })}},
		{name: "lead-pairs-span-2", opts: []Option{func(c *config) { c.query.leadPairSpan = 2 }}},
		{name: "lead-pairs-0.3", opts: []Option{withWeights(func(w *Weights) { w.LeadPairs = 0.3 })}},
		{name: "lead-pairs-span-8", opts: []Option{func(c *config) { c.query.leadPairSpan = 8 }}},
		{name: "neither", opts: []Option{func(c *config) { c.query.agentScale, c.query.pairWeight = 0, 0 }}},
		{name: "synonyms-0.5", opts: []Option{func(c *config) { c.query.synonymScale = 0.5 }}},
		{name: "synonyms-1", opts: []Option{func(c *config) { c.query.synonymScale = 1 }}},
		{name: "synonyms-0.5-short-fields", opts: []Option{func(c *config) { c.query.synonymScale, c.query.synonymsShortFields = 0.5, true }}},
		{name: "query-tf-k3", opts: []Option{func(c *config) { c.query.qtfK = 3 }}},
		{name: "k1=0.9", opts: []Option{func(c *config) { c.k1 = 0.9 }}},
		{name: "k1=1.5", opts: []Option{func(c *config) { c.k1 = 1.5 }}},
		{name: "short-fields-b=0.3", opts: []Option{bs(map[string]float64{nameField: 0.3, titleField: 0.3, namespaceField: 0.3, tagsField: 0.3})}},
		{name: "description-b=0.5", opts: []Option{bs(map[string]float64{descriptionField: 0.5})}},
		{name: "description-b=0.9", opts: []Option{bs(map[string]float64{descriptionField: 0.9})}},
		{name: "name=3", opts: []Option{withWeights(func(w *Weights) { w.Name = 3 })}},
		{name: "name=7", opts: []Option{withWeights(func(w *Weights) { w.Name = 7 })}},
		{name: "description=1.5", opts: []Option{withWeights(func(w *Weights) { w.Description = 1.5 })}},
		{name: "whole-description", opts: []Option{func(c *config) { c.wholeDescription = true }}},
		{name: "previous-default", opts: []Option{WithLexicalBlend(0), func(c *config) { c.wholeDescription, c.query.coreCoverage = true, 0 }, withWeights(func(w *Weights) { w.ParamNames, w.ParamDescriptions, w.LeadPairs = 0.3, 0.1, 0 })}},
		{name: "params-0.3-0.1", opts: []Option{withWeights(func(w *Weights) { w.ParamNames, w.ParamDescriptions = 0.3, 0.1 })}},
		{name: "details=1", opts: []Option{withWeights(func(w *Weights) { w.Details = 1 })}},
		{name: "details=0.5", opts: []Option{withWeights(func(w *Weights) { w.Details = 0.5 })}},
		{name: "details=0.1", opts: []Option{withWeights(func(w *Weights) { w.Details = 0.1 })}},
		{name: "details=0.1-params-0.1-0.03", opts: []Option{withWeights(func(w *Weights) { w.Details, w.ParamNames, w.ParamDescriptions = 0.1, 0.1, 0.03 })}},
		{name: "no-core-coverage", opts: []Option{func(c *config) { c.query.coreCoverage = 0 }}},
		{name: "core-coverage-0.2", opts: []Option{func(c *config) { c.query.coreCoverage = 0.2 }}},
		{name: "core-coverage-0.5", opts: []Option{func(c *config) { c.query.coreCoverage = 0.5 }}},
		{name: "no-lexical-blend", opts: []Option{WithLexicalBlend(0)}},
		{name: "lexical-blend-0.1", opts: []Option{WithLexicalBlend(0.1)}},
		{name: "lexical-blend-0.25", opts: []Option{WithLexicalBlend(0.25)}},
		{name: "lead-only", opts: []Option{WithLexicalBlend(0), func(c *config) { c.query.coreCoverage = 0 }, withWeights(func(w *Weights) { w.LeadPairs = 0 })}},
		{name: "porter-stemmer", opts: []Option{func(c *config) { c.stemmer = "stemmer_porter" }}},
		{name: "plural-stemmer", opts: []Option{func(c *config) { c.stemmer = "stemmer_en_plural" }}},
	}
}

// BenchmarkAblation measures the retrieval quality of each configuration
// of ablationConfigs, and of toolindex's lexical searcher, on the labelled
// datasets and their long variants, and reports it as the metrics
// ndcg@10, R@1 and MRR; the time per operation is that of one query. Run
// it with
//
//	go test -run '^$' -bench Ablation -benchtime 1x ./toolsearch
func BenchmarkAblation(b *testing.B) {
	for _, name := range []string{"mcp-reference", "metatool"} {
		for _, extra := range extraParams {
			ds := datasetVariant(b, name, extra)
			searchers := []struct {
				name string
				new  func(b *testing.B) toolindex.Searcher
			}{{name: "lexical", new: func(*testing.B) toolindex.Searcher { return toolindex.NewLexicalSearcher() }}}
			for _, c := range ablationConfigs() {
				searchers = append(searchers, struct {
					name string
					new  func(b *testing.B) toolindex.Searcher
				}{name: c.name, new: func(b *testing.B) toolindex.Searcher {
					s, err := New(c.opts...)
					require.NoError(b, err)
					b.Cleanup(func() { require.NoError(b, s.Close()) })
					return s
				}})
			}
			for _, sc := range searchers {
				b.Run(fmt.Sprintf("data=%s/extra=%d/config=%s", name, extra, sc.name), func(b *testing.B) {
					s := sc.new(b)
					r, err := eval.Run(context.Background(), ds, s)
					require.NoError(b, err)
					ctx := context.Background()
					i := 0
					for b.Loop() {
						if _, err := s.Search(ctx, toolindex.SearchQuery{Text: ds.Queries[i%len(ds.Queries)].Text, Limit: 10}); err != nil {
							b.Fatal(err)
						}
						i++
					}
					b.ReportMetric(r.NDCG10, "ndcg@10")
					b.ReportMetric(r.Recall[1], "R@1")
					b.ReportMetric(r.MRR, "MRR")
				})
			}
		}
	}
}
