package toolindextest

// Checks of registration, lookups and unregistration.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// checkRegisterAndGet checks that a registered tool comes back from
// GetAll as it was registered, with its backend.
func checkRegisterAndGet(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	require.NoError(t, idx.Register(ctx, reg(issueTool, issuesLocal)))
	got, backends, err := idx.GetAll(ctx, "github:create_issue")
	require.NoError(t, err)
	assert.True(t, got.Equal(issueTool), "GetAll returns the registered definition")
	assert.Equal(t, []toolmodel.ToolBackend{issuesLocal}, backends)
	assert.Equal(t, uint64(1), idx.Version())
}

// checkGetUnknown checks that GetAll of an unknown ID, well-formed or not,
// fails with errors.NotFound.
func checkGetUnknown(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, issuesLocal))
	for _, id := range []string{"github:nope", "nope"} {
		_, _, err := idx.GetAll(ctx, id)
		require.ErrorIs(t, err, errors.ErrNotFound, id)
	}
}

// checkRegisterValidates checks that an invalid tool or backend is refused
// with errors.InvalidArgument and changes nothing.
func checkRegisterValidates(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t)
	events := record(t, idx)
	badTool := NewTool("", "bad name", "spaces are not allowed")
	badBackend := toolmodel.ToolBackend{Kind: toolmodel.BackendLocal}
	noSchema := issueTool
	noSchema.InputSchema = nil
	for name, r := range map[string]toolindex.Registration{
		"tool":      reg(badTool, issuesLocal),
		"backend":   reg(issueTool, badBackend),
		"no schema": reg(noSchema, issuesLocal),
	} {
		require.ErrorIs(t, idx.Register(ctx, r), errors.ErrInvalidArgument, name)
	}
	assert.Zero(t, idx.Version())
	assert.Empty(t, events())
	page, err := idx.List(ctx, toolindex.ListRequest{})
	require.NoError(t, err)
	assert.Empty(t, page.Items)
}

// checkRegisterCopiesInput checks that changing a registration after
// Register returns does not change the index.
func checkRegisterCopiesInput(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	tool := issueTool
	tool.Tags = []string{"alpha"}
	backend := LocalBackend("copy")
	idx := setup(t, reg(tool, backend))
	tool.Tags[0] = "omega"
	backend.Local.Name = "changed"
	got, backends, err := idx.GetAll(ctx, tool.ID())
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha"}, got.Tags)
	require.Len(t, backends, 1)
	assert.Equal(t, "copy", backends[0].Local.Name)
}

// checkResultsAreCopies checks that changing what GetAll and List return
// does not change the index.
func checkResultsAreCopies(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	tool := issueTool
	tool.Tags = []string{"alpha"}
	idx := setup(t, reg(tool, issuesLocal))
	got, backends, err := idx.GetAll(ctx, tool.ID())
	require.NoError(t, err)
	require.Len(t, backends, 1)
	got.Tags[0] = "omega"
	got.Description = "changed"
	backends[0].Local.Name = "changed"
	page, err := idx.List(ctx, toolindex.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	page.Items[0].Tags[0] = "omega"

	again, againBackends, err := idx.GetAll(ctx, tool.ID())
	require.NoError(t, err)
	assert.True(t, again.Equal(tool), "the index's definition is unchanged")
	assert.Equal(t, []toolmodel.ToolBackend{issuesLocal}, againBackends)
	page, err = idx.List(ctx, toolindex.ListRequest{})
	require.NoError(t, err)
	assert.Equal(t, []string{"alpha"}, page.Items[0].Tags)
}

// checkIdenticalRegistrationIsNoop checks that registering the same tool
// and backend again emits no event and keeps the version.
func checkIdenticalRegistrationIsNoop(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, issuesLocal))
	events := record(t, idx)
	require.NoError(t, idx.Register(ctx, reg(issueTool, issuesLocal)))
	require.NoError(t, idx.RegisterMany(ctx, []toolindex.Registration{reg(issueTool, issuesLocal)}))
	assert.Equal(t, uint64(1), idx.Version())
	assert.Empty(t, events())
}

// checkSameSourceUpdates checks that a new definition or backend
// configuration from the same source replaces the old one, in lookups and
// in search.
func checkSameSourceUpdates(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, issuesLocal))
	events := record(t, idx)
	updated := issueTool
	updated.Description = "File a bug report against a project."
	require.NoError(t, idx.Register(ctx, reg(updated, issuesLocal)))
	got, _, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err)
	assert.Equal(t, updated.Description, got.Description)
	assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.ToolUpdated, ToolID: issueTool.ID(), Backend: issuesLocal.Identity(), Version: 2}}, events())

	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "project"})
	require.NoError(t, err)
	assert.Equal(t, []string{issueTool.ID()}, summaryIDs(page.Items), "search sees the new text")
	page, err = idx.Search(ctx, toolindex.SearchRequest{Query: "repository"})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "search forgets the old text")

	// A changed configuration of the same backend is an update too.
	post := exampleAPI
	post.HTTP = &toolmodel.HTTPBackend{BaseURL: exampleAPI.HTTP.BaseURL, Method: "POST", Path: "/weather"}
	require.NoError(t, idx.Register(ctx, reg(weatherTool, exampleAPI)))
	require.NoError(t, idx.Register(ctx, reg(weatherTool, post)))
	_, backends, err := idx.GetAll(ctx, weatherTool.ID())
	require.NoError(t, err)
	assert.Equal(t, []toolmodel.ToolBackend{post}, backends)
	assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolUpdated, toolindex.ToolRegistered, toolindex.ToolUpdated}, kinds(events()))
}

