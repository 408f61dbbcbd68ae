package toolsearch_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// benchQueries returns the natural-language queries of mcp-reference.
func benchQueries(b *testing.B) []string {
	b.Helper()
	ds, err := eval.Load(filepath.Join("testdata", "eval", "mcp-reference"))
	require.NoError(b, err)
	queries := make([]string, len(ds.Queries))
	for i, q := range ds.Queries {
		queries[i] = q.Text
	}
	return queries
}

// builtSearcher returns a Searcher holding the synthetic catalogue of n
// tools.
func builtSearcher(b *testing.B, n int) (*toolsearch.Searcher, []toolmodel.Tool) {
	b.Helper()
	tools := syntheticCatalogue(b, n)
	s := newSearcher(b)
	require.NoError(b, s.Upsert(context.Background(), tools))
	return s, tools
}

// BenchmarkSearch measures one query, top 10, on catalogues of growing
// size.
func BenchmarkSearch(b *testing.B) {
	queries := benchQueries(b)
	for _, n := range []int{1000, 10000, 100000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			if n > 10000 && testing.Short() {
				b.Skip("building 100000 tools takes long; run without -short")
			}
			s, _ := builtSearcher(b, n)
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			i := 0
			for b.Loop() {
				_, err := s.Search(ctx, toolindex.SearchQuery{Text: queries[i%len(queries)], Limit: 10})
				if err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
	// Catalogues built from the evaluation catalogues, queried with the
	// labelled queries of both datasets.
	evalQs := evalQueries(b)
	for _, n := range []int{500, 4000} {
		b.Run(fmt.Sprintf("eval/tools=%d", n), func(b *testing.B) {
			s := newSearcher(b)
			require.NoError(b, s.Upsert(context.Background(), evalCatalogue(b, n)))
			benchmarkQueries(b, s, evalQs)
		})
	}
	// What the optional parts of the ranking cost a query.
	noLeadPairs := toolsearch.DefaultWeights()
	noLeadPairs.LeadPairs = 0
	for _, bc := range []struct {
		name string
		opts []toolsearch.Option
	}{
		{name: "blend=0", opts: []toolsearch.Option{toolsearch.WithLexicalBlend(0)}},
		{name: "lead-pairs=0", opts: []toolsearch.Option{toolsearch.WithWeights(noLeadPairs)}},
	} {
		b.Run("eval/tools=4000/"+bc.name, func(b *testing.B) {
			s := newSearcher(b, bc.opts...)
			require.NoError(b, s.Upsert(context.Background(), evalCatalogue(b, 4000)))
			benchmarkQueries(b, s, evalQs)
		})
	}
	// Long queries of two words repeated, on 1000 tools: the cost must
	// grow linearly with the query's length, not with its square.
	b.Run("longquery", func(b *testing.B) {
		s, _ := builtSearcher(b, 1000)
		ctx := context.Background()
		for _, words := range []int{16, 1000, 16000, 200000} {
			b.Run(fmt.Sprintf("words=%d", words), func(b *testing.B) {
				text := strings.Repeat("read file ", words/2)
				b.ReportAllocs()
				for b.Loop() {
					if _, err := s.Search(ctx, toolindex.SearchQuery{Text: text, Limit: 5}); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	})
}

// benchmarkQueries runs the queries in turn on s, top 10, and reports
// the median and 99th percentile of one query's time besides the mean.
func benchmarkQueries(b *testing.B, s *toolsearch.Searcher, queries []string) {
	ctx := context.Background()
	var latencies []time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		start := time.Now()
		_, err := s.Search(ctx, toolindex.SearchQuery{Text: queries[i%len(queries)], Limit: 10})
		latencies = append(latencies, time.Since(start))
		if err != nil {
			b.Fatal(err)
		}
		i++
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(latencies[len(latencies)*99/100].Nanoseconds()), "p99-ns")
}

// BenchmarkUpsert measures changing one tool of a catalogue.
func BenchmarkUpsert(b *testing.B) {
	const n = 10000
	b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
		s, tools := builtSearcher(b, n)
		ctx := context.Background()
		b.ReportAllocs()
		b.ResetTimer()
		i := 0
		for b.Loop() {
			t := tools[(i*7919)%n] // spread the changes over the catalogue
			t.Description = fmt.Sprintf("%s (revision %d)", t.Description, i)
			if err := s.Upsert(ctx, []toolmodel.Tool{t}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkUpsertSearch measures adding one tool to a catalogue built
// from the evaluation catalogues and running a query: what a catalogue
// that changes under an agent costs it.
func BenchmarkUpsertSearch(b *testing.B) {
	const n = 4000
	b.Run(fmt.Sprintf("eval/tools=%d", n), func(b *testing.B) {
		tools := evalCatalogue(b, n)
		s := newSearcher(b)
		ctx := context.Background()
		require.NoError(b, s.Upsert(ctx, tools))
		queries := evalQueries(b)
		b.ReportAllocs()
		i := 0
		for b.Loop() {
			t := tools[(i*7919)%n].Clone()
			t.Namespace = fmt.Sprintf("added-%d", i)
			if err := s.Upsert(ctx, []toolmodel.Tool{t}); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Search(ctx, toolindex.SearchQuery{Text: queries[i%len(queries)], Limit: 10}); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
}

// BenchmarkBuild measures indexing a whole catalogue into a new Searcher,
// with the default weights and without the pairs of the leads, whose
// indexing costs most.
func BenchmarkBuild(b *testing.B) {
	const n = 10000
	noLeadPairs := toolsearch.DefaultWeights()
	noLeadPairs.LeadPairs = 0
	for _, bc := range []struct {
		name string
		opts []toolsearch.Option
	}{
		{name: fmt.Sprintf("tools=%d", n)},
		{name: fmt.Sprintf("tools=%d/lead-pairs=0", n), opts: []toolsearch.Option{toolsearch.WithWeights(noLeadPairs)}},
	} {
		b.Run(bc.name, func(b *testing.B) { benchmarkBuild(b, syntheticCatalogue(b, n), bc.opts) })
	}
	b.Run("eval/tools=4000", func(b *testing.B) { benchmarkBuild(b, evalCatalogue(b, 4000), nil) })
	b.Run("eval/tools=4000/lead-pairs=0", func(b *testing.B) {
		benchmarkBuild(b, evalCatalogue(b, 4000), []toolsearch.Option{toolsearch.WithWeights(noLeadPairs)})
	})
}

func benchmarkBuild(b *testing.B, tools []toolmodel.Tool, opts []toolsearch.Option) {
	ctx := context.Background()
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		s, err := toolsearch.New(opts...)
		if err != nil {
			b.Fatal(err)
		}
		if err := s.Upsert(ctx, tools); err != nil {
			b.Fatal(err)
		}
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
