package toolindex_test

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// staticSource is a Source whose listing the test sets.
type staticSource struct {
	identity string
	mu       sync.Mutex
	regs     []toolindex.Registration
	err      error
	listings int
}

func (s *staticSource) Identity() string { return s.identity }

func (s *staticSource) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.listings++
	return s.regs, s.err
}

func (s *staticSource) listed() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.listings
}

func (s *staticSource) set(regs []toolindex.Registration, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.regs, s.err = regs, err
}

// events subscribes to idx and returns a function that returns the events
// seen since the last call.
func events(t *testing.T, idx toolindex.Index) func() []toolindex.ChangeEvent {
	t.Helper()
	var mu sync.Mutex
	var seen []toolindex.ChangeEvent
	t.Cleanup(idx.OnChange(func(ev toolindex.ChangeEvent) {
		mu.Lock()
		seen = append(seen, ev)
		mu.Unlock()
	}))
	return func() []toolindex.ChangeEvent {
		mu.Lock()
		defer mu.Unlock()
		out := seen
		seen = nil
		return out
	}
}

func TestRefreshReconcilesSources(t *testing.T) {
	ctx := context.Background()
	gh := mcpBackend("github")
	src := &staticSource{identity: gh.Identity()}
	src.set([]toolindex.Registration{
		reg(newTool("gh", "create_issue", "Open an issue."), gh),
		reg(newTool("gh", "close_issue", "Close an issue."), gh),
	}, nil)
	idx := toolindex.New(toolindex.WithSource(src))
	// A tool served by the source and by another backend.
	require.NoError(t, idx.Register(ctx, reg(newTool("gh", "close_issue", "Close an issue."), localBackend("close"))))
	seen := events(t, idx)

	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, []toolindex.ChangeEvent{
		{Kind: toolindex.ToolRegistered, ToolID: "gh:create_issue", Backend: "mcp:github", Version: 2},
		{Kind: toolindex.BackendAdded, ToolID: "gh:close_issue", Backend: "mcp:github", Version: 3},
		{Kind: toolindex.Refreshed, Version: 4},
	}, seen())

	// The source changes: one tool updated, one gone, one new.
	src.set([]toolindex.Registration{
		reg(newTool("gh", "create_issue", "Open a new issue."), gh),
		reg(newTool("gh", "merge_pr", "Merge a pull request."), gh),
	}, nil)
	require.NoError(t, idx.Refresh(ctx))
	got := seen()
	require.Len(t, got, 4)
	assert.Equal(t, []toolindex.ChangeEvent{
		{Kind: toolindex.ToolUpdated, ToolID: "gh:create_issue", Backend: "mcp:github", Version: 5},
		{Kind: toolindex.ToolRegistered, ToolID: "gh:merge_pr", Backend: "mcp:github", Version: 6},
		{Kind: toolindex.BackendRemoved, ToolID: "gh:close_issue", Backend: "mcp:github", Version: 7},
		{Kind: toolindex.Refreshed, Version: 8},
	}, got)
	_, backends, err := idx.GetAll(ctx, "gh:close_issue")
	require.NoError(t, err)
	assert.Equal(t, []toolmodel.ToolBackend{localBackend("close")}, backends, "the other backend stays")

	// An unchanged source changes nothing but the refreshed event.
	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.Refreshed, Version: 9}}, seen())

	// A source that lists nothing any more takes its tools away.
	src.set(nil, nil)
	require.NoError(t, idx.Refresh(ctx))
	assert.Equal(t, 1, idx.Len())
}

