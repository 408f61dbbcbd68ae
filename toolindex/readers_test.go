package toolindex_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// gatedSearcher is a LexicalSearcher whose next Upsert or Remove, once
// armed with hold, does its work and then stops until released, as a
// slow search engine would while it indexes: the index is then in the
// middle of a change, with the searcher already changed.
type gatedSearcher struct {
	*toolindex.LexicalSearcher

	mu   sync.Mutex
	gate *searcherGate // nil: calls pass through
}

// searcherGate holds one call of the searcher: entered is closed when the
// call has done its work, and the call returns once release is closed.
type searcherGate struct {
	entered chan struct{}
	release chan struct{}
}

var _ toolindex.Searcher = (*gatedSearcher)(nil)

// hold arms the gate for the next Upsert or Remove.
func (g *gatedSearcher) hold() *searcherGate {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.gate = &searcherGate{entered: make(chan struct{}), release: make(chan struct{})}
	return g.gate
}

// wait stops the calling change at the armed gate, if any.
func (g *gatedSearcher) wait() {
	g.mu.Lock()
	gate := g.gate
	g.gate = nil
	g.mu.Unlock()
	if gate != nil {
		close(gate.entered)
		<-gate.release
	}
}

func (g *gatedSearcher) Upsert(ctx context.Context, tools []toolmodel.Tool) error {
	err := g.LexicalSearcher.Upsert(ctx, tools)
	g.wait()
	return err
}

func (g *gatedSearcher) Remove(ctx context.Context, ids []string) error {
	err := g.LexicalSearcher.Remove(ctx, ids)
	g.wait()
	return err
}

// readerWatchdog bounds how long the test waits for reads that should
// not wait at all: it is reached only when a read is blocked behind the
// held change (which is held until the reads end, so such a read would
// never finish), and turns that deadlock into a failure with a message.
const readerWatchdog = 30 * time.Second

// TestReadersDoNotWaitForTheSearcher holds a change while its searcher
// indexes, and checks that every read of the index answers meanwhile,
// from the index as it was before the change, and that Search never
// returns a tool GetAll cannot find: the searcher already knows the change,
// the index does not show it yet.
func TestReadersDoNotWaitForTheSearcher(t *testing.T) {
	ctx := context.Background()
	probe := newTool("probe", "ping", "Answer a ping.")
	gone := newTool("old", "retire", "Retire an obsolete gadget.")
	fresh := []toolmodel.Tool{
		newTool("fresh", "alpha", "Brand new widget maker."),
		newTool("fresh", "beta", "Brand new widget breaker."),
	}
	tests := []struct {
		name   string
		change func(toolindex.Index) error
		// during checks the index while the change is held, from another
		// goroutine than the test's: it returns what went wrong.
		during func(toolindex.Index) []string
		after  func(*testing.T, toolindex.Index)
	}{
		{
			name: "registration",
			change: func(idx toolindex.Index) error {
				return idx.RegisterMany(ctx, []toolindex.Registration{reg(fresh[0], localBackend("fresh")), reg(fresh[1], localBackend("fresh"))})
			},
			during: func(idx toolindex.Index) []string {
				var problems []string
				if _, _, err := idx.GetAll(ctx, fresh[0].ID()); !errors.Is(err, errors.ErrNotFound) {
					problems = append(problems, "a tool being indexed is visible before its registration returns")
				}
				if found := searchIDs(ctx, idx, "brand new widget"); len(found) != 0 {
					problems = append(problems, "Search returned tools GetAll cannot find yet")
				}
				return problems
			},
			after: func(t *testing.T, idx toolindex.Index) {
				for _, tool := range fresh {
					_, _, err := idx.GetAll(ctx, tool.ID())
					require.NoError(t, err, "a registered tool is visible once the registration returns")
				}
				assert.ElementsMatch(t, []string{fresh[0].ID(), fresh[1].ID()}, searchIDs(ctx, idx, "brand new widget"))
			},
		},
		{
			name: "removal",
			change: func(idx toolindex.Index) error {
				old := localBackend("old")
				_, err := idx.UnregisterBackend(ctx, old.Identity())
				return err
			},
			during: func(idx toolindex.Index) []string {
				var problems []string
				if _, _, err := idx.GetAll(ctx, gone.ID()); err != nil {
					problems = append(problems, "a tool being removed is gone before its removal returns")
				}
				if found := searchIDs(ctx, idx, "obsolete gadget"); len(found) != 0 {
					problems = append(problems, "Search returned a tool its searcher no longer holds")
				}
				return problems
			},
			after: func(t *testing.T, idx toolindex.Index) {
				_, _, err := idx.GetAll(ctx, gone.ID())
				require.ErrorIs(t, err, errors.ErrNotFound)
				assert.Empty(t, searchIDs(ctx, idx, "obsolete gadget"))
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			searcher := &gatedSearcher{LexicalSearcher: toolindex.NewLexicalSearcher()}
			idx := toolindex.New(toolindex.WithSearcher(searcher))
			require.NoError(t, idx.Register(ctx, reg(probe, localBackend("probe"))))
			require.NoError(t, idx.Register(ctx, reg(gone, localBackend("old"))))

			gate := searcher.hold()
			changed := make(chan error, 1)
			go func() { changed <- tt.change(idx) }()
			<-gate.entered

			read := make(chan []string, 1)
			go func() { read <- append(readEverything(ctx, idx, probe.ID()), tt.during(idx)...) }()
			watchdog := time.NewTimer(readerWatchdog)
			defer watchdog.Stop()
			select {
			case problems := <-read:
				close(gate.release)
				assert.Empty(t, problems)
			case <-watchdog.C:
				close(gate.release)
				<-read // the blocked reader finishes once the change is through
				assert.Fail(t, "a read of the index waited for the searcher's indexing")
			}
			require.NoError(t, <-changed)
			tt.after(t, idx)
		})
	}
}

// readEverything calls every reading method of idx, which holds the tool
// probe, and returns what went wrong.
func readEverything(ctx context.Context, idx toolindex.Index, probe string) []string {
	var problems []string
	if _, _, err := idx.GetAll(ctx, probe); err != nil {
		problems = append(problems, "GetAll: "+err.Error())
	}
	if page, err := idx.List(ctx, toolindex.ListRequest{}); err != nil || len(page.Items) == 0 {
		problems = append(problems, "List: the index looks empty")
	}
	if names, err := idx.Namespaces(ctx); err != nil || len(names) == 0 {
		problems = append(problems, "Namespaces: the index looks empty")
	}
	if found := searchIDs(ctx, idx, "ping"); len(found) != 1 || found[0] != probe {
		problems = append(problems, "Search did not find the probe")
	}
	return problems
}

// searchIDs returns the IDs of the first page of a search, or the
// error's text as the only ID, which no check expects.
func searchIDs(ctx context.Context, idx toolindex.Index, query string) []string {
	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: query})
	if err != nil {
		return []string{"search failed: " + err.Error()}
	}
	return ids(page.Items)
}
