package trust_test

import (
	"fmt"
	"testing"

	"github.com/metatools-go/metatools/toolserver/trust"
)

// benchItems returns n tools built from the evaluation catalogues,
// repeated under other upstream names as needed.
func benchItems(b *testing.B, n int) []trust.Item {
	b.Helper()
	var base []trust.Item
	for _, cat := range evalCatalogues {
		base = append(base, loadCatalogue(b, cat)...)
	}
	out := make([]trust.Item, 0, n)
	for i := 0; len(out) < n; i++ {
		it := base[i%len(base)]
		if round := i / len(base); round > 0 {
			it.Upstream = fmt.Sprintf("%s-%d", it.Upstream, round)
			it.Namespace = it.Upstream
		}
		out = append(out, it)
	}
	return out
}

// BenchmarkScan scans whole catalogues (all texts and schemas of every
// tool, names checked against the tools before it); one operation is one
// catalogue.
func BenchmarkScan(b *testing.B) {
	s := newScanner(b)
	for _, n := range []int{1000, 4000} {
		items := benchItems(b, n)
		var bytes int64
		for i := range items {
			bytes += int64(len(items[i].Description) + len(items[i].InputSchema) + len(items[i].OutputSchema))
		}
		b.Run(fmt.Sprintf("tools=%d", n), func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(bytes)
			for b.Loop() {
				names := trust.NewNames()
				for i := range items {
					_ = s.Scan(&items[i])
					_ = s.ScanName(names, &items[i])
					names.AddItem(&items[i])
				}
			}
		})
	}
}
