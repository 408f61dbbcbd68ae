package toolindex_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// TestSearchRankingGolden renders the top results of typical queries on
// the synthetic catalogue, so that any change to tokenizing or scoring
// shows up as a reviewable diff. Run with -update to accept a change.
func TestSearchRankingGolden(t *testing.T) {
	ctx := context.Background()
	idx := toolindex.New()
	var regs []toolindex.Registration
	for _, tool := range synthCatalogue(800) {
		regs = append(regs, reg(tool, mcpBackend(tool.Namespace)))
	}
	require.NoError(t, idx.RegisterMany(ctx, regs))

	var b strings.Builder
	for _, q := range []struct{ query, namespace string }{
		{"create issue", ""},
		{"createIssue", ""},
		{"send a message to a slack channel", ""},
		{"list pull requests", "github"},
		{"upload file", ""},
		{"approve invoice payment", ""},
		{`name:foo +merge -pull "request" *`, ""},
	} {
		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: q.query, Namespace: q.namespace, Limit: 5})
		require.NoError(t, err)
		fmt.Fprintf(&b, "query %q namespace %q\n", q.query, q.namespace)
		for i, s := range page.Items {
			fmt.Fprintf(&b, "  %d. %-36s %.4f\n", i+1, s.ID, s.Score)
		}
	}
	path := filepath.Join("testdata", "rankings.golden")
	if *update {
		require.NoError(t, os.WriteFile(path, []byte(b.String()), 0o644))
	}
	want, err := os.ReadFile(path)
	require.NoError(t, err, "run the test with -update to create the golden file")
	assert.Equal(t, string(want), b.String())
}
