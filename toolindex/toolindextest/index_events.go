package toolindextest

// Checks of change events, Refresh, contexts and concurrent use.

import (
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// checkOnChange checks the events of changes, their versions, and that
// unsubscribing (twice) stops them.
func checkOnChange(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	events := record(t, idx)
	var second []toolindex.ChangeEvent
	stop := idx.OnChange(func(ev toolindex.ChangeEvent) { second = append(second, ev) })
	require.NoError(t, idx.Register(ctx, reg(issueTool, issuesLocal)))
	require.NoError(t, idx.Register(ctx, reg(issueTool, githubMCP)))
	stop()
	stop()
	_, err := idx.UnregisterBackend(ctx, issuesLocal.Identity())
	require.NoError(t, err)
	want := []toolindex.ChangeEvent{
		{Kind: toolindex.ToolRegistered, ToolID: issueTool.ID(), Backend: issuesLocal.Identity(), Version: 1},
		{Kind: toolindex.BackendAdded, ToolID: issueTool.ID(), Backend: githubMCP.Identity(), Version: 2},
		{Kind: toolindex.BackendRemoved, ToolID: issueTool.ID(), Backend: issuesLocal.Identity(), Version: 3},
	}
	assert.Equal(t, want, events())
	assert.Equal(t, want[:2], second, "no event after unsubscribe")
}

// checkOnChangeCallsBack checks that a subscriber may read the index and
// make a change, whose events follow.
func checkOnChangeCallsBack(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	events := record(t, idx)
	var seen []string
	t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
		// Reads see the change; a change made here is delivered
		// after this call returns.
		if _, _, err := idx.GetAll(ctx, ev.ToolID); err == nil {
			seen = append(seen, ev.ToolID)
		}
		if ev.ToolID == issueTool.ID() {
			assert.NoError(t, idx.Register(ctx, reg(weatherTool, issuesLocal)))
		}
	}))
	require.NoError(t, idx.Register(ctx, reg(issueTool, issuesLocal)))
	assert.Equal(t, []string{issueTool.ID(), weatherTool.ID()}, seen)
	assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolRegistered, toolindex.ToolRegistered}, kinds(events()))
	assert.Equal(t, uint64(2), idx.Version())
}

// checkRefresh checks that Refresh without sources emits one Refreshed
// event and keeps the tools.
func checkRefresh(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, issuesLocal))
	events := record(t, idx)
	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.Refreshed, Version: 2}}, events())
	_, _, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err, "a refresh without sources keeps registered tools")
}

// checkCanceledContext checks that a done context makes every change fail
// with the context's error and change nothing.
func checkCanceledContext(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	require.ErrorIs(t, idx.Register(canceled, reg(issueTool, issuesLocal)), context.Canceled)
	require.ErrorIs(t, idx.RegisterMany(canceled, []toolindex.Registration{reg(issueTool, issuesLocal)}), context.Canceled)
	_, err := idx.Search(canceled, toolindex.SearchRequest{Query: "issue"})
	require.ErrorIs(t, err, context.Canceled)
	_, err = idx.UnregisterBackend(canceled, issuesLocal.Identity())
	require.ErrorIs(t, err, context.Canceled)
	require.ErrorIs(t, idx.Refresh(canceled), context.Canceled)
	assert.Zero(t, idx.Version(), "a canceled change changes nothing")
}

// checkConcurrent checks registrations, searches, listings, lookups and
// removals from several goroutines at once, and that events arrive in
// version order.
func checkConcurrent(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	var mu sync.Mutex
	var versions []uint64
	t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
		mu.Lock()
		versions = append(versions, ev.Version)
		mu.Unlock()
	}))
	// Workers report their first error; require may only stop the
	// test from its own goroutine.
	failures := make([]error, 4)
	var wg sync.WaitGroup
	for w := range failures {
		wg.Go(func() {
			failures[w] = func() error {
				b := LocalBackend(fmt.Sprintf("worker%d", w))
				for i := range 20 {
					tool := NewTool(fmt.Sprintf("w%d", w), fmt.Sprintf("tool%d", i), "concurrent probe")
					if err := idx.Register(ctx, reg(tool, b)); err != nil {
						return err
					}
					if _, err := idx.Search(ctx, toolindex.SearchRequest{Query: "probe"}); err != nil {
						return err
					}
					if _, err := idx.List(ctx, toolindex.ListRequest{Namespace: fmt.Sprintf("w%d", (w+1)%4)}); err != nil {
						return err
					}
					if _, _, err := idx.GetAll(ctx, tool.ID()); err != nil {
						return err
					}
				}
				if w%2 == 0 {
					_, err := idx.UnregisterBackend(ctx, b.Identity())
					return err
				}
				return nil
			}()
		})
	}
	wg.Wait()
	require.NoError(t, errors.Join(failures...))
	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "concurrent", Limit: toolindex.MaxPageSize})
	require.NoError(t, err)
	assert.Len(t, page.Items, 40, "the two workers that did not unregister keep their tools")
	assert.Equal(t, uint64(120), idx.Version())
	mu.Lock()
	defer mu.Unlock()
	require.Len(t, versions, 120)
	for i, v := range versions {
		assert.Equal(t, uint64(i+1), v, "events arrive in version order")
	}
}
