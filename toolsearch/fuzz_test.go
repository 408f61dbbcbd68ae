package toolsearch_test

import (
	"context"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// querySyntax holds the characters that bleve's query string language
// gives a meaning to.
const querySyntax = `+-:"*?~^(){}[]/\!&|<>=`

// FuzzSearch checks that any query text is searched as plain words: it
// never fails, never panics, returns well-ordered hits of indexed tools,
// and, unless it may name a tool (mayName), gives the same hits as the
// text with every query-language character replaced by a space.
func FuzzSearch(f *testing.F) {
	for _, seed := range []string{
		"", "create issue", "+foo -bar name:x", `"exact phrase"~2`, "wild* ca?d", "a^5 b",
		"(a OR b) AND NOT c", "/regex.*/", "name:>10", `\`, "查询余票", "ab\xffcd", "createIssue",
		strings.Repeat("word ", 200),
	} {
		f.Add(seed, "")
		f.Add(seed, "gh")
	}
	s := newSearcher(f)
	ctx := context.Background()
	tools := []toolmodel.Tool{
		newTool("gh", "create_issue", "Open a new issue in a repository."),
		newTool("gh", "list-pulls", "List the pull requests: open, closed or all."),
		newTool("fs", "readFile", "Read a file (any encoding) and return its text."),
		newTool("", "name", "A tool whose name is a query-language field: name:x."),
		newTool("", "wildcard", "Matches wild cards * and ? in paths."),
	}
	require.NoError(f, s.Upsert(ctx, tools))
	indexed := map[string]bool{}
	for i := range tools {
		indexed[tools[i].ID()] = true
	}

	f.Fuzz(func(t *testing.T, text, namespace string) {
		q := toolindex.SearchQuery{Text: text, Namespace: namespace, Limit: 10}
		hits, err := s.Search(ctx, q)
		require.NoError(t, err)
		for i, h := range hits {
			assert.True(t, indexed[h.ID], "hit %q is not an indexed tool", h.ID)
			if i > 0 {
				prev := hits[i-1]
				assert.True(t, prev.Score > h.Score || prev.Score == h.Score && prev.ID < h.ID, "hits out of order: %v", hits)
			}
		}
		q.Text = strings.Map(func(r rune) rune {
			if strings.ContainsRune(querySyntax, r) {
				return ' '
			}
			return r
		}, text)
		if mayName(text) || mayName(q.Text) {
			// The characters are part of the names a lookup seeks
			// ("gh:create_issue"): only the ranking ignores them.
			return
		}
		plain, err := s.Search(ctx, q)
		require.NoError(t, err)
		assert.Equal(t, plain, hits, "query syntax changed the hits of %q", text)
	})
}

// mayName reports whether a query may name tools: one word, which may be
// a tool's ID or name, or a "select:" list.
func mayName(query string) bool {
	query = strings.TrimSpace(query)
	if len(query) >= len("select:") && strings.EqualFold(query[:len("select:")], "select:") {
		return true
	}
	return query != "" && !strings.ContainsFunc(query, unicode.IsSpace)
}

// FuzzLongQuery checks that a long query, any text repeated up to about
// 128 KB (several chunks of analysis), is searched without error, within
// a generous time, and gives well-ordered hits of indexed tools.
func FuzzLongQuery(f *testing.F) {
	for _, seed := range []string{"read file", "createIssue list_pulls", "查询余票", "ab\xffcd", "+foo -bar name:x", "a"} {
		f.Add(seed, uint16(20000))
	}
	s := newSearcher(f)
	tools := []toolmodel.Tool{
		newTool("gh", "create_issue", "Open a new issue in a repository."),
		newTool("fs", "readFile", "Read a file (any encoding) and return its text."),
		newTool("fs", "write_file", "Write a file."),
	}
	require.NoError(f, s.Upsert(context.Background(), tools))
	f.Fuzz(func(t *testing.T, text string, repeat uint16) {
		if text == "" {
			return
		}
		text = strings.Repeat(text+" ", min(int(repeat)+1, 128<<10/(len(text)+1)))
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		hits, err := s.Search(ctx, toolindex.SearchQuery{Text: text, Limit: 5})
		require.NoError(t, err)
		for i := 1; i < len(hits); i++ {
			prev, h := hits[i-1], hits[i]
			assert.True(t, prev.Score > h.Score || prev.Score == h.Score && prev.ID < h.ID, "hits out of order: %v", hits)
		}
	})
}
