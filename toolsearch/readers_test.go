package toolsearch_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolindex/toolindextest"
)

// BenchmarkLookupDuringRegistration measures what a reader of the index
// pays while a catalogue is being indexed: a toolindex index backed by a
// Searcher registers the 527 tools of testdata/livemcp in one
// RegisterMany, while another goroutine looks a registered tool up with
// Index.Get over and over, as the first step of every tool call does. One
// op is one such registration into a new index. The metrics are the
// slowest and the median lookup over every op (max-lookup-ns,
// p50-lookup-ns) and the number of lookups made during one registration
// (lookups/op). A lookup that waited for the bleve batch shows as a
// max-lookup-ns close to the whole registration's time.
func BenchmarkLookupDuringRegistration(b *testing.B) {
	ctx := context.Background()
	tools := syntheticCatalogue(b, 527)
	regs := make([]toolindex.Registration, len(tools))
	for i := range tools {
		regs[i] = toolindex.Registration{Tool: tools[i], Backend: toolindextest.LocalBackend("livemcp")}
	}
	probe := toolindex.Registration{
		Tool:    toolindextest.NewTool("probe", "ping", "Answer a ping."),
		Backend: toolindextest.LocalBackend("probe"),
	}
	var latencies []time.Duration
	for b.Loop() {
		idx := toolindex.New(toolindex.WithSearcher(newSearcher(b)))
		if err := idx.Register(ctx, probe); err != nil {
			b.Fatal(err)
		}
		got, err := lookupsDuring(ctx, idx, probe.Tool.ID(), func() error { return idx.RegisterMany(ctx, regs) })
		if err != nil {
			b.Fatal(err)
		}
		latencies = append(latencies, got...)
	}
	if len(latencies) == 0 {
		b.Fatal("no lookup ran during the registrations")
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)-1].Nanoseconds()), "max-lookup-ns")
	b.ReportMetric(float64(latencies[len(latencies)/2].Nanoseconds()), "p50-lookup-ns")
	b.ReportMetric(float64(len(latencies))/float64(b.N), "lookups/op")
}

// lookupsDuring runs change while another goroutine gets tool id from idx
// again and again, from before change starts until it has returned, and
// returns how long each of those lookups took.
func lookupsDuring(ctx context.Context, idx toolindex.Index, id string, change func() error) ([]time.Duration, error) {
	var (
		latencies []time.Duration
		lookupErr error
		wg        sync.WaitGroup
	)
	started, done := make(chan struct{}), make(chan struct{})
	wg.Go(func() {
		for first := true; ; first = false {
			begin := time.Now()
			_, _, err := idx.Get(ctx, id)
			latencies = append(latencies, time.Since(begin))
			if err != nil {
				lookupErr = err
			}
			if first {
				close(started)
			}
			select {
			case <-done:
				return
			default:
			}
		}
	})
	<-started
	err := change()
	close(done)
	wg.Wait()
	if err == nil {
		err = lookupErr
	}
	return latencies, err
}
