package toolsearch

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch/internal/eval"
)

// quadraticPairs is pairs as it was first written, comparing every group
// with every later one: the reference pairs must agree with.
func quadraticPairs(groups [][]string, window, limit int) []string {
	var out []string
	seen := map[string]bool{}
	for i := range groups {
		for j := i + 1; j < len(groups) && (window < 1 || j-i <= window); j++ {
			for _, a := range groups[i] {
				for _, b := range groups[j] {
					if a == b {
						continue
					}
					if k := pairKey(a, b); !seen[k] {
						if len(out) == limit {
							return out
						}
						seen[k] = true
						out = append(out, k)
					}
				}
			}
		}
	}
	return out
}

// checkPairs checks that pairs and quadraticPairs agree on the groups of
// text for the windows and limits the Searcher uses, and some others.
func checkPairs(t *testing.T, a analysis.Analyzer, text string) {
	t.Helper()
	groups := tokenGroups(a.Analyze([]byte(text)))
	for _, window := range []int{0, 1, 4} {
		for _, limit := range []int{1, 7, maxQueryTerms, maxLeadPairs} {
			require.Equal(t, quadraticPairs(groups, window, limit), pairs(groups, window, limit),
				"pairs of %q, window %d, limit %d", text, window, limit)
		}
	}
}

// TestPairsAsBefore checks that pairs, linear in the number of words,
// forms the same pairs in the same order as the quadratic reference on
// the queries, names and descriptions of the labelled datasets, so that
// their rankings do not change.
func TestPairsAsBefore(t *testing.T) {
	s := newTestSearcher(t)
	for _, name := range []string{"mcp-reference", "metatool"} {
		ds, err := eval.Load(filepath.Join("testdata", "eval", name))
		require.NoError(t, err)
		for _, q := range ds.Queries {
			checkPairs(t, s.analyzer, q.Text)
			checkPairs(t, s.analyzer, q.Text+" "+q.Text) // repeated groups
		}
		for _, tool := range ds.Tools {
			checkPairs(t, s.analyzer, tool.Name)
			checkPairs(t, s.analyzer, tool.Name+" "+tool.Name)
			checkPairs(t, s.analyzer, tool.Description)
		}
	}
}

// TestLongQueryBoundedWork checks that the work a query's pairs cost is
// bounded by the number of its distinct words, not its length: 200 KB
// of two words repeated forms the terms and pairs the two words
// form once, out of two groups; one of many distinct words pairs at most
// maxPairGroups groups.
func TestLongQueryBoundedWork(t *testing.T) {
	s := newTestSearcher(t)
	ctx := context.Background()
	analyze := func(text string) analysis.TokenStream {
		tokens, err := analyzeChunks(ctx, s.analyzer, text, queryChunk)
		require.NoError(t, err)
		return tokens
	}

	short := analyze("read file")
	long := analyze(strings.Repeat("read file ", 20_000)) // 200 KB, several chunks
	require.Len(t, long, 40_000)
	assert.Len(t, pairGroups(tokenGroups(long), maxPairGroups), 2)
	assert.Equal(t, s.weightedQuery(short, s.queryTerms(short)), s.weightedQuery(long, s.queryTerms(long)))

	var words []string
	for i := range 2_000 {
		words = append(words, fmt.Sprintf("w%dx", i))
	}
	many := analyze(strings.Repeat(strings.Join(words, " ")+" ", 5))
	assert.Len(t, pairGroups(tokenGroups(many), maxPairGroups), maxPairGroups)
	assert.Len(t, s.queryTerms(many), maxQueryTerms)
	assert.Len(t, s.weightedQuery(many, s.queryTerms(many)), maxQueryTerms, "no room left for pairs")

	// A split identifier repeated: its whole and its first part pair
	// with each other only through the second occurrence.
	ident := analyze(strings.Repeat("createIssue ", 10_000))
	groups := pairGroups(tokenGroups(ident), maxPairGroups)
	assert.Len(t, groups, 3)
	assert.Equal(t, quadraticPairs(tokenGroups(analyze("createIssue createIssue createIssue")), 0, 64), pairs(tokenGroups(ident), 0, 64))
}

