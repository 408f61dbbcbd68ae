package mcpexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
)

// addTools adds tools named name0, name1, ... that return their name.
func addTools(srv *mcp.Server, names ...string) {
	for _, name := range names {
		srv.AddTool(&mcp.Tool{Name: name, Description: "The " + name + " tool.", InputSchema: json.RawMessage(`{"type":"object"}`)},
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: name}}}, nil
			})
	}
}

// toolIDs lists the IDs of an index's tools.
func toolIDs(t *testing.T, idx toolindex.Index) []string {
	t.Helper()
	page, err := idx.List(context.Background(), toolindex.ListRequest{Limit: toolindex.MaxPageSize})
	require.NoError(t, err)
	ids := make([]string, len(page.Items))
	for i, s := range page.Items {
		ids[i] = s.ID
	}
	return ids
}

func TestListToolsFollowsPagination(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "paged"}, &mcp.ServerOptions{PageSize: 2})
	var names []string
	for i := range 7 {
		names = append(names, fmt.Sprintf("tool%d", i))
	}
	addTools(srv, names...)
	m := newManager(t, mcpexec.WithServer("paged", mcpexec.InMemory(srv)))
	tools, err := m.ListTools(context.Background(), "paged")
	require.NoError(t, err)
	got := make([]string, len(tools))
	for i, tool := range tools {
		got[i] = tool.Name
	}
	assert.Equal(t, names, got)

	_, err = m.ListTools(context.Background(), "absent")
	assert.Equal(t, errors.NotFound, errors.CodeOf(err))
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "mcpexec.ListTools", e.Op)
}

func TestRegisterTools(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	idx := toolindex.New()
	require.NoError(t, m.RegisterTools(ctx, idx, "demo", "tt"))
	assert.Equal(t, []string{"tt:block", "tt:denied", "tt:echo", "tt:fail", "tt:progress"}, toolIDs(t, idx))
	tool, backends, err := idx.GetAll(ctx, "tt:echo")
	require.NoError(t, err)
	assert.Equal(t, "Return the arguments.", tool.Description)
	assert.Equal(t, []toolmodel.ToolBackend{mcpexec.Backend("demo")}, backends)

	assert.Equal(t, errors.NotFound, errors.CodeOf(m.RegisterTools(ctx, idx, "absent", "x")))
}

func TestSourceRefreshes(t *testing.T) {
	ctx := context.Background()
	srv := mcp.NewServer(&mcp.Implementation{Name: "changing"}, nil)
	addTools(srv, "a", "b")
	m := newManager(t, mcpexec.WithServer("changing", mcpexec.InMemory(srv)))
	src := m.Source("changing", "ch")
	assert.Equal(t, "mcp:changing", src.Identity())
	idx := toolindex.New(toolindex.WithSource(src))

	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, []string{"ch:a", "ch:b"}, toolIDs(t, idx))

	srv.RemoveTools("a")
	addTools(srv, "c")
	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, []string{"ch:b", "ch:c"}, toolIDs(t, idx))

	regs, err := m.Source("absent", "x").ListTools(ctx)
	assert.Nil(t, regs)
	assert.Equal(t, errors.NotFound, errors.CodeOf(err))
}

// refreshCounter counts the Refreshed events of an index.
type refreshCounter struct {
	mu sync.Mutex
	n  int
}

func countRefreshes(idx toolindex.Index) *refreshCounter {
	c := &refreshCounter{}
	idx.OnChange(func(ev toolindex.ChangeEvent) {
		if ev.Kind == toolindex.Refreshed {
			c.mu.Lock()
			c.n++
			c.mu.Unlock()
		}
	})
	return c
}

func (c *refreshCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n
}

