package toolindextest

// Checks of search.

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// checkSearch checks the summaries and scores of search hits and the
// namespace filter.
func checkSearch(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	tagged := weatherTool
	tagged.Tags = []string{"climate"}
	tagged.Title = "Weather now"
	idx := setup(t, reg(issueTool, githubMCP), reg(issueTool, issuesLocal), reg(tagged, exampleAPI))
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
}

// checkSearchPages checks that the pages of a search concatenate to the
// whole ranking.
func checkSearchPages(t *testing.T, setup setupFunc) {
	ctx := context.Background()
	var regs []toolindex.Registration
	for _, tool := range catalogue(60) {
		regs = append(regs, reg(tool, issuesLocal))
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
}
