package toolsearch_test

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolindex/toolindextest"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

// lookupPace is the interval between two lookups of the benchmark below:
// often enough to catch any wait on the indexing, rarely enough that the
// reader does not take a core from the indexing on a small machine.
const lookupPace = 100 * time.Microsecond

// BenchmarkLookupDuringRegistration measures what a reader of the index
// pays while a catalogue is being indexed: a toolindex index backed by a
// Searcher registers the 527 tools of testdata/livemcp in one
// RegisterMany, while another goroutine looks a registered tool up with
// Index.GetAll every 100 µs, as the first step of every tool call does. One
// op is one such registration into a new index. The metrics, over every
// op:
//
//   - max-lookup-ns and p50-lookup-ns: the slowest and the median lookup
//     made during the registrations;
//   - answered-in-upsert/op: the lookups that began and ended while the
//     Searcher's Upsert ran (none when lookups wait for the indexing);
//   - upsert-ns/op: how long the Searcher's Upsert took.
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
	var (
		latencies []time.Duration
		inUpsert  int
		upserting time.Duration
	)
	for b.Loop() {
		s := &timedSearcher{Searcher: newSearcher(b)}
		idx := toolindex.New(toolindex.WithSearcher(s))
		if err := idx.Register(ctx, probe); err != nil {
			b.Fatal(err)
		}
		lookups, err := lookupsDuring(ctx, idx, probe.Tool.ID(), func() error { return idx.RegisterMany(ctx, regs) })
		if err != nil {
			b.Fatal(err)
		}
		start, end := s.window()
		upserting += end.Sub(start)
		for _, l := range lookups {
			latencies = append(latencies, l.end.Sub(l.begin))
			if !l.begin.Before(start) && !l.end.After(end) {
				inUpsert++
			}
		}
	}
	if len(latencies) == 0 {
		b.Fatal("no lookup ran during the registrations")
	}
	slices.Sort(latencies)
	b.ReportMetric(float64(latencies[len(latencies)-1].Nanoseconds()), "max-lookup-ns")
	b.ReportMetric(float64(latencies[len(latencies)/2].Nanoseconds()), "p50-lookup-ns")
	b.ReportMetric(float64(inUpsert)/float64(b.N), "answered-in-upsert/op")
	b.ReportMetric(float64(upserting.Nanoseconds())/float64(b.N), "upsert-ns/op")
}

// timedSearcher is a Searcher that records when its last Upsert began and
// ended.
type timedSearcher struct {
	*toolsearch.Searcher

	mu         sync.Mutex
	start, end time.Time
}

func (s *timedSearcher) Upsert(ctx context.Context, tools []toolmodel.Tool) error {
	start := time.Now()
	err := s.Searcher.Upsert(ctx, tools)
	end := time.Now()
	s.mu.Lock()
	s.start, s.end = start, end
	s.mu.Unlock()
	return err
}

// window returns when the last Upsert began and ended.
func (s *timedSearcher) window() (start, end time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.start, s.end
}

// lookup is when one lookup began and ended.
type lookup struct{ begin, end time.Time }

// lookupsDuring runs change while another goroutine gets tool id from idx
// every lookupPace, from before change starts until it has returned, and
// returns when each of those lookups began and ended.
func lookupsDuring(ctx context.Context, idx toolindex.Index, id string, change func() error) ([]lookup, error) {
	var (
		lookups   []lookup
		lookupErr error
		wg        sync.WaitGroup
	)
	started, done := make(chan struct{}), make(chan struct{})
	wg.Go(func() {
		tick := time.NewTicker(lookupPace)
		defer tick.Stop()
		for first := true; ; first = false {
			begin := time.Now()
			_, _, err := idx.GetAll(ctx, id)
			lookups = append(lookups, lookup{begin, time.Now()})
			if err != nil && lookupErr == nil {
				lookupErr = err
			}
			if first {
				close(started)
			}
			select {
			case <-done:
				return
			case <-tick.C:
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
	return lookups, err
}