// TestAnalyzeChunks checks that analysing a text in chunks gives the
// terms, and the groups of terms by position, of analysing it whole, and
// stops at the first check of a context that is done.
func TestAnalyzeChunks(t *testing.T) {
	s := newTestSearcher(t)
	ctx := context.Background()
	for _, text := range []string{
		"", "read file", "createIssue and list_pulls, then HTTPServer's base64 don't",
		strings.Repeat("查询余票，", 50), strings.Repeat("ab\xffcd\xe2\x82 x ", 20), strings.Repeat("é", 300),
		strings.Repeat("readFile writeDir ", 30), strings.Repeat("x", 100) + " y",
	} {
		whole := s.analyzer.Analyze([]byte(text))
		for _, chunk := range []int{1, 2, 3, 7, 64, 1 << 20} {
			chunked, err := analyzeChunks(ctx, s.analyzer, text, chunk)
			require.NoError(t, err)
			require.Equal(t, tokenGroups(whole), tokenGroups(chunked), "%q in chunks of %d", text, chunk)
			for i, tok := range chunked {
				assert.Equal(t, whole[i].Term, tok.Term)
				assert.Equal(t, whole[i].Start, tok.Start)
				assert.Equal(t, whole[i].End, tok.End)
				assert.True(t, utf8.Valid(tok.Term) || !utf8.ValidString(text))
			}
		}
	}

	expiring := &expiringContext{Context: ctx, checks: 2}
	_, err := analyzeChunks(expiring, s.analyzer, strings.Repeat("read file ", 100_000), queryChunk)
	require.ErrorIs(t, err, context.DeadlineExceeded)
	assert.Equal(t, 3, expiring.calls, "the analysis goes on after the deadline")
}

// expiringContext is a context whose deadline passes at its checks+1-th
// check: deterministic, where a timer would depend on the machine's speed.
type expiringContext struct {
	context.Context
	checks, calls int
}

func (c *expiringContext) Err() error {
	c.calls++
	if c.calls > c.checks {
		return context.DeadlineExceeded
	}
	return nil
}

// TestLongQueryDeadline checks that a query of a megabyte of words
// honours a deadline that passes while it is analysed, returning the
// deadline's error after the check that sees it, and that it answers
// within a generous bound when there is no deadline (it took minutes
// when the pairs of its words cost the square of its length).
func TestLongQueryDeadline(t *testing.T) {
	s := newTestSearcher(t)
	ctx := context.Background()
	var tools []toolmodel.Tool
	for _, name := range []string{"read_file", "write_file", "list_directory"} {
		tools = append(tools, toolmodel.Tool{
			Tool:      mcp.Tool{Name: name, Description: "Does " + strings.ReplaceAll(name, "_", " ") + ".", InputSchema: map[string]any{"type": "object"}},
			Namespace: "fs",
		})
	}
	require.NoError(t, s.Upsert(ctx, tools))
	text := strings.Repeat("read file ", 100_000)

	expiring := &expiringContext{Context: ctx, checks: 4}
	_, err := s.Search(expiring, toolindex.SearchQuery{Text: text, Limit: 5})
	require.Error(t, err)
	assert.Equal(t, errors.Timeout, errors.CodeOf(err), "%v", err)
	assert.LessOrEqual(t, expiring.calls, 6, "checks of the context after its deadline")

	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: text, Limit: 5})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	assert.Equal(t, "fs:read_file", hits[0].ID)
}

// FuzzQueryPairs checks, on any text repeated any number of times, that
// analysing it in chunks of any size gives the groups of terms of
// analysing it whole, and that pairs forms the pairs quadraticPairs forms,
// in the same order.
func FuzzQueryPairs(f *testing.F) {
	for _, seed := range []string{"read file", "createIssue createIssue", "a b c a b c", "查询余票", "ab\xffcd", "HTTPServer's base64 v2Api"} {
		f.Add(seed, uint8(3), uint8(7))
	}
	s, err := New()
	require.NoError(f, err)
	f.Cleanup(func() { require.NoError(f, s.Close()) })
	f.Fuzz(func(t *testing.T, text string, repeat, chunk uint8) {
		if len(text) > 512 {
			text = text[:512]
		}
		text = strings.Repeat(text+" ", int(repeat%16)+1)
		whole := s.analyzer.Analyze([]byte(text))
		chunked, err := analyzeChunks(context.Background(), s.analyzer, text, int(chunk%128)+1)
		require.NoError(t, err)
		groups := tokenGroups(whole)
		require.Equal(t, groups, tokenGroups(chunked))
		for _, window := range []int{0, 1, 4} {
			for _, limit := range []int{1, 5, maxQueryTerms} {
				require.Equal(t, quadraticPairs(groups, window, limit), pairs(groups, window, limit), "window %d, limit %d", window, limit)
			}
		}
	})
}
