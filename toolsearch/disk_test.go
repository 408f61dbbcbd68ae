package toolsearch_test

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

func newTool(namespace, name, description string) toolmodel.Tool {
	return toolmodel.Tool{
		Tool:      mcp.Tool{Name: name, Description: description, InputSchema: map[string]any{"type": "object"}},
		Namespace: namespace,
	}
}

func searchIDs(t *testing.T, s toolindex.Searcher, text string) []string {
	t.Helper()
	hits, err := s.Search(context.Background(), toolindex.SearchQuery{Text: text, Limit: 100})
	require.NoError(t, err)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func TestDiskIndexReopensWithItsDocuments(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "index")
	s, err := toolsearch.New(toolsearch.WithPath(dir))
	require.NoError(t, err)
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		newTool("gh", "create_issue", "Open a ticket."),
		newTool("gh", "close_issue", "Close a ticket."),
	}))
	require.NoError(t, s.Close())

	s = newSearcher(t, toolsearch.WithPath(dir))
	assert.Equal(t, []string{"gh:close_issue", "gh:create_issue"}, searchIDs(t, s, "ticket"))

	// The catalogue lost a tool while the index was closed: Prune makes
	// the index forget it.
	current := map[string]bool{"gh:create_issue": true}
	removed, err := s.Prune(ctx, func(id string) bool { return current[id] })
	require.NoError(t, err)
	assert.Equal(t, 1, removed)
	assert.Equal(t, []string{"gh:create_issue"}, searchIDs(t, s, "ticket"))
}

func TestDiskIndexRefusesOtherDirectories(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("mine"), 0o600))
	_, err := toolsearch.New(toolsearch.WithPath(dir))
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.FileExists(t, filepath.Join(dir, "notes.txt"), "a directory that is not an index is left alone")

	file := filepath.Join(dir, "notes.txt")
	_, err = toolsearch.New(toolsearch.WithPath(file))
	assert.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestDiskIndexInUse(t *testing.T) {
	dir := t.TempDir()
	newSearcher(t, toolsearch.WithPath(dir))
	_, err := toolsearch.New(toolsearch.WithPath(dir))
	assert.ErrorIs(t, err, errors.ErrUnavailable)
}

func TestPruneInMemory(t *testing.T) {
	ctx := context.Background()
	s := newSearcher(t)
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{newTool("", "a", "word"), newTool("", "b", "word"), newTool("", "c", "word")}))
	removed, err := s.Prune(ctx, func(id string) bool { return id == "b" })
	require.NoError(t, err)
	assert.Equal(t, 2, removed)
	assert.Equal(t, []string{"b"}, searchIDs(t, s, "word"))

	removed, err = s.Prune(ctx, func(string) bool { return true })
	require.NoError(t, err)
	assert.Zero(t, removed)

	_, err = s.Prune(ctx, nil)
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestClose(t *testing.T) {
	ctx := context.Background()
	s, err := toolsearch.New()
	require.NoError(t, err)
	require.NoError(t, s.Close())
	require.NoError(t, s.Close(), "Close is idempotent")

	_, err = s.Search(ctx, toolindex.SearchQuery{Text: "x", Limit: 1})
	require.ErrorIs(t, err, toolsearch.ErrClosed)
	require.ErrorIs(t, s.Upsert(ctx, []toolmodel.Tool{newTool("", "a", "b")}), toolsearch.ErrClosed)
	require.ErrorIs(t, s.Remove(ctx, []string{"a"}), toolsearch.ErrClosed)
	_, err = s.Prune(ctx, func(string) bool { return true })
	require.ErrorIs(t, err, toolsearch.ErrClosed)
	assert.False(t, errors.IsRetryable(err))
}

func TestNewRejectsBadWeights(t *testing.T) {
	tests := map[string]toolsearch.Weights{
		"AllZero":            {},
		"Negative":           {Name: 1, Description: -1},
		"OnlyLeadPairs":      {LeadPairs: 1},
		"NegativeLeadPairs":  {Name: 1, LeadPairs: -0.5},
		"LeadPairsNotFinite": {Name: 1, LeadPairs: math.Inf(1)},
	}
	for name, w := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := toolsearch.New(toolsearch.WithWeights(w))
			assert.ErrorIs(t, err, errors.ErrInvalidArgument)
		})
	}
}