func TestRefreshOfSomeSources(t *testing.T) {
	ctx := context.Background()
	gh, jira := mcpBackend("github"), mcpBackend("jira")
	ghSrc, jiraSrc := &staticSource{identity: gh.Identity()}, &staticSource{identity: jira.Identity()}
	ghSrc.set([]toolindex.Registration{reg(newTool("gh", "create_issue", "Open an issue."), gh)}, nil)
	jiraSrc.set([]toolindex.Registration{reg(newTool("jira", "create_ticket", "Open a ticket."), jira)}, nil)
	idx := toolindex.New(toolindex.WithSource(ghSrc), toolindex.WithSource(jiraSrc))
	require.NoError(t, idx.Refresh(ctx))
	seen := events(t, idx)

	ghSrc.set([]toolindex.Registration{reg(newTool("gh", "close_issue", "Close an issue."), gh)}, nil)
	jiraSrc.set(nil, nil)
	require.NoError(t, idx.Refresh(ctx, gh.Identity(), "mcp:unknown"))
	assert.Equal(t, []toolindex.ChangeEvent{
		{Kind: toolindex.ToolRegistered, ToolID: "gh:close_issue", Backend: "mcp:github", Version: 4},
		{Kind: toolindex.ToolRemoved, ToolID: "gh:create_issue", Backend: "mcp:github", Version: 5},
		{Kind: toolindex.Refreshed, Version: 6},
	}, seen(), "only the named source is listed; an identity of no source is ignored")
	assert.Equal(t, 2, ghSrc.listed())
	assert.Equal(t, 1, jiraSrc.listed())
	_, _, err := idx.GetAll(ctx, "jira:create_ticket")
	require.NoError(t, err, "the source left alone keeps its tools")

	require.NoError(t, idx.Refresh(ctx, "mcp:unknown"))
	assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.Refreshed, Version: 7}}, seen(), "nothing to list still ends in the event")
	assert.Equal(t, 2, ghSrc.listed())
	assert.Equal(t, 1, jiraSrc.listed())
}

func TestRefreshFailures(t *testing.T) {
	ctx := context.Background()
	good := &staticSource{identity: "local:good"}
	good.set([]toolindex.Registration{reg(newTool("", "good", "fine"), localBackend("good"))}, nil)
	broken := &staticSource{identity: "mcp:broken"}
	broken.set(nil, errors.Errorf(errors.Unavailable, "server down"))
	liar := &staticSource{identity: "mcp:liar"}
	liar.set([]toolindex.Registration{reg(newTool("", "liar", "wrong backend"), mcpBackend("other"))}, nil)
	invalid := &staticSource{identity: "local:invalid"}
	invalid.set([]toolindex.Registration{reg(newTool("", "bad name", "invalid"), localBackend("invalid"))}, nil)

	idx := toolindex.New(toolindex.WithSource(broken), toolindex.WithSource(liar), toolindex.WithSource(invalid), toolindex.WithSource(good), toolindex.WithSource(nil))
	seen := events(t, idx)
	err := idx.Refresh(ctx)
	require.ErrorIs(t, err, errors.ErrUnavailable, "a source's error keeps its code")
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	require.ErrorContains(t, err, "mcp:broken")
	require.ErrorContains(t, err, "another identity, mcp:other")
	require.ErrorContains(t, err, "local:invalid")
	assert.Equal(t, 1, idx.Len(), "the good source is refreshed anyway")
	last := seen()
	require.NotEmpty(t, last)
	assert.Equal(t, toolindex.Refreshed, last[len(last)-1].Kind)

	// A failing source keeps the tools it had.
	broken.set([]toolindex.Registration{reg(newTool("", "flaky", "sometimes there"), mcpBackend("broken"))}, nil)
	require.Error(t, idx.Refresh(ctx))
	broken.set(nil, errors.Errorf(errors.Unavailable, "down again"))
	require.Error(t, idx.Refresh(ctx))
	_, _, err = idx.GetAll(ctx, "flaky")
	require.NoError(t, err)

	// A context done during the pass skips the sources left but still
	// ends the pass.
	stopping, cancel := context.WithCancel(ctx)
	idx = toolindex.New(toolindex.WithSource(&cancelingSource{identity: "mcp:first", cancel: cancel}), toolindex.WithSource(good))
	seen = events(t, idx)
	require.ErrorIs(t, idx.Refresh(stopping), context.Canceled)
	assert.Zero(t, idx.Len(), "the second source was skipped")
	assert.Equal(t, []toolindex.ChangeKind{toolindex.Refreshed}, kindsOf(seen()))
}

