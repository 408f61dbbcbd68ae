package toolindex_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// TestZeroMemoryIndex checks that every method of a MemoryIndex that New
// did not make works, whichever is called first.
func TestZeroMemoryIndex(t *testing.T) {
	ctx := context.Background()
	tool := newTool("gh", "create_issue", "Open an issue.")
	backend := mcpBackend("github")
	tests := []struct {
		name  string
		first func(*toolindex.MemoryIndex) error
	}{
		{"Register", func(ix *toolindex.MemoryIndex) error { return ix.Register(ctx, reg(tool, backend)) }},
		{"RegisterMany", func(ix *toolindex.MemoryIndex) error {
			return ix.RegisterMany(ctx, []toolindex.Registration{reg(tool, backend)})
		}},
		{"Search", func(ix *toolindex.MemoryIndex) error {
			page, err := ix.Search(ctx, toolindex.SearchRequest{Query: "issue"})
			if err == nil {
				assert.Empty(t, page.Items)
			}
			return err
		}},
		{"List", func(ix *toolindex.MemoryIndex) error {
			page, err := ix.List(ctx, toolindex.ListRequest{Backend: "mcp:github", Namespace: "gh"})
			if err == nil {
				assert.Empty(t, page.Items)
			}
			return err
		}},
		{"GetAll", func(ix *toolindex.MemoryIndex) error {
			_, _, err := ix.GetAll(ctx, "gh:create_issue")
			require.Error(t, err)
			return nil
		}},
		{"Namespaces", func(ix *toolindex.MemoryIndex) error {
			names, err := ix.Namespaces(ctx)
			assert.Empty(t, names)
			return err
		}},
		{"UnregisterBackend", func(ix *toolindex.MemoryIndex) error {
			n, err := ix.UnregisterBackend(ctx, "mcp:github")
			assert.Zero(t, n)
			return err
		}},
		{"Refresh", func(ix *toolindex.MemoryIndex) error { return ix.Refresh(ctx) }},
		{"OnChange", func(ix *toolindex.MemoryIndex) error { ix.OnChange(func(toolindex.ChangeEvent) {})(); return nil }},
		{"Len", func(ix *toolindex.MemoryIndex) error { assert.Zero(t, ix.Len()); return nil }},
		{"HasSource", func(ix *toolindex.MemoryIndex) error { assert.False(t, ix.HasSource("mcp:github")); return nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var ix toolindex.MemoryIndex
			require.NotPanics(t, func() { require.NoError(t, tt.first(&ix)) })

			// Whatever came first, the index then works as New's does.
			require.NoError(t, ix.Register(ctx, reg(tool, backend)))
			page, err := ix.Search(ctx, toolindex.SearchRequest{Query: "open issue"})
			require.NoError(t, err)
			assert.Equal(t, []string{"gh:create_issue"}, ids(page.Items))
			_, got, err := ix.GetAll(ctx, "gh:create_issue")
			require.NoError(t, err)
			assert.Equal(t, []toolmodel.ToolBackend{backend}, got)
			n, err := ix.UnregisterBackend(ctx, "mcp:github")
			require.NoError(t, err)
			assert.Equal(t, 1, n)
			assert.Zero(t, ix.Len())
		})
	}
}

// TestZeroMemoryIndexFirstUseRaces makes the first change and the first
// reads of a zero MemoryIndex at once; -race checks that setting it up
// is synchronized with them.
func TestZeroMemoryIndexFirstUseRaces(t *testing.T) {
	ctx := context.Background()
	var ix toolindex.MemoryIndex
	var wg sync.WaitGroup
	// Each goroutine reports its error here; require may only stop the
	// test from the test's own goroutine.
	errs := make(chan error, 12)
	for i := range 4 {
		wg.Go(func() {
			tool := newTool("ns", "tool_"+string(rune('a'+i)), "A probe.")
			errs <- ix.Register(ctx, reg(tool, localBackend("probe")))
		})
		wg.Go(func() {
			_, err := ix.Search(ctx, toolindex.SearchRequest{Query: "probe"})
			errs <- err
			_, err = ix.List(ctx, toolindex.ListRequest{Namespace: "ns"})
			errs <- err
			_, _, _ = ix.GetAll(ctx, "ns:tool_a")
			_ = ix.Len()
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	assert.Equal(t, 4, ix.Len())
}

// TestZeroLexicalSearcher checks a LexicalSearcher that NewLexicalSearcher
// did not make, whichever method is called first.
func TestZeroLexicalSearcher(t *testing.T) {
	ctx := context.Background()
	tool := newTool("gh", "create_issue", "Open an issue.")
	query := toolindex.SearchQuery{Text: "issue", Limit: 5}
	tests := []struct {
		name  string
		first func(*toolindex.LexicalSearcher) error
	}{
		{"Upsert", func(s *toolindex.LexicalSearcher) error { return s.Upsert(ctx, []toolmodel.Tool{tool}) }},
		{"Remove", func(s *toolindex.LexicalSearcher) error { return s.Remove(ctx, []string{"gh:create_issue"}) }},
		{"Search", func(s *toolindex.LexicalSearcher) error {
			hits, err := s.Search(ctx, query)
			assert.Empty(t, hits)
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s toolindex.LexicalSearcher
			require.NotPanics(t, func() { require.NoError(t, tt.first(&s)) })
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool}))
			hits, err := s.Search(ctx, query)
			require.NoError(t, err)
			require.Len(t, hits, 1)
			assert.Equal(t, "gh:create_issue", hits[0].ID)
		})
	}
}
