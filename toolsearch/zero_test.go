package toolsearch_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

// TestSearcherNotMadeByNew checks that every method of a zero Searcher,
// and of a nil *Searcher, fails with a clear error instead of panicking.
func TestSearcherNotMadeByNew(t *testing.T) {
	ctx := context.Background()
	calls := []struct {
		name string
		op   string
		call func(*toolsearch.Searcher) error
	}{
		{"Upsert", "Upsert", func(s *toolsearch.Searcher) error {
			return s.Upsert(ctx, []toolmodel.Tool{newTool("ns", "t", "A tool.")})
		}},
		{"UpsertNothing", "Upsert", func(s *toolsearch.Searcher) error { return s.Upsert(ctx, nil) }},
		{"Remove", "Remove", func(s *toolsearch.Searcher) error { return s.Remove(ctx, []string{"ns:t"}) }},
		{"Search", "Search", func(s *toolsearch.Searcher) error {
			_, err := s.Search(ctx, toolindex.SearchQuery{Text: "tool", Limit: 5})
			return err
		}},
		{"Prune", "Prune", func(s *toolsearch.Searcher) error {
			_, err := s.Prune(ctx, func(string) bool { return false })
			return err
		}},
		{"Close", "Close", func(s *toolsearch.Searcher) error { return s.Close() }},
	}
	searchers := []struct {
		name string
		s    *toolsearch.Searcher
	}{
		{"zero", new(toolsearch.Searcher)},
		{"nil", nil},
	}
	for _, sc := range searchers {
		for _, c := range calls {
			t.Run(sc.name+"/"+c.name, func(t *testing.T) {
				var err error
				require.NotPanics(t, func() { err = c.call(sc.s) })
				require.ErrorIs(t, err, errors.ErrInvalidArgument)
				require.ErrorContains(t, err, "not made by toolsearch.New")
				require.ErrorContains(t, err, "toolsearch.Searcher."+c.op)
			})
		}
		t.Run(sc.name+"/SemanticStatus", func(t *testing.T) {
			require.NotPanics(t, func() { assert.Equal(t, toolsearch.SemanticStatus{}, sc.s.SemanticStatus()) })
		})
	}
}

// TestSearcherNotMadeByNewInAnIndex checks the mistake this guards
// against: a Searcher from a New whose error went unchecked, given to an
// index, makes the index's changes fail instead of crashing it.
func TestSearcherNotMadeByNewInAnIndex(t *testing.T) {
	var s *toolsearch.Searcher
	idx := toolindex.New(toolindex.WithSearcher(s))
	tool := newTool("ns", "t", "A tool.")
	backend := toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "t"}}
	err := idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: backend})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Zero(t, idx.Len())
}

// TestNilOpenAIEmbedder checks that a nil *OpenAIEmbedder fails its calls,
// and that a Searcher given one still searches lexically.
func TestNilOpenAIEmbedder(t *testing.T) {
	ctx := context.Background()
	var e *toolsearch.OpenAIEmbedder
	_, err := e.Embed(ctx, []string{"a"})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)

	s := newSearcher(t, toolsearch.WithEmbedder(e))
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{newTool("fs", "delete_file", "Delete a file.")}))
	assert.Equal(t, []string{"fs:delete_file"}, searchIDs(t, s, "delete file"))
	status := s.SemanticStatus()
	require.ErrorIs(t, status.LastErr, errors.ErrInvalidArgument)
	assert.Equal(t, 1, status.Pending)
}