// cancelingSource lists nothing and cancels the refresh that lists it.
type cancelingSource struct {
	identity string
	cancel   context.CancelFunc
}

func (s *cancelingSource) Identity() string { return s.identity }

func (s *cancelingSource) ListTools(context.Context) ([]toolindex.Registration, error) {
	s.cancel()
	return nil, nil
}

func TestRefreshConflictNeedsReplace(t *testing.T) {
	ctx := context.Background()
	tool := newTool("", "shared", "one definition")
	other := newTool("", "shared", "another definition")
	strict := &staticSource{identity: "mcp:strict"}
	strict.set([]toolindex.Registration{reg(other, mcpBackend("strict"))}, nil)
	lenient := &staticSource{identity: "mcp:lenient"}
	lenient.set([]toolindex.Registration{reg(other, mcpBackend("lenient"))}, nil)

	idx := toolindex.New(toolindex.WithSource(strict), toolindex.WithSource(lenient, toolindex.Replace()))
	require.NoError(t, idx.Register(ctx, reg(tool, localBackend("shared"))))
	err := idx.Refresh(ctx)
	require.ErrorIs(t, err, errors.ErrConflict)
	got, backends, err := idx.GetAll(ctx, "shared")
	require.NoError(t, err)
	assert.Equal(t, "another definition", got.Description, "the lenient source replaced the definition")
	assert.Len(t, backends, 2, "the strict source was refused")
}

func kindsOf(evs []toolindex.ChangeEvent) []toolindex.ChangeKind {
	out := make([]toolindex.ChangeKind, len(evs))
	for i, ev := range evs {
		out[i] = ev.Kind
	}
	return out
}

// failingSearcher wraps a LexicalSearcher and fails the calls it is told
// to fail.
type failingSearcher struct {
	*toolindex.LexicalSearcher
	failUpsert, failRemove bool
}

func (f *failingSearcher) Upsert(ctx context.Context, tools []toolmodel.Tool) error {
	if f.failUpsert {
		return errors.Errorf(errors.Unavailable, "upsert refused")
	}
	return f.LexicalSearcher.Upsert(ctx, tools)
}

func (f *failingSearcher) Remove(ctx context.Context, ids []string) error {
	if f.failRemove {
		return errors.Errorf(errors.Unavailable, "remove refused")
	}
	return f.LexicalSearcher.Remove(ctx, ids)
}

func TestSearcherFailureLeavesIndexUnchanged(t *testing.T) {
	ctx := context.Background()
	s := &failingSearcher{LexicalSearcher: toolindex.NewLexicalSearcher()}
	src := &staticSource{identity: "mcp:src"}
	idx := toolindex.New(toolindex.WithSearcher(s), toolindex.WithSource(src))
	old := newTool("", "kept", "original words")
	src.set([]toolindex.Registration{reg(old, mcpBackend("src")), reg(newTool("", "doomed", "goes away"), mcpBackend("src"))}, nil)
	require.NoError(t, idx.Refresh(ctx))
	seen := events(t, idx)
	version := idx.Version()

	s.failUpsert = true
	err := idx.Register(ctx, reg(newTool("", "fresh", "new words"), localBackend("fresh")))
	require.ErrorIs(t, err, errors.ErrUnavailable)
	require.ErrorContains(t, err, "searcher upsert")
	_, _, err = idx.GetAll(ctx, "fresh")
	require.ErrorIs(t, err, errors.ErrNotFound)

	// A refresh that upserts, then fails to remove, undoes its upserts.
	s.failUpsert, s.failRemove = false, true
	src.set([]toolindex.Registration{reg(newTool("", "kept", "changed words"), mcpBackend("src")), reg(newTool("", "added", "brand new"), mcpBackend("src"))}, nil)
	require.ErrorIs(t, idx.Refresh(ctx), errors.ErrUnavailable)
	s.failRemove = false
	for query, want := range map[string][]string{"original": {"kept"}, "changed": {}, "brand": {}, "away": {"doomed"}} {
		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: query})
		require.NoError(t, err)
		assert.Equal(t, want, ids(page.Items), "query %q", query)
	}
	assert.Equal(t, version+1, idx.Version(), "only the refreshed event")
	assert.Equal(t, []toolindex.ChangeKind{toolindex.Refreshed}, kindsOf(seen()))
}

