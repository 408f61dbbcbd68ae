package toolindextest

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
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
	ctx := context.Background()
	setup := func(t *testing.T, regs ...toolindex.Registration) toolindex.Index {
		t.Helper()
		idx := newIndex(t)
		require.NotNil(t, idx, "newIndex returned nil")
		if len(regs) > 0 {
			require.NoError(t, idx.RegisterMany(ctx, regs))
		}
		return idx
	}
	// record subscribes to idx and returns the events seen so far.
	record := func(t *testing.T, idx toolindex.Index) func() []toolindex.ChangeEvent {
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
	kinds := func(events []toolindex.ChangeEvent) []toolindex.ChangeKind {
		out := make([]toolindex.ChangeKind, len(events))
		for i, ev := range events {
			out[i] = ev.Kind
		}
		return out
	}

	issue := NewTool("github", "create_issue", "Open a new ticket in a repository.", "owner", "repo", "title")
	weather := NewTool("", "get_weather", "Current conditions for a city.", "city")
	local := LocalBackend("issues")
	server := MCPBackend("github")
	api := HTTPBackend("https://api.example.com")

	t.Run("RegisterAndGet", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		require.NoError(t, idx.Register(ctx, reg(issue, local)))
		got, backend, err := idx.Get(ctx, "github:create_issue")
		require.NoError(t, err)
		assert.True(t, got.Equal(issue), "Get returns the registered definition")
		assert.Equal(t, local, backend)
		gotAll, backends, err := idx.GetAll(ctx, "github:create_issue")
		require.NoError(t, err)
		assert.True(t, gotAll.Equal(issue))
		assert.Equal(t, []toolmodel.ToolBackend{local}, backends)
		assert.Equal(t, uint64(1), idx.Version())
	})

	t.Run("GetUnknown", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, local))
		_, _, err := idx.Get(ctx, "github:nope")
		require.ErrorIs(t, err, errors.ErrNotFound)
		_, _, err = idx.GetAll(ctx, "nope")
		require.ErrorIs(t, err, errors.ErrNotFound)
	})

	t.Run("RegisterValidates", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		events := record(t, idx)
		badTool := NewTool("", "bad name", "spaces are not allowed")
		badBackend := toolmodel.ToolBackend{Kind: toolmodel.BackendLocal}
		noSchema := issue
		noSchema.InputSchema = nil
		for name, r := range map[string]toolindex.Registration{
			"tool":      reg(badTool, local),
			"backend":   reg(issue, badBackend),
			"no schema": reg(noSchema, local),
		} {
			require.ErrorIs(t, idx.Register(ctx, r), errors.ErrInvalidArgument, name)
		}
		assert.Zero(t, idx.Version())
		assert.Empty(t, events())
		page, err := idx.List(ctx, toolindex.ListRequest{})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
	})

	t.Run("RegisterCopiesInput", func(t *testing.T) {
		t.Parallel()
		tool := issue
		tool.Tags = []string{"alpha"}
		backend := LocalBackend("copy")
		idx := setup(t, reg(tool, backend))
		tool.Tags[0] = "omega"
		backend.Local.Name = "changed"
		got, gotBackend, err := idx.Get(ctx, tool.ID())
		require.NoError(t, err)
		assert.Equal(t, []string{"alpha"}, got.Tags)
		assert.Equal(t, "copy", gotBackend.Local.Name)
	})

	t.Run("ResultsAreCopies", func(t *testing.T) {
		t.Parallel()
		tool := issue
		tool.Tags = []string{"alpha"}
		idx := setup(t, reg(tool, local))
		got, backend, err := idx.Get(ctx, tool.ID())
		require.NoError(t, err)
		got.Tags[0] = "omega"
		got.Description = "changed"
		backend.Local.Name = "changed"
		_, all, err := idx.GetAll(ctx, tool.ID())
		require.NoError(t, err)
		all[0].Local.Name = "changed"
		page, err := idx.List(ctx, toolindex.ListRequest{})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		page.Items[0].Tags[0] = "omega"

		again, againBackend, err := idx.Get(ctx, tool.ID())
		require.NoError(t, err)
		assert.True(t, again.Equal(tool), "the index's definition is unchanged")
		assert.Equal(t, local, againBackend)
		page, err = idx.List(ctx, toolindex.ListRequest{})
		require.NoError(t, err)
		assert.Equal(t, []string{"alpha"}, page.Items[0].Tags)
	})

	t.Run("IdenticalRegistrationIsNoop", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, local))
		events := record(t, idx)
		require.NoError(t, idx.Register(ctx, reg(issue, local)))
		require.NoError(t, idx.RegisterMany(ctx, []toolindex.Registration{reg(issue, local)}))
		assert.Equal(t, uint64(1), idx.Version())
		assert.Empty(t, events())
	})

	t.Run("SameSourceUpdates", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, local))
		events := record(t, idx)
		updated := issue
		updated.Description = "File a bug report against a project."
		require.NoError(t, idx.Register(ctx, reg(updated, local)))
		got, _, err := idx.Get(ctx, issue.ID())
		require.NoError(t, err)
		assert.Equal(t, updated.Description, got.Description)
		assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.ToolUpdated, ToolID: issue.ID(), Backend: local.Identity(), Version: 2}}, events())

		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "project"})
		require.NoError(t, err)
		assert.Equal(t, []string{issue.ID()}, summaryIDs(page.Items), "search sees the new text")
		page, err = idx.Search(ctx, toolindex.SearchRequest{Query: "repository"})
		require.NoError(t, err)
		assert.Empty(t, page.Items, "search forgets the old text")

		// A changed configuration of the same backend is an update too.
		post := api
		post.HTTP = &toolmodel.HTTPBackend{BaseURL: api.HTTP.BaseURL, Method: "POST", Path: "/weather"}
		require.NoError(t, idx.Register(ctx, reg(weather, api)))
		require.NoError(t, idx.Register(ctx, reg(weather, post)))
		_, backends, err := idx.GetAll(ctx, weather.ID())
		require.NoError(t, err)
		assert.Equal(t, []toolmodel.ToolBackend{post}, backends)
		assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolUpdated, toolindex.ToolRegistered, toolindex.ToolUpdated}, kinds(events()))
	})

	t.Run("BackendsFromSeveralSources", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, server))
		events := record(t, idx)
		require.NoError(t, idx.Register(ctx, reg(issue, api)))
		require.NoError(t, idx.Register(ctx, reg(issue, local)))
		_, backends, err := idx.GetAll(ctx, issue.ID())
		require.NoError(t, err)
		assert.Equal(t, []toolmodel.ToolBackend{server, api, local}, backends, "registration order")
		assert.Equal(t, []toolindex.ChangeKind{toolindex.BackendAdded, toolindex.BackendAdded}, kinds(events()))

		// A hint that matches one backend selects it.
		for _, b := range backends {
			_, got, err := idx.Get(ctx, issue.ID(), toolindex.SelectHint{Backend: b.Identity()})
			require.NoError(t, err)
			assert.Equal(t, b, got)
			_, got, err = idx.Get(ctx, issue.ID(), toolindex.SelectHint{Kind: b.Kind})
			require.NoError(t, err)
			assert.Equal(t, b, got)
		}
		_, got, err := idx.Get(ctx, issue.ID())
		require.NoError(t, err)
		assert.Contains(t, backends, got)
	})

	t.Run("ConflictAndReplace", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, server))
		other := issue
		other.Description = "A different definition."
		err := idx.Register(ctx, reg(other, local))
		require.ErrorIs(t, err, errors.ErrConflict)
		got, _, err := idx.Get(ctx, issue.ID())
		require.NoError(t, err)
		assert.True(t, got.Equal(issue), "a conflict changes nothing")
		assert.Equal(t, uint64(1), idx.Version())

		events := record(t, idx)
		require.NoError(t, idx.Register(ctx, reg(other, local), toolindex.Replace()))
		got, backends, err := idx.GetAll(ctx, issue.ID())
		require.NoError(t, err)
		assert.True(t, got.Equal(other), "Replace installs the new definition")
		assert.Equal(t, []toolmodel.ToolBackend{server, local}, backends, "Replace keeps the other backends")
		assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolUpdated}, kinds(events()))
	})

	t.Run("RegisterManyIsAtomic", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, server))
		events := record(t, idx)
		conflicting := issue
		conflicting.Description = "A different definition."
		for name, batch := range map[string][]toolindex.Registration{
			"invalid":  {reg(weather, local), reg(NewTool("", "", "no name"), local)},
			"conflict": {reg(weather, local), reg(conflicting, local)},
		} {
			err := idx.RegisterMany(ctx, batch)
			require.Error(t, err, name)
			_, _, err = idx.Get(ctx, weather.ID())
			require.ErrorIs(t, err, errors.ErrNotFound, "%s: no registration of a failed batch is kept", name)
		}
		assert.Equal(t, uint64(1), idx.Version())
		assert.Empty(t, events())

		// A batch applies in order: a later registration of the same
		// source updates an earlier one.
		renamed := weather
		renamed.Description = "Conditions now."
		require.NoError(t, idx.RegisterMany(ctx, []toolindex.Registration{reg(weather, local), reg(renamed, local)}))
		got, _, err := idx.Get(ctx, weather.ID())
		require.NoError(t, err)
		assert.Equal(t, "Conditions now.", got.Description)
		evs := events()
		assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolRegistered, toolindex.ToolUpdated}, kinds(evs))
		assert.Equal(t, uint64(3), idx.Version())
	})

	t.Run("RegisterMCPTools", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		listed := []*mcp.Tool{
			{Name: "read_file", Description: "Read a file.", InputSchema: map[string]any{"type": "object", "properties": map[string]any{"path": map[string]any{"type": "string"}}}},
			{Name: "write_file", Description: "Write a file.", InputSchema: map[string]any{"type": "object"}},
		}
		fs := MCPBackend("filesystem")
		require.NoError(t, idx.RegisterMCPTools(ctx, "fs", fs, listed))
		got, backend, err := idx.Get(ctx, "fs:read_file")
		require.NoError(t, err)
		assert.Equal(t, "fs", got.Namespace)
		assert.Equal(t, "Read a file.", got.Description)
		assert.Equal(t, fs, backend)
		page, err := idx.List(ctx, toolindex.ListRequest{Backend: fs.Identity()})
		require.NoError(t, err)
		assert.Equal(t, []string{"fs:read_file", "fs:write_file"}, summaryIDs(page.Items))

		// Atomic: an invalid tool (nil, or without a schema) rejects all.
		for _, bad := range [][]*mcp.Tool{
			{{Name: "ok", InputSchema: map[string]any{"type": "object"}}, nil},
			{{Name: "ok", InputSchema: map[string]any{"type": "object"}}, {Name: "noschema"}},
		} {
			err = idx.RegisterMCPTools(ctx, "other", fs, bad)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
		}
		_, _, err = idx.Get(ctx, "other:ok")
		require.ErrorIs(t, err, errors.ErrNotFound)
	})

	t.Run("UnregisterBackend", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, server), reg(issue, local), reg(weather, local))
		events := record(t, idx)
		n, err := idx.UnregisterBackend(ctx, local.Identity())
		require.NoError(t, err)
		assert.Equal(t, 2, n)
		_, backends, err := idx.GetAll(ctx, issue.ID())
		require.NoError(t, err)
		assert.Equal(t, []toolmodel.ToolBackend{server}, backends)
		_, _, err = idx.Get(ctx, weather.ID())
		require.ErrorIs(t, err, errors.ErrNotFound, "a tool goes with its last backend")
		// The events of one operation have consecutive versions, in an
		// order the implementation chooses.
		evs := events()
		require.Len(t, evs, 2)
		assert.ElementsMatch(t, []uint64{4, 5}, []uint64{evs[0].Version, evs[1].Version})
		evs[0].Version, evs[1].Version = 0, 0
		assert.ElementsMatch(t, []toolindex.ChangeEvent{
			{Kind: toolindex.BackendRemoved, ToolID: issue.ID(), Backend: local.Identity()},
			{Kind: toolindex.ToolRemoved, ToolID: weather.ID(), Backend: local.Identity()},
		}, evs)

		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "weather city"})
		require.NoError(t, err)
		assert.Empty(t, page.Items, "a removed tool is not found")

		n, err = idx.UnregisterBackend(ctx, "local:unknown")
		require.NoError(t, err)
		assert.Zero(t, n)
		assert.Equal(t, uint64(5), idx.Version())
	})

	t.Run("ListOrderFiltersAndPages", func(t *testing.T) {
		t.Parallel()
		var regs []toolindex.Registration
		for i, tool := range catalogue(45) {
			b := local
			if i%3 == 0 {
				b = server
			}
			regs = append(regs, reg(tool, b))
		}
		idx := setup(t, regs...)

		collect := func(req toolindex.ListRequest) []string {
			t.Helper()
			var ids []string
			for range 100 {
				page, err := idx.List(ctx, req)
				require.NoError(t, err)
				require.LessOrEqual(t, len(page.Items), max(req.Limit, 1))
				ids = append(ids, summaryIDs(page.Items)...)
				if page.NextCursor == "" {
					return ids
				}
				req.Cursor = page.NextCursor
			}
			t.Fatal("listing did not end")
			return nil
		}
		all := collect(toolindex.ListRequest{Limit: 100})
		require.Len(t, all, 45)
		assert.IsIncreasing(t, all, "ascending ID order")
		assert.Equal(t, all, collect(toolindex.ListRequest{Limit: 4}), "pages concatenate to the listing")

		ns := collect(toolindex.ListRequest{Namespace: "ns1", Limit: 5})
		assert.Len(t, ns, 11)
		bk := collect(toolindex.ListRequest{Backend: server.Identity(), Limit: 5})
		assert.Len(t, bk, 15)
		both := collect(toolindex.ListRequest{Namespace: "ns1", Backend: server.Identity(), Limit: 2})
		for _, id := range all {
			inNS := id[:4] == "ns1:"
			assert.Equal(t, inNS, slices.Contains(ns, id), id)
			_, backend, err := idx.Get(ctx, id)
			require.NoError(t, err)
			onServer := backend.Identity() == server.Identity()
			assert.Equal(t, onServer, slices.Contains(bk, id), id)
			assert.Equal(t, inNS && onServer, slices.Contains(both, id), id)
		}
		empty, err := idx.List(ctx, toolindex.ListRequest{Namespace: "nowhere"})
		require.NoError(t, err)
		assert.Empty(t, empty.Items)
		assert.Empty(t, empty.NextCursor)
	})

	t.Run("ListPageSizes", func(t *testing.T) {
		t.Parallel()
		var regs []toolindex.Registration
		for _, tool := range catalogue(toolindex.MaxPageSize + 5) {
			regs = append(regs, reg(tool, local))
		}
		idx := setup(t, regs...)
		page, err := idx.List(ctx, toolindex.ListRequest{})
		require.NoError(t, err)
		assert.Len(t, page.Items, toolindex.DefaultPageSize)
		page, err = idx.List(ctx, toolindex.ListRequest{Limit: toolindex.MaxPageSize * 10})
		require.NoError(t, err)
		assert.Len(t, page.Items, toolindex.MaxPageSize)
		assert.NotEmpty(t, page.NextCursor)
		_, err = idx.List(ctx, toolindex.ListRequest{Limit: -1})
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "create", Limit: -1})
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
	})

	t.Run("ListCursorSurvivesUnrelatedChanges", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		for _, name := range []string{"b", "d", "f", "h", "j"} {
			require.NoError(t, idx.Register(ctx, reg(NewTool("", name, "probe"), LocalBackend(name))))
		}
		first, err := idx.List(ctx, toolindex.ListRequest{Limit: 2})
		require.NoError(t, err)
		require.Equal(t, []string{"b", "d"}, summaryIDs(first.Items))
		// Add a tool before the cursor and one after, remove one before
		// and one after.
		require.NoError(t, idx.Register(ctx, reg(NewTool("", "a", "probe"), LocalBackend("a"))))
		require.NoError(t, idx.Register(ctx, reg(NewTool("", "g", "probe"), LocalBackend("g"))))
		_, err = idx.UnregisterBackend(ctx, "local:b")
		require.NoError(t, err)
		_, err = idx.UnregisterBackend(ctx, "local:f")
		require.NoError(t, err)
		rest, err := idx.List(ctx, toolindex.ListRequest{Limit: 10, Cursor: first.NextCursor})
		require.NoError(t, err)
		assert.Equal(t, []string{"g", "h", "j"}, summaryIDs(rest.Items), "continues after the last tool seen")
		// Even the removal of the last tool seen does not break paging.
		_, err = idx.UnregisterBackend(ctx, "local:d")
		require.NoError(t, err)
		rest, err = idx.List(ctx, toolindex.ListRequest{Limit: 10, Cursor: first.NextCursor})
		require.NoError(t, err)
		assert.Equal(t, []string{"g", "h", "j"}, summaryIDs(rest.Items))
	})

	t.Run("BadCursors", func(t *testing.T) {
		t.Parallel()
		var regs []toolindex.Registration
		for _, tool := range catalogue(10) {
			regs = append(regs, reg(tool, local))
		}
		idx := setup(t, regs...)
		list, err := idx.List(ctx, toolindex.ListRequest{Limit: 2})
		require.NoError(t, err)
		require.NotEmpty(t, list.NextCursor)
		search, err := idx.Search(ctx, toolindex.SearchRequest{Query: "create list", Limit: 1})
		require.NoError(t, err)
		require.NotEmpty(t, search.NextCursor)

		for _, c := range []string{"x", "!!!", "AAAA", "%%%", "eyJ2IjoxfQ", "A" + list.NextCursor[1:] + "=="} {
			_, err := idx.List(ctx, toolindex.ListRequest{Cursor: c})
			require.ErrorIs(t, err, errors.ErrInvalidArgument, "List cursor %q", c)
			_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "create list", Cursor: c})
			require.ErrorIs(t, err, errors.ErrInvalidArgument, "Search cursor %q", c)
		}
		_, err = idx.List(ctx, toolindex.ListRequest{Namespace: "ns1", Cursor: list.NextCursor})
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "a listing cursor is bound to its filters")
		_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "other words", Cursor: search.NextCursor})
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "a search cursor is bound to its query")
		_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "create list", Namespace: "ns1", Cursor: search.NextCursor})
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "a search cursor is bound to its namespace")
		_, err = idx.List(ctx, toolindex.ListRequest{Cursor: search.NextCursor})
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "a search cursor is no listing cursor")
		_, err = idx.Search(ctx, toolindex.SearchRequest{Query: "create list", Cursor: list.NextCursor})
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "a listing cursor is no search cursor")
	})

	t.Run("Namespaces", func(t *testing.T) {
		t.Parallel()
		idx := setup(t,
			reg(NewTool("zeta", "a", "probe"), local),
			reg(NewTool("alpha", "a", "probe"), local),
			reg(NewTool("alpha", "b", "probe"), local),
			reg(NewTool("", "c", "probe"), server))
		names, err := idx.Namespaces(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"alpha", "zeta"}, names)
		_, err = idx.UnregisterBackend(ctx, local.Identity())
		require.NoError(t, err)
		names, err = idx.Namespaces(ctx)
		require.NoError(t, err)
		assert.Empty(t, names)
	})

	t.Run("Search", func(t *testing.T) {
		t.Parallel()
		tagged := weather
		tagged.Tags = []string{"climate"}
		tagged.Title = "Weather now"
		idx := setup(t, reg(issue, server), reg(issue, local), reg(tagged, api))
		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "weather"})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		s := page.Items[0]
		assert.Equal(t, toolindex.Summary{
			ID: "get_weather", Name: "get_weather", Title: "Weather now", Description: "Current conditions for a city.",
			Tags: []string{"climate"}, Backends: []toolmodel.BackendKind{toolmodel.BackendHTTP}, Score: s.Score,
		}, s)
		assert.Positive(t, s.Score)
		assert.Empty(t, page.NextCursor)

		page, err = idx.Search(ctx, toolindex.SearchRequest{Query: "repository", Namespace: "github"})
		require.NoError(t, err)
		require.Len(t, page.Items, 1)
		assert.Equal(t, []toolmodel.BackendKind{toolmodel.BackendMCP, toolmodel.BackendLocal}, page.Items[0].Backends)
		page, err = idx.Search(ctx, toolindex.SearchRequest{Query: "repository", Namespace: "elsewhere"})
		require.NoError(t, err)
		assert.Empty(t, page.Items)
	})

	t.Run("SearchPages", func(t *testing.T) {
		t.Parallel()
		var regs []toolindex.Registration
		for _, tool := range catalogue(60) {
			regs = append(regs, reg(tool, local))
		}
		idx := setup(t, regs...)
		const q = "create issue report"
		whole, err := idx.Search(ctx, toolindex.SearchRequest{Query: q, Limit: toolindex.MaxPageSize})
		require.NoError(t, err)
		require.Greater(t, len(whole.Items), 10)
		var paged []toolindex.Summary
		req := toolindex.SearchRequest{Query: q, Limit: 4}
		for range 100 {
			page, err := idx.Search(ctx, req)
			require.NoError(t, err)
			paged = append(paged, page.Items...)
			if page.NextCursor == "" {
				break
			}
			req.Cursor = page.NextCursor
		}
		assert.Equal(t, whole.Items, paged)
	})

	t.Run("OnChange", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		events := record(t, idx)
		var second []toolindex.ChangeEvent
		stop := idx.OnChange(func(ev toolindex.ChangeEvent) { second = append(second, ev) })
		require.NoError(t, idx.Register(ctx, reg(issue, local)))
		require.NoError(t, idx.Register(ctx, reg(issue, server)))
		stop()
		stop()
		_, err := idx.UnregisterBackend(ctx, local.Identity())
		require.NoError(t, err)
		want := []toolindex.ChangeEvent{
			{Kind: toolindex.ToolRegistered, ToolID: issue.ID(), Backend: local.Identity(), Version: 1},
			{Kind: toolindex.BackendAdded, ToolID: issue.ID(), Backend: server.Identity(), Version: 2},
			{Kind: toolindex.BackendRemoved, ToolID: issue.ID(), Backend: local.Identity(), Version: 3},
		}
		assert.Equal(t, want, events())
		assert.Equal(t, want[:2], second, "no event after unsubscribe")
	})

	t.Run("OnChangeCallsBack", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		events := record(t, idx)
		var seen []string
		t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
			// Reads see the change; a change made here is delivered
			// after this call returns.
			if _, _, err := idx.Get(ctx, ev.ToolID); err == nil {
				seen = append(seen, ev.ToolID)
			}
			if ev.ToolID == issue.ID() {
				assert.NoError(t, idx.Register(ctx, reg(weather, local)))
			}
		}))
		require.NoError(t, idx.Register(ctx, reg(issue, local)))
		assert.Equal(t, []string{issue.ID(), weather.ID()}, seen)
		assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolRegistered, toolindex.ToolRegistered}, kinds(events()))
		assert.Equal(t, uint64(2), idx.Version())
	})

	t.Run("Refresh", func(t *testing.T) {
		t.Parallel()
		idx := setup(t, reg(issue, local))
		events := record(t, idx)
		require.NoError(t, idx.Refresh(ctx))
		assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.Refreshed, Version: 2}}, events())
		_, _, err := idx.Get(ctx, issue.ID())
		require.NoError(t, err, "a refresh without sources keeps registered tools")
	})

	t.Run("CanceledContext", func(t *testing.T) {
		t.Parallel()
		idx := setup(t)
		canceled, cancel := context.WithCancel(ctx)
		cancel()
		require.ErrorIs(t, idx.Register(canceled, reg(issue, local)), context.Canceled)
		require.ErrorIs(t, idx.RegisterMany(canceled, []toolindex.Registration{reg(issue, local)}), context.Canceled)
		_, err := idx.Search(canceled, toolindex.SearchRequest{Query: "issue"})
		require.ErrorIs(t, err, context.Canceled)
		_, err = idx.UnregisterBackend(canceled, local.Identity())
		require.ErrorIs(t, err, context.Canceled)
		require.ErrorIs(t, idx.Refresh(canceled), context.Canceled)
		assert.Zero(t, idx.Version(), "a canceled change changes nothing")
	})

	t.Run("Concurrent", func(t *testing.T) {
		t.Parallel()
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
						if _, _, err := idx.Get(ctx, tool.ID()); err != nil {
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
	})
}