func TestAutoRefresh(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		synced := mcp.NewServer(&mcp.Implementation{Name: "synced"}, nil)
		other := mcp.NewServer(&mcp.Implementation{Name: "other"}, nil)
		addTools(synced, "a")
		addTools(other, "x")
		m := newManager(t, mcpexec.WithRefreshDelay(time.Second),
			mcpexec.WithServer("synced", mcpexec.InMemory(synced)), mcpexec.WithServer("other", mcpexec.InMemory(other)))
		idx := toolindex.New(toolindex.WithSource(m.Source("synced", "s")))
		stop := m.AutoRefresh(idx)
		require.NoError(t, idx.Refresh(ctx))
		// The other server has a session, but no source lists it.
		require.NoError(t, m.RegisterTools(ctx, toolindex.New(), "other", "o"))
		refreshes := countRefreshes(idx)

		// A burst of changes within the delay costs one refresh.
		addTools(synced, "b")
		time.Sleep(500 * time.Millisecond)
		addTools(synced, "c")
		time.Sleep(500 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 0, refreshes.count(), "no refresh before the delay")
		// The server reports a change 10ms after it.
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		assert.Equal(t, 1, refreshes.count())
		assert.Equal(t, []string{"s:a", "s:b", "s:c"}, toolIDs(t, idx))

		// A change of a server the index does not list refreshes nothing.
		addTools(other, "y")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, 1, refreshes.count())

		// A later change gets a refresh of its own.
		synced.RemoveTools("a")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, 2, refreshes.count())
		assert.Equal(t, []string{"s:b", "s:c"}, toolIDs(t, idx))

		// Once stopped, changes are left alone.
		stop()
		addTools(synced, "d")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, 2, refreshes.count())
		assert.Equal(t, []string{"s:b", "s:c"}, toolIDs(t, idx))
	})
}

// countingSource counts the listings of a source.
type countingSource struct {
	toolindex.Source
	mu       sync.Mutex
	listings int
}

func (s *countingSource) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	s.mu.Lock()
	s.listings++
	s.mu.Unlock()
	return s.Source.ListTools(ctx)
}

func (s *countingSource) listed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listings
}

func TestAutoRefreshListsOnlyTheServersThatChanged(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		servers := map[string]*mcp.Server{}
		sources := map[string]*countingSource{}
		var opts []mcpexec.Option
		for _, name := range []string{"a", "b", "c"} {
			servers[name] = mcp.NewServer(&mcp.Implementation{Name: name}, nil)
			addTools(servers[name], name+"0")
			opts = append(opts, mcpexec.WithServer(name, mcpexec.InMemory(servers[name])))
		}
		m := newManager(t, append(opts, mcpexec.WithRefreshDelay(time.Second))...)
		var idxOpts []toolindex.Option
		for _, name := range []string{"a", "b", "c"} {
			sources[name] = &countingSource{Source: m.Source(name, name)}
			idxOpts = append(idxOpts, toolindex.WithSource(sources[name]))
		}
		idx := toolindex.New(idxOpts...)
		defer m.AutoRefresh(idx)()
		require.NoError(t, idx.Refresh(context.Background()))

		addTools(servers["a"], "a1")
		addTools(servers["b"], "b1")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"a:a0", "a:a1", "b:b0", "b:b1", "c:c0"}, toolIDs(t, idx))
		assert.Equal(t, 2, sources["a"].listed(), "the two reports share one refresh")
		assert.Equal(t, 2, sources["b"].listed())
		assert.Equal(t, 1, sources["c"].listed(), "a server that reported nothing is not listed again")
	})
}

func TestAutoRefreshFollowsAServerTheIndexNeverListed(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		srv := mcp.NewServer(&mcp.Implementation{Name: "late"}, nil)
		addTools(srv, "a")
		m := newManager(t, mcpexec.WithRefreshDelay(time.Second), mcpexec.WithServer("late", mcpexec.InMemory(srv)))
		idx := toolindex.New(toolindex.WithSource(m.Source("late", "l")))
		defer m.AutoRefresh(idx)()
		// The session opens for another reason than a listing by the index.
		_, err := m.Session(ctx, "late")
		require.NoError(t, err)

		addTools(srv, "b")
		time.Sleep(2 * time.Second)
		synctest.Wait()
		assert.Equal(t, []string{"l:a", "l:b"}, toolIDs(t, idx), "the server's report loads its tools")
	})
}