func TestDefaultSelectionAmongRegisteredBackends(t *testing.T) {
	ctx := context.Background()
	tool := newTool("", "echo", "say it back")
	idx := toolindex.New()
	require.NoError(t, idx.RegisterMany(ctx, []toolindex.Registration{reg(tool, mcpBackend("m")), reg(tool, localBackend("l"))}))
	got, backends, err := idx.GetAll(ctx, "echo")
	require.NoError(t, err)
	b, err := toolindex.DefaultSelector{}.Select(ctx, &got, backends, nil)
	require.NoError(t, err)
	assert.Equal(t, toolmodel.BackendLocal, b.Kind)
	b, err = toolindex.DefaultSelector{}.Select(ctx, &got, backends, []toolindex.SelectHint{{Backend: "mcp:nope"}, {Kind: toolmodel.BackendMCP}})
	require.NoError(t, err)
	assert.Equal(t, "mcp:m", b.Identity(), "the first hint that matches wins")
}

func TestSubscriberPanicDoesNotStopDelivery(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	seen := events(t, idx)
	panicking := true
	stop := idx.OnChange(func(toolindex.ChangeEvent) {
		if panicking {
			panic("subscriber bug")
		}
	})
	defer stop()
	assert.Panics(t, func() { _ = idx.Register(ctx, reg(newTool("", "one", "x"), localBackend("one"))) })
	panicking = false
	require.NoError(t, idx.Register(ctx, reg(newTool("", "two", "x"), localBackend("two"))))
	assert.Equal(t, []toolindex.ChangeKind{toolindex.ToolRegistered, toolindex.ToolRegistered}, kindsOf(seen()))
	assert.Equal(t, 2, idx.Len(), "the change that panicked in delivery was applied")
}

func TestOnChangeNilAndLateSubscriber(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	idx.OnChange(nil)()
	require.NoError(t, idx.Register(ctx, reg(newTool("", "one", "x"), localBackend("one"))))
	seen := events(t, idx)
	require.NoError(t, idx.Register(ctx, reg(newTool("", "two", "x"), localBackend("two"))))
	assert.Equal(t, []toolindex.ChangeEvent{{Kind: toolindex.ToolRegistered, ToolID: "two", Backend: "local:two", Version: 2}}, seen(), "a subscriber sees only later changes")
}

func TestRegisterErrorsNameTheRegistration(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	err := idx.RegisterMany(ctx, []toolindex.Registration{reg(newTool("", "ok", "x"), localBackend("a")), reg(newTool("", "ok2", "x"), toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP})})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	require.ErrorContains(t, err, "registration 1")
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "toolindex.RegisterMany", e.Op)

	err = idx.Register(ctx, reg(newTool("", "shared", "x"), localBackend("a")))
	require.NoError(t, err)
	err = idx.Register(ctx, reg(newTool("", "shared", "y"), localBackend("b")))
	require.ErrorAs(t, err, &e)
	assert.Equal(t, errors.Conflict, e.Code)
	assert.Equal(t, "shared", e.ToolID)
	assert.Equal(t, "local:b", e.Backend)
}

func TestSummaryOfSearchAndList(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	tool := newTool("ops", "restart", "Restart a service.\nSecond line with details.")
	tool.Annotations = nil
	require.NoError(t, idx.Register(ctx, reg(tool, localBackend("ops"))))
	page, err := idx.List(ctx, toolindex.ListRequest{})
	require.NoError(t, err)
	require.Len(t, page.Items, 1)
	assert.Equal(t, toolindex.Summary{ID: "ops:restart", Namespace: "ops", Name: "restart", Description: "Restart a service.", Backends: []toolmodel.BackendKind{toolmodel.BackendLocal}}, page.Items[0])
}