// checkBackendsFromSeveralSources checks that the same definition from
// other sources adds backends, in registration order.
func checkBackendsFromSeveralSources(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, githubMCP))
	events := record(t, idx)
	require.NoError(t, idx.Register(ctx, reg(issueTool, exampleAPI)))
	require.NoError(t, idx.Register(ctx, reg(issueTool, issuesLocal)))
	_, backends, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err)
	assert.Equal(t, []toolmodel.ToolBackend{githubMCP, exampleAPI, issuesLocal}, backends, "registration order")
	assert.Equal(t, []toolindex.ChangeKind{toolindex.BackendAdded, toolindex.BackendAdded}, kinds(events()))
}

// checkConflictAndReplace checks that a different definition from another
// source is an errors.Conflict, and that Replace installs it and keeps the
// other backends.
func checkConflictAndReplace(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, githubMCP))
	other := issueTool
	other.Description = "A different definition."
	err := idx.Register(ctx, reg(other, issuesLocal))
	require.ErrorIs(t, err, errors.ErrConflict)
	got, _, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err)
	assert.True(t, got.Equal(issueTool), "a conflict changes nothing")
	assert.Equal(t, uint64(1), idx.Version())

	events := record(t, idx)
	require.NoError(t, idx.Register(ctx, reg(other, issuesLocal), toolindex.Replace()))
	got, backends, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err)
	assert.True(t, got.Equal(other), "Replace installs the new definition")
	assert.Equal(t, []toolmodel.ToolBackend{githubMCP, issuesLocal}, backends, "Replace keeps the other backends")
	assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolUpdated}, kinds(events()))
}

// checkRegisterManyIsAtomic checks that a batch with an invalid or
// conflicting registration changes nothing, and that a batch applies in
// order.
func checkRegisterManyIsAtomic(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, githubMCP))
	events := record(t, idx)
	conflicting := issueTool
	conflicting.Description = "A different definition."
	for name, batch := range map[string][]toolindex.Registration{
		"invalid":  {reg(weatherTool, issuesLocal), reg(NewTool("", "", "no name"), issuesLocal)},
		"conflict": {reg(weatherTool, issuesLocal), reg(conflicting, issuesLocal)},
	} {
		err := idx.RegisterMany(ctx, batch)
		require.Error(t, err, name)
		_, _, err = idx.GetAll(ctx, weatherTool.ID())
		require.ErrorIs(t, err, errors.ErrNotFound, "%s: no registration of a failed batch is kept", name)
	}
	assert.Equal(t, uint64(1), idx.Version())
	assert.Empty(t, events())

	// A batch applies in order: a later registration of the same
	// source updates an earlier one.
	renamed := weatherTool
	renamed.Description = "Conditions now."
	require.NoError(t, idx.RegisterMany(ctx, []toolindex.Registration{reg(weatherTool, issuesLocal), reg(renamed, issuesLocal)}))
	got, _, err := idx.GetAll(ctx, weatherTool.ID())
	require.NoError(t, err)
	assert.Equal(t, "Conditions now.", got.Description)
	evs := events()
	assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolRegistered, toolindex.ToolUpdated}, kinds(evs))
	assert.Equal(t, uint64(3), idx.Version())
}

// checkUnregisterBackend checks that removing a backend removes it from
// every tool, removes the tools it alone served (from search too), and
// numbers the events consecutively.
func checkUnregisterBackend(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	idx := setup(t, reg(issueTool, githubMCP), reg(issueTool, issuesLocal), reg(weatherTool, issuesLocal))
	events := record(t, idx)
	n, err := idx.UnregisterBackend(ctx, issuesLocal.Identity())
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	_, backends, err := idx.GetAll(ctx, issueTool.ID())
	require.NoError(t, err)
	assert.Equal(t, []toolmodel.ToolBackend{githubMCP}, backends)
	_, _, err = idx.GetAll(ctx, weatherTool.ID())
	require.ErrorIs(t, err, errors.ErrNotFound, "a tool goes with its last backend")
	// The events of one operation have consecutive versions, in an
	// order the implementation chooses.
	evs := events()
	require.Len(t, evs, 2)
	assert.ElementsMatch(t, []uint64{4, 5}, []uint64{evs[0].Version, evs[1].Version})
	evs[0].Version, evs[1].Version = 0, 0
	assert.ElementsMatch(t, []toolindex.ChangeEvent{
		{Kind: toolindex.BackendRemoved, ToolID: issueTool.ID(), Backend: issuesLocal.Identity()},
		{Kind: toolindex.ToolRemoved, ToolID: weatherTool.ID(), Backend: issuesLocal.Identity()},
	}, evs)

	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "weather city"})
	require.NoError(t, err)
	assert.Empty(t, page.Items, "a removed tool is not found")

	n, err = idx.UnregisterBackend(ctx, "local:unknown")
	require.NoError(t, err)
	assert.Zero(t, n)
	assert.Equal(t, uint64(5), idx.Version())
}
