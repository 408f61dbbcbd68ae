package toolindex

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
)

// FuzzLexicalSearch indexes a tool made of fuzzed text and runs a fuzzed
// query against a small catalogue: searching never panics or fails, hits
// are ranked properly, and the fuzzed tool is found by its own name's
// words when it has any.
func FuzzLexicalSearch(f *testing.F) {
	f.Add("create_issue", "Open an issue.", `name:foo +bar -baz "quoted" *`, "github")
	f.Add("HTTPServer2", "Serve HTTP/2 \u00e9t\u00e9", "http server", "")
	f.Add("x", "", "", "ns")
	f.Add("a-b.c_d", "\xff\xfe", "\x00 AND ( ) ~ ^", "a")
	f.Fuzz(func(t *testing.T, name, description, query, namespace string) {
		ctx := context.Background()
		s := NewLexicalSearcher()
		base := []toolmodel.Tool{
			lexTool("github", "create_issue", "Open a new issue.", json.RawMessage(`{"properties":{"owner":{}}}`)),
			lexTool("", "get_weather", "Conditions in a city.", nil),
		}
		require.NoError(t, s.Upsert(ctx, base))
		if name != "" {
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{lexTool(namespace, name, description, nil)}))
			checkLexical(t, s)
		}
		for _, q := range []SearchQuery{
			{Text: query, Limit: 10},
			{Text: query, Namespace: namespace, Offset: 1, Limit: 3},
		} {
			hits, err := s.Search(ctx, q)
			require.NoError(t, err)
			require.LessOrEqual(t, len(hits), q.Limit)
			for i := 1; i < len(hits); i++ {
				require.True(t, better(hits[i-1], hits[i]), "hits out of order: %v", hits)
			}
		}
		if name == "" {
			return
		}
		id := toolmodel.ToolID(namespace, name)
		if len(appendTerms(nil, name)) > 0 {
			hits, err := s.Search(ctx, SearchQuery{Text: name, Limit: 10})
			require.NoError(t, err)
			found := false
			for _, h := range hits {
				found = found || h.ID == id
			}
			require.True(t, found, "tool %q not found by its name", id)
		}
		require.NoError(t, s.Remove(ctx, []string{id}))
		require.NoError(t, s.Remove(ctx, []string{"github:create_issue", "get_weather"}))
		require.Empty(t, s.nums)
		require.Empty(t, s.postings)
	})
}

// FuzzAppendTerms checks the tokenizer on arbitrary text: terms are
// non-empty, lower-case, made only of word characters, and the same text
// always gives the same terms.
func FuzzAppendTerms(f *testing.F) {
	f.Add("getHTTPResponseCode v2 base64url")
	f.Add("\u0130stanbul \u00df \u01c5")
	f.Add("\xff\x00e\u0301")
	f.Fuzz(func(t *testing.T, s string) {
		terms := appendTerms(nil, s)
		require.Equal(t, terms, appendTerms(nil, s))
		for _, term := range terms {
			require.NotEmpty(t, term)
			require.True(t, utf8.ValidString(term), "%q", term)
			require.False(t, stopwords[term], "%q is a stopword", term)
			require.False(t, strings.ContainsFunc(term, func(r rune) bool { return !isWordRune(r) }), "%q", term)
		}
	})
}
