package toolindextest

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
)

// RunIndexConformance checks that the indexes newIndex returns keep the
// contract of [toolindex.Index]. newIndex is called once per subtest and
// must return an empty index without sources; subtests run in parallel, so
// it must be safe to call concurrently.
//
// It checks registration (validation, copies, updates, no-op
// re-registration, backends from several sources, conflicts and Replace,
// atomic batches, MCP tools/list results), unregistration, Get and GetAll
// with hints, listings with filters and keyset cursors that survive
// unrelated changes, namespaces, search with paging, change events
// (order, versions, unsubscribe, calls back into the index from a
// subscriber), Refresh, context handling, and concurrent use.
func RunIndexConformance(t *testing.T, newIndex func(t *testing.T) toolindex.Index) {
	t.Helper()
	setup := func(t *testing.T, regs ...toolindex.Registration) toolindex.Index {
		t.Helper()
		idx := newIndex(t)
		require.NotNil(t, idx, "newIndex returned nil")
		if len(regs) > 0 {
			require.NoError(t, idx.RegisterMany(context.Background(), regs))
		}
		return idx
	}
	for _, check := range indexChecks {
		t.Run(check.name, func(t *testing.T) {
			t.Parallel()
			check.run(t, setup)
		})
	}
}

// indexChecks are the subtests of [RunIndexConformance], in the order
// they run.
var indexChecks = []struct {
	name string
	run  func(*testing.T, setupFunc)
}{
	// Registration, lookups and unregistration (index_register.go).
	{"RegisterAndGet", checkRegisterAndGet},
	{"GetUnknown", checkGetUnknown},
	{"RegisterValidates", checkRegisterValidates},
	{"RegisterCopiesInput", checkRegisterCopiesInput},
	{"ResultsAreCopies", checkResultsAreCopies},
	{"IdenticalRegistrationIsNoop", checkIdenticalRegistrationIsNoop},
	{"SameSourceUpdates", checkSameSourceUpdates},
	{"BackendsFromSeveralSources", checkBackendsFromSeveralSources},
	{"ConflictAndReplace", checkConflictAndReplace},
	{"RegisterManyIsAtomic", checkRegisterManyIsAtomic},
	{"UnregisterBackend", checkUnregisterBackend},
	// Listings, cursors and namespaces (index_list.go).
	{"ListOrderFiltersAndPages", checkListOrderFiltersAndPages},
	{"ListPageSizes", checkListPageSizes},
	{"ListCursorSurvivesUnrelatedChanges", checkListCursorSurvivesUnrelatedChanges},
	{"BadCursors", checkBadCursors},
	{"Namespaces", checkNamespaces},
	// Search (index_search.go).
	{"Search", checkSearch},
	{"SearchPages", checkSearchPages},
	// Events, Refresh, contexts and concurrency (index_events.go).
	{"OnChange", checkOnChange},
	{"OnChangeCallsBack", checkOnChangeCallsBack},
	{"Refresh", checkRefresh},
	{"CanceledContext", checkCanceledContext},
	{"Concurrent", checkConcurrent},
}

// setupFunc returns a new index of the implementation under test, holding
// regs (registered in one RegisterMany).
type setupFunc func(t *testing.T, regs ...toolindex.Registration) toolindex.Index

// The fixtures the checks share. A check that changes one works on a copy,
// and gives a copy's slices and maps new values rather than writing into
// the shared ones.
var (
	issueTool   = NewTool("github", "create_issue", "Open a new ticket in a repository.", "owner", "repo", "title")
	weatherTool = NewTool("", "get_weather", "Current conditions for a city.", "city")
	issuesLocal = LocalBackend("issues")
	githubMCP   = MCPBackend("github")
	exampleAPI  = HTTPBackend("https://api.example.com")
)

// record subscribes to idx until the end of the test, and returns a
// function that returns the events seen so far.
func record(t *testing.T, idx toolindex.Index) func() []toolindex.ChangeEvent {
	t.Helper()
	var mu sync.Mutex
	var events []toolindex.ChangeEvent
	t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
		mu.Lock()
		events = append(events, ev)
		mu.Unlock()
	}))
	return func() []toolindex.ChangeEvent {
		mu.Lock()
		defer mu.Unlock()
		return append([]toolindex.ChangeEvent(nil), events...)
	}
}

// kinds returns the kinds of events, in order.
func kinds(events []toolindex.ChangeEvent) []toolindex.ChangeKind {
	out := make([]toolindex.ChangeKind, len(events))
	for i, ev := range events {
		out[i] = ev.Kind
	}
	return out
}
