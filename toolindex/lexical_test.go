package toolindex

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

func lexTool(namespace, name, description string, schema any) toolmodel.Tool {
	t := toolmodel.Tool{Namespace: namespace}
	t.Name = name
	t.Description = description
	t.InputSchema = schema
	return t
}

func searchIDs(t *testing.T, s *LexicalSearcher, q SearchQuery) []string {
	t.Helper()
	hits, err := s.Search(context.Background(), q)
	require.NoError(t, err)
	out := make([]string, len(hits))
	for i, h := range hits {
		out[i] = h.ID
	}
	return out
}

func TestLexicalIndexesEveryField(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	tool := lexTool("payments", "charge", "Take money from a card.", json.RawMessage(`{"type":"object","properties":{"amountCents":{},"currency_code":{}}}`))
	tool.Title = "Card charger"
	tool.Tags = []string{"billing"}
	other := lexTool("", "noop", "Does nothing.", map[string]any{"type": "object", "properties": "not an object"})
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{tool, other}))
	for _, q := range []string{"charge", "payments", "charger", "billing", "amount cents", "currency", "money"} {
		assert.Equal(t, []string{"payments:charge"}, searchIDs(t, s, SearchQuery{Text: q, Limit: 10}), q)
	}
	assert.Equal(t, []string{"noop"}, searchIDs(t, s, SearchQuery{Text: "nothing", Limit: 10}), "a malformed schema only loses its parameters")
}

func TestLexicalFieldWeights(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	tagged := lexTool("", "c_tool", "Sends a document.", nil)
	tagged.Tags = []string{"invoice"}
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{
		lexTool("", "b_tool", "Sends an invoice.", nil),
		tagged,
		lexTool("", "invoice_sender", "Sends a document.", nil),
	}))
	assert.Equal(t, []string{"invoice_sender", "c_tool", "b_tool"}, searchIDs(t, s, SearchQuery{Text: "invoice", Limit: 10}),
		"a word weighs most in the name, then in tags, then in the description")
}

func TestLexicalMoreWordsRankHigher(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	var tools []toolmodel.Tool
	// "rare" is in one tool only, so its idf is high; the tool with both
	// common words must still win on coverage.
	tools = append(tools, lexTool("", "rare_thing", "unusual", json.RawMessage(`{}`)))
	tools = append(tools, lexTool("", "send_mail", "send an email message", json.RawMessage(`{}`)))
	for i := range 20 {
		tools = append(tools, lexTool("", fmt.Sprintf("filler%d", i), "send or mail stuff", json.RawMessage(`{}`)))
	}
	require.NoError(t, s.Upsert(ctx, tools))
	got := searchIDs(t, s, SearchQuery{Text: "send mail", Limit: 3})
	assert.Equal(t, "send_mail", got[0])
}

func TestLexicalRemoveAll(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{lexTool("", "a", "alpha", nil), lexTool("", "b", "beta", nil)}))
	require.NoError(t, s.Remove(ctx, []string{"a", "b", "a"}))
	assert.Empty(t, s.nums)
	assert.Empty(t, s.postings, "no empty posting list is left behind")
	assert.Zero(t, s.totalLen)
	assert.Empty(t, searchIDs(t, s, SearchQuery{Text: "alpha beta", Limit: 10}))
}

func TestLexicalUpsertRefusesNameless(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	err := s.Upsert(ctx, []toolmodel.Tool{lexTool("", "ok", "fine", nil), lexTool("ns", "", "nameless", nil)})
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Empty(t, s.nums, "nothing is indexed")
}

func TestLexicalHugeOffset(t *testing.T) {
	ctx := context.Background()
	s := NewLexicalSearcher()
	require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{lexTool("", "a", "alpha", nil)}))
	hits, err := s.Search(ctx, SearchQuery{Text: "alpha", Offset: int(^uint(0) >> 1), Limit: 10})
	require.NoError(t, err)
	assert.Empty(t, hits)
}

// TestTopKMatchesSort checks the heap against sorting everything.
func TestTopKMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{0, 1, 5, 50, 500} {
		for _, k := range []int{1, 3, 50, 1000} {
			var all []Hit
			top := topK{k: k}
			for i := range n {
				h := Hit{ID: fmt.Sprintf("t%04d", i), Score: float64(rng.IntN(10))} // many ties
				all = append(all, h)
				top.offer(h)
			}
			slices.SortFunc(all, func(a, b Hit) int {
				if better(a, b) {
					return -1
				}
				return 1
			})
			assert.Equal(t, all[:min(k, n)], top.sorted(), "n=%d k=%d", n, k)
		}
	}
}

// checkLexical verifies the searcher's internal links: every document
// finds itself at its recorded positions, every posting names a live
// document that holds the term, and the total length adds up.
func checkLexical(t *testing.T, s *LexicalSearcher) {
	t.Helper()
	total := 0.0
	for id, num := range s.nums {
		d := &s.docs[num]
		require.Equal(t, id, d.id)
		total += d.length
		for i, term := range d.terms {
			list := s.postings[term]
			require.Less(t, int(d.at[i]), len(list), "%s: position of %q", id, term)
			require.Equal(t, num, list[d.at[i]].doc, "%s: posting of %q", id, term)
		}
	}
	for term, list := range s.postings {
		require.NotEmpty(t, list, term)
		for _, p := range list {
			d := &s.docs[p.doc]
			require.NotEmpty(t, d.id, "posting of %q names a free document", term)
			_, found := slices.BinarySearch(d.terms, term)
			require.True(t, found, "posting of %q names %s, which lacks it", term, d.id)
		}
	}
	require.InDelta(t, total, s.totalLen, 1e-6)
}

func TestLexicalStaysConsistent(t *testing.T) {
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(7, 8))
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"}
	s := NewLexicalSearcher()
	live := map[string]string{}
	for round := range 400 {
		id := fmt.Sprintf("t%02d", rng.IntN(40))
		if rng.IntN(3) == 0 {
			require.NoError(t, s.Remove(ctx, []string{id}))
			delete(live, id)
		} else {
			desc := words[rng.IntN(len(words))] + " " + words[rng.IntN(len(words))]
			require.NoError(t, s.Upsert(ctx, []toolmodel.Tool{lexTool("", id, desc, nil)}))
			live[id] = desc
		}
		if round%50 == 0 {
			checkLexical(t, s)
		}
	}
	checkLexical(t, s)
	for _, w := range words {
		var want []string
		for id, desc := range live {
			if slices.Contains(appendTerms(nil, desc), w) {
				want = append(want, id)
			}
		}
		assert.ElementsMatch(t, want, searchIDs(t, s, SearchQuery{Text: w, Limit: 100}), w)
	}
}