// TestListWithBothFilters covers both plans of a listing filtered by
// namespace and backend: walking the backend's tools when they are fewer
// than the namespace's, and the namespace's otherwise.
func TestListWithBothFilters(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	var regs []toolindex.Registration
	for i := range 30 { // "big": 30 tools, 3 of them on "few"
		b := localBackend("many")
		if i%10 == 0 {
			b = localBackend("few")
		}
		regs = append(regs, reg(newTool("big", fmt.Sprintf("t%02d", i), "x"), b))
	}
	for i := range 2 { // "small": 2 tools, both on "few"
		regs = append(regs, reg(newTool("small", fmt.Sprintf("t%02d", i), "x"), localBackend("few")))
	}
	require.NoError(t, idx.RegisterMany(ctx, regs))

	tests := []struct {
		name, namespace, backend string
		want                     []string
	}{
		{"backend smaller", "big", "local:few", []string{"big:t00", "big:t10", "big:t20"}},
		{"namespace smaller", "small", "local:few", []string{"small:t00", "small:t01"}},
		{"unknown backend", "big", "local:none", []string{}},
		{"unknown namespace", "none", "local:few", []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := toolindex.ListRequest{Namespace: tt.namespace, Backend: tt.backend, Limit: 1}
			got := []string{}
			for range 10 {
				page, err := idx.List(ctx, req)
				require.NoError(t, err)
				got = append(got, ids(page.Items)...)
				if req.Cursor = page.NextCursor; req.Cursor == "" {
					break
				}
			}
			assert.Equal(t, tt.want, got)
		})
	}
}

// blockingSource lists nothing until release is closed.
type blockingSource struct {
	identity string
	started  chan struct{}
	release  chan struct{}
}

func (s *blockingSource) Identity() string { return s.identity }

