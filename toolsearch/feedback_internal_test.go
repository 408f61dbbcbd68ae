package toolsearch

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// TestExpandWeighsAsRM3 checks the expanded query against RM3's
// interpolation: the query's words keep at least QueryWeight each (scaled
// so that a word alone weighs 1), the added words share the rest, and
// the weights add up to the query's length.
func TestExpandWeighsAsRM3(t *testing.T) {
	f := Feedback{Docs: 2, Terms: 4, QueryWeight: 0.6}
	s, err := New(WithFeedback(f))
	require.NoError(t, err)
	defer s.Close()
	tool := func(name, description string) toolmodel.Tool {
		return toolmodel.Tool{Namespace: "fs", Tool: mcp.Tool{Name: name, Description: description, InputSchema: map[string]any{"type": "object"}}}
	}
	require.NoError(t, s.Upsert(t.Context(), []toolmodel.Tool{
		tool("read_file", "Read a file from the local disk."),
		tool("write_file", "Write a file to the local disk."),
	}))
	terms := s.queryTerms(s.analyzer.Analyze([]byte("read file")))
	hits := []toolindex.Hit{{ID: "fs:read_file", Score: 3}, {ID: "fs:write_file", Score: 1}}

	expanded := s.expand(terms, hits)
	require.NotEmpty(t, expanded)
	var total float64
	for i, e := range expanded {
		total += e.weight
		if i < len(terms) {
			assert.Equal(t, terms[i], e.term, "the query's words come first")
			assert.GreaterOrEqual(t, e.weight, f.QueryWeight)
		}
	}
	assert.InDelta(t, float64(len(terms)), total, 1e-9)
	assert.LessOrEqual(t, len(expanded), len(terms)+f.Terms)
	assert.Contains(t, termsOf(expanded), "write", "a word of the second hit is added")
}

func termsOf(ts []weightedTerm) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.term
	}
	return out
}
