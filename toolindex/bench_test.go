package toolindex_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/metatools-go/metatools/toolindex"
)

// benchQueries are typical requests of an agent looking for a tool.
var benchQueries = []string{
	"create issue",
	"send a message to a slack channel",
	"list pull requests",
	"download file from bucket",
	"approve payment invoice stripe",
}

// BenchmarkRegister measures registering one new tool into an index that
// already holds 1000.
func BenchmarkRegister(b *testing.B) {
	ctx := context.Background()
	idx := toolindex.New()
	backend := localBackend("bench")
	for _, tool := range synthCatalogue(1000) {
		if err := idx.Register(ctx, reg(tool, backend)); err != nil {
			b.Fatal(err)
		}
	}
	tool := newTool("bench", "tool", "Send a benchmark message to a channel.", "channel", "text")
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		tool.Name = fmt.Sprintf("tool_%d", i)
		i++
		if err := idx.Register(ctx, reg(tool, backend)); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkRegisterMany measures loading a whole catalogue in one batch.
func BenchmarkRegisterMany(b *testing.B) {
	ctx := context.Background()
	backend := localBackend("bench")
	var regs []toolindex.Registration
	for _, tool := range synthCatalogue(1000) {
		regs = append(regs, reg(tool, backend))
	}
	b.ReportAllocs()
	for b.Loop() {
		if err := toolindex.New().RegisterMany(ctx, regs); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearch measures the lexical searcher alone on synthetic
// catalogues of growing size; the cost should grow with the number of
// matching tools, not with the catalogue.
func BenchmarkSearch(b *testing.B) {
	benchSearcher(b, func(i int) string { return benchQueries[i%len(benchQueries)] })
}

// BenchmarkSearchRare measures a query whose words are in few tools: it
// should cost almost nothing whatever the catalogue size.
func BenchmarkSearchRare(b *testing.B) {
	benchSearcher(b, func(int) string { return "pagerduty incident" })
}

// benchSearcher runs the i-th query on a lexical searcher holding
// synthetic catalogues of 1000 and 10000 tools.
func benchSearcher(b *testing.B, query func(i int) string) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			ctx := context.Background()
			s := toolindex.NewLexicalSearcher()
			if err := s.Upsert(ctx, synthCatalogue(n)); err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := s.Search(ctx, toolindex.SearchQuery{Text: query(i), Limit: 20}); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkIndexSearch measures a search through the index: the searcher
// plus cursors and summaries.
func BenchmarkIndexSearch(b *testing.B) {
	ctx := context.Background()
	idx := loadedIndex(b, 10000)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		req := toolindex.SearchRequest{Query: benchQueries[i%len(benchQueries)], Limit: 20}
		i++
		if _, err := idx.Search(ctx, req); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkGetAll measures looking a tool up with its backends.
func BenchmarkGetAll(b *testing.B) {
	ctx := context.Background()
	idx := loadedIndex(b, 10000)
	b.ReportAllocs()
	for b.Loop() {
		if _, _, err := idx.GetAll(ctx, "slack:send_message"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList measures a page of a listing from a cursor.
func BenchmarkList(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			ctx := context.Background()
			idx := loadedIndex(b, n)
			first, err := idx.List(ctx, toolindex.ListRequest{Namespace: "slack"})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			for b.Loop() {
				if _, err := idx.List(ctx, toolindex.ListRequest{Namespace: "slack", Cursor: first.NextCursor}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func loadedIndex(b *testing.B, n int) *toolindex.MemoryIndex {
	b.Helper()
	var regs []toolindex.Registration
	for _, tool := range synthCatalogue(n) {
		regs = append(regs, reg(tool, mcpBackend(tool.Namespace)))
	}
	idx := toolindex.New()
	if err := idx.RegisterMany(context.Background(), regs); err != nil {
		b.Fatal(err)
	}
	return idx
}
