package toolindextest

// Checks of listings, cursors and namespaces.

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// checkListOrderFiltersAndPages checks that listings are in ascending ID
// order, that pages concatenate to the whole listing, and the namespace
// and backend filters alone and together.
func checkListOrderFiltersAndPages(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	var regs []toolindex.Registration
	for i, tool := range catalogue(45) {
		b := issuesLocal
		if i%3 == 0 {
			b = githubMCP
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
	bk := collect(toolindex.ListRequest{Backend: githubMCP.Identity(), Limit: 5})
	assert.Len(t, bk, 15)
	both := collect(toolindex.ListRequest{Namespace: "ns1", Backend: githubMCP.Identity(), Limit: 2})
	for _, id := range all {
		inNS := id[:4] == "ns1:"
		assert.Equal(t, inNS, slices.Contains(ns, id), id)
		_, backends, err := idx.GetAll(ctx, id)
		require.NoError(t, err)
		require.Len(t, backends, 1)
		onServer := backends[0].Identity() == githubMCP.Identity()
		assert.Equal(t, onServer, slices.Contains(bk, id), id)
		assert.Equal(t, inNS && onServer, slices.Contains(both, id), id)
	}
	empty, err := idx.List(ctx, toolindex.ListRequest{Namespace: "nowhere"})
	require.NoError(t, err)
	assert.Empty(t, empty.Items)
	assert.Empty(t, empty.NextCursor)
}

// checkListPageSizes checks the default and maximum page sizes, and that a
// negative limit is an errors.InvalidArgument.
func checkListPageSizes(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	var regs []toolindex.Registration
	for _, tool := range catalogue(toolindex.MaxPageSize + 5) {
		regs = append(regs, reg(tool, issuesLocal))
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
}

// checkListCursorSurvivesUnrelatedChanges checks that a listing cursor
// continues after the last tool seen, whatever was added or removed
// meanwhile.
func checkListCursorSurvivesUnrelatedChanges(t *testing.T, setup setupFunc) {
	ctx := context.Background()
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
}

// checkBadCursors checks that malformed cursors, and cursors of another
// request, are refused with errors.InvalidArgument.
func checkBadCursors(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	var regs []toolindex.Registration
	for _, tool := range catalogue(10) {
		regs = append(regs, reg(tool, issuesLocal))
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
}

// checkNamespaces checks that Namespaces lists the non-empty namespaces in
// use, sorted.
func checkNamespaces(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t,
		reg(NewTool("zeta", "a", "probe"), issuesLocal),
		reg(NewTool("alpha", "a", "probe"), issuesLocal),
		reg(NewTool("alpha", "b", "probe"), issuesLocal),
		reg(NewTool("", "c", "probe"), githubMCP))
	names, err := idx.Namespaces(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha", "zeta"}, names)
	_, err = idx.UnregisterBackend(ctx, issuesLocal.Identity())
	require.NoError(t, err)
	names, err = idx.Namespaces(ctx)
	require.NoError(t, err)
	assert.Empty(t, names)
}
