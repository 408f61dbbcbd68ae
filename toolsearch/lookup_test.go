package toolsearch

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestLookupNames(t *testing.T) {
	tests := []struct {
		query, text string
		names       []string
	}{
		{query: "read a file", text: "read a file"},
		{query: "read_file", names: []string{"read_file"}, text: "read_file"},
		{query: "  fs:read_file ", names: []string{"fs:read_file"}, text: "  fs:read_file "},
		{query: "select:read_file", names: []string{"read_file"}, text: "read_file"},
		{query: "SELECT: read_file , git_log,read_file,", names: []string{"read_file", "git_log"}, text: "read_file git_log"},
		{query: "select:", text: ""},
		{query: "", text: ""},
	}
	for _, tt := range tests {
		names, text := lookupNames(tt.query)
		assert.Equal(t, tt.names, names, tt.query)
		assert.Equal(t, tt.text, text, tt.query)
	}
}

// TestNamedToolsRankFirst checks that a query naming a tool ranks it
// first, even where BM25F prefers another tool.
func TestNamedToolsRankFirst(t *testing.T) {
	for name, opts := range map[string][]Option{"BM25F": nil, "Fusion": {WithFusion(true)}} {
		t.Run(name, func(t *testing.T) {
			s, err := New(opts...)
			require.NoError(t, err)
			t.Cleanup(func() { require.NoError(t, s.Close()) })
			ctx := context.Background()
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
				tool("fs", "read", "Read a file."),
				tool("fs", "search", "Search for files; read the matches, read them all, read read read."),
				tool("web", "fetch", "Fetch a URL."),
				tool("web", "Read", "Read a web page."),
				tool("mail", "send", "Send an email."),
				tool("util", "all", "List every registered item."),
			}))
			search := func(text, namespace string, offset, limit int) []string {
				t.Helper()
				hits, err := s.Search(ctx, toolindex.SearchQuery{Text: text, Namespace: namespace, Offset: offset, Limit: limit})
				require.NoError(t, err)
				for i := 1; i < len(hits); i++ {
					require.GreaterOrEqual(t, hits[i-1].Score, hits[i].Score, "best first")
				}
				ids := make([]string, len(hits))
				for i, h := range hits {
					ids[i] = h.ID
				}
				return ids
			}

			// A name matches in any case, in every namespace, in ID order;
			// an ID matches exactly.
			assert.Equal(t, []string{"fs:read", "web:Read"}, search("READ", "", 0, 2))
			assert.Equal(t, []string{"web:Read"}, search("read", "web", 0, 1))
			assert.Equal(t, "web:Read", search("web:Read", "", 0, 10)[0])
			assert.Equal(t, []string{"web:Read"}, search("read", "", 1, 1), "offsets skip the named tools too")
			assert.Equal(t, []string{"util:all"}, search("all", "", 0, 10), "a name of stop words is found")

			// select: names several tools, first in its order, then the
			// tools matching their words.
			got := search("select:fetch,mail:send", "", 0, 10)
			require.GreaterOrEqual(t, len(got), 2)
			assert.Equal(t, []string{"web:fetch", "mail:send"}, got[:2])
			assert.Equal(t, []string{"web:fetch"}, search("select:send, fetch", "web", 0, 10))
			assert.Equal(t, []string{"fs:search"}, search("select:search", "", 0, 1))

			// An unknown name is ranked as text only.
			assert.Empty(t, search("select:nothing", "", 0, 10))
			assert.Equal(t, "fs:search", search("search", "", 0, 10)[0])
		})
	}
}

func FuzzLookupNames(f *testing.F) {
	for _, seed := range []string{"read a file", "fs:read_file", "select:a,b", "SELECT: a , ,b", "select:", " \t"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, query string) {
		names, _ := lookupNames(query)
		seen := map[string]bool{}
		for _, name := range names {
			if name == "" || strings.TrimSpace(name) != name || seen[name] {
				t.Fatalf("lookupNames(%q) = %q: names are distinct, non-empty and trimmed", query, names)
			}
			seen[name] = true
		}
	})
}
