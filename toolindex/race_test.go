package toolindex_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// TestConcurrentHammer runs registrations, unregistrations, searches,
// listings, lookups and subscriptions at once; under -race it checks the
// locking, and afterwards that events came in version order, that every
// subscriber saw a gapless run of versions, and that the index and its
// searcher agree.
func TestConcurrentHammer(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	var mu sync.Mutex
	var all []uint64
	t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
		mu.Lock()
		all = append(all, ev.Version)
		mu.Unlock()
		// Reading from a subscriber must not deadlock.
		_, _, _ = idx.GetAll(ctx, ev.ToolID)
	}))

	const workers, rounds = 6, 40
	var subscriptionsOK atomic.Int32
	// step does round i of worker w. Workers report their first error;
	// require may only stop the test from its own goroutine.
	step := func(w, i int) error {
		ns := fmt.Sprintf("ns%d", w%3)
		backend := localBackend(fmt.Sprintf("w%d-%d", w, i%4))
		tool := newTool(ns, fmt.Sprintf("tool_%d_%d", w, i), "hammer probe "+ns)
		if err := idx.Register(ctx, reg(tool, backend)); err != nil {
			return err
		}
		switch i % 5 {
		case 0:
			_, err := idx.UnregisterBackend(ctx, backend.Identity())
			return err
		case 1:
			page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "hammer probe", Namespace: ns, Limit: 5})
			if err != nil || page.NextCursor == "" {
				return err
			}
			_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "hammer probe", Namespace: ns, Limit: 5, Cursor: page.NextCursor})
			return err
		case 2:
			page, err := idx.List(ctx, toolindex.ListRequest{Namespace: ns, Limit: 3})
			if err != nil || page.NextCursor == "" {
				return err
			}
			_, err = idx.List(ctx, toolindex.ListRequest{Namespace: ns, Limit: 3, Cursor: page.NextCursor})
			return err
		case 3:
			// A short-lived subscriber must see consecutive versions. A
			// call may still run on another goroutine after stop returns,
			// hence the lock.
			var subMu sync.Mutex
			var last uint64
			gapless := true
			stop := idx.OnChange(func(ev toolindex.ChangeEvent) {
				subMu.Lock()
				defer subMu.Unlock()
				if last != 0 && ev.Version != last+1 {
					gapless = false
				}
				last = ev.Version
			})
			err := idx.Register(ctx, reg(newTool(ns, fmt.Sprintf("extra_%d_%d", w, i), "extra"), backend))
			stop()
			subMu.Lock()
			if gapless {
				subscriptionsOK.Add(1)
			}
			subMu.Unlock()
			return err
		default:
			if _, _, err := idx.GetAll(ctx, tool.ID()); err != nil {
				return err
			}
			_, err := idx.Namespaces(ctx)
			return err
		}
	}
	failures := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range rounds {
				if failures[w] = step(w, i); failures[w] != nil {
					return
				}
			}
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(failures...))

	assert.Equal(t, int32(workers*rounds/5), subscriptionsOK.Load())
	mu.Lock()
	for i, v := range all {
		require.Equal(t, uint64(i+1), v, "events are delivered in version order")
	}
	assert.Equal(t, idx.Version(), uint64(len(all)))
	mu.Unlock()

	// The searcher agrees with the index: every listed tool with the
	// probe words is found, and nothing else.
	var listed []string
	req := toolindex.ListRequest{Limit: toolindex.MaxPageSize}
	for {
		page, err := idx.List(ctx, req)
		require.NoError(t, err)
		for _, s := range page.Items {
			if s.Description != "extra" {
				listed = append(listed, s.ID)
			}
		}
		if page.NextCursor == "" {
			break
		}
		req.Cursor = page.NextCursor
	}
	var found []string
	sreq := toolindex.SearchRequest{Query: "hammer", Limit: toolindex.MaxPageSize}
	for {
		page, err := idx.Search(ctx, sreq)
		require.NoError(t, err)
		found = append(found, ids(page.Items)...)
		if page.NextCursor == "" {
			break
		}
		sreq.Cursor = page.NextCursor
	}
	assert.ElementsMatch(t, listed, found)
	assert.NotEmpty(t, found)
}