func (s *blockingSource) ListTools(ctx context.Context) ([]toolindex.Registration, error) {
	close(s.started)
	select {
	case <-s.release:
		return nil, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func TestRefreshOfASlowSourceDelaysNoOther(t *testing.T) {
	ctx := context.Background()
	slow := &blockingSource{identity: "mcp:slow", started: make(chan struct{}), release: make(chan struct{})}
	gh := mcpBackend("github")
	fast := &staticSource{identity: gh.Identity()}
	fast.set([]toolindex.Registration{reg(newTool("gh", "create_issue", "Open an issue."), gh)}, nil)
	idx := toolindex.New(toolindex.WithSource(slow), toolindex.WithSource(fast))

	done := make(chan error, 1)
	go func() { done <- idx.Refresh(ctx, slow.Identity()) }()
	<-slow.started
	require.NoError(t, idx.Refresh(ctx, fast.Identity()), "the fast source is refreshed while the slow one lists")
	_, _, err := idx.GetAll(ctx, "gh:create_issue")
	require.NoError(t, err)
	close(slow.release)
	require.NoError(t, <-done)
}

func TestHasSource(t *testing.T) {
	gh := &staticSource{identity: "mcp:github"}
	idx := toolindex.New(toolindex.WithSource(gh))
	assert.True(t, idx.HasSource("mcp:github"))
	assert.False(t, idx.HasSource("mcp:jira"))
	assert.False(t, toolindex.New().HasSource("mcp:github"))
}

// TestRefreshSourcesOfOneIdentity checks that sources sharing an identity
// are reconciled together: neither's listing takes the other's tools away.
func TestRefreshSourcesOfOneIdentity(t *testing.T) {
	ctx := context.Background()
	grpc := toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Address: "api:443", Method: "/a.B/C"}}
	tool := func(name string) toolindex.Registration { return reg(newTool("api", name, "Does "+name+"."), grpc) }
	invalid := reg(newTool("api", "bad name", "Invalid."), grpc)
	down := errors.Errorf(errors.Unavailable, "server down")

	type listing struct {
		regs []toolindex.Registration
		err  error
	}
	tests := []struct {
		name         string
		before       [2]listing // what the first refresh lists
		after        [2]listing // what the second refresh lists
		want         []string
		wantErr      error
		wantErrNames string
	}{
		{
			name:   "both listings are kept",
			before: [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b")}}},
			after:  [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b")}}},
			want:   []string{"api:a", "api:b"},
		},
		{
			name:   "a tool neither lists goes",
			before: [2]listing{{regs: []toolindex.Registration{tool("a"), tool("c")}}, {regs: []toolindex.Registration{tool("b")}}},
			after:  [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b")}}},
			want:   []string{"api:a", "api:b"},
		},
		{
			name:   "a tool stays while one lists it",
			before: [2]listing{{regs: []toolindex.Registration{tool("a"), tool("s")}}, {regs: []toolindex.Registration{tool("b"), tool("s")}}},
			after:  [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b"), tool("s")}}},
			want:   []string{"api:a", "api:b", "api:s"},
		},
		{
			name:         "a source that fails keeps the tools of its identity",
			before:       [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b")}}},
			after:        [2]listing{{err: down}, {}},
			want:         []string{"api:a", "api:b"},
			wantErr:      errors.ErrUnavailable,
			wantErrNames: "source grpc:api:443 #1",
		},
		{
			name:         "an invalid listing keeps the tools of its identity",
			before:       [2]listing{{regs: []toolindex.Registration{tool("a")}}, {regs: []toolindex.Registration{tool("b")}}},
			after:        [2]listing{{}, {regs: []toolindex.Registration{invalid}}},
			want:         []string{"api:a", "api:b"},
			wantErr:      errors.ErrInvalidArgument,
			wantErrNames: "source grpc:api:443 #2",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			first, second := &staticSource{identity: grpc.Identity()}, &staticSource{identity: grpc.Identity()}
			idx := toolindex.New(toolindex.WithSource(first), toolindex.WithSource(second))
			first.set(tt.before[0].regs, tt.before[0].err)
			second.set(tt.before[1].regs, tt.before[1].err)
			require.NoError(t, idx.Refresh(ctx))

			first.set(tt.after[0].regs, tt.after[0].err)
			second.set(tt.after[1].regs, tt.after[1].err)
			err := idx.Refresh(ctx)
			if tt.wantErr != nil {
				require.ErrorIs(t, err, tt.wantErr)
				require.ErrorContains(t, err, tt.wantErrNames)
			} else {
				require.NoError(t, err)
			}
			page, err := idx.List(ctx, toolindex.ListRequest{})
			require.NoError(t, err)
			assert.Equal(t, tt.want, ids(page.Items))
		})
	}
}

func TestRefreshSourcesOfOneIdentityTogether(t *testing.T) {
	ctx := context.Background()
	gh := mcpBackend("github")
	first, second := &staticSource{identity: gh.Identity()}, &staticSource{identity: gh.Identity()}
	other := &staticSource{identity: "mcp:jira"}
	first.set([]toolindex.Registration{reg(newTool("gh", "shared", "As the first source has it."), gh)}, nil)
	second.set([]toolindex.Registration{reg(newTool("gh", "shared", "As the second source has it."), gh)}, nil)
	idx := toolindex.New(toolindex.WithSource(first), toolindex.WithSource(other), toolindex.WithSource(second))
	assert.True(t, idx.HasSource(gh.Identity()))

	require.NoError(t, idx.Refresh(ctx, gh.Identity()))
	assert.Equal(t, 1, first.listed(), "refreshing an identity lists each of its sources")
	assert.Equal(t, 1, second.listed())
	assert.Zero(t, other.listed())
	got, _, err := idx.GetAll(ctx, "gh:shared")
	require.NoError(t, err)
	assert.Equal(t, "As the second source has it.", got.Description, "the source given last sets a tool both list")
}

// TestIndexMethodSet pins the methods of Index: other modules implement
// it, so it grows only by optional interfaces, and the lookups are
// GetAll's alone, the choice among backends being a selector's.
func TestIndexMethodSet(t *testing.T) {
	typ := reflect.TypeFor[toolindex.Index]()
	names := make([]string, typ.NumMethod())
	for i := range names {
		names[i] = typ.Method(i).Name
	}
	assert.Equal(t, []string{
		"GetAll", "List", "Namespaces", "OnChange", "Refresh", "Register", "RegisterMany", "Search", "UnregisterBackend", "Version",
	}, names)
}
