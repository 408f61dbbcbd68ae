package toolsearch

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sync"

	"github.com/metatools-go/metatools/toolindex"
)

// Feedback configures pseudo-relevance feedback (RM3): a query is ranked
// once, the words that weigh most in its first hits are added to it, and
// the expanded query is ranked again. A query that names a tool in other
// words than the tool's description then finds it through the words of
// the tools it does find. The zero value turns it off.
type Feedback struct {
	// Docs is how many of the first hits the added words are drawn from.
	Docs int
	// Terms is how many words are added at most.
	Terms int
	// QueryWeight, in (0, 1], is the share of the expanded query's weight
	// that its own words keep; the added words share the rest.
	QueryWeight float64
}

// DefaultFeedback returns the feedback settings measured best on the
// labelled datasets; see the package's README.
func DefaultFeedback() Feedback { return Feedback{Docs: 3, Terms: 10, QueryWeight: 0.7} }

// validate reports settings that are out of range; the zero value is
// valid (feedback off).
func (f Feedback) validate() error {
	if f == (Feedback{}) {
		return nil
	}
	if f.Docs < 1 || f.Terms < 1 || !(f.QueryWeight > 0 && f.QueryWeight <= 1) {
		return fmt.Errorf("feedback %+v: need Docs >= 1, Terms >= 1 and QueryWeight in (0, 1]", f)
	}
	return nil
}

// WithFeedback turns on pseudo-relevance feedback with the settings f
// ([DefaultFeedback] for measured ones); Feedback{} turns it off, as it
// is by default. It costs a second ranking per query, and the analysis of
// the first hits' text, which the Searcher then keeps in memory.
func WithFeedback(f Feedback) Option {
	return func(c *config) { c.feedback = f }
}

// feedbackTexts keeps the documents whose words feedback draws from.
type feedbackTexts struct {
	mu   sync.RWMutex
	docs map[string]*document
}

func (t *feedbackTexts) set(docs []*document) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, d := range docs {
		t.docs[d.id] = d
	}
}

func (t *feedbackTexts) drop(ids []string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, id := range ids {
		delete(t.docs, id)
	}
}

func (t *feedbackTexts) get(id string) *document {
	t.mu.RLock()
	defer t.mu.RUnlock()
	return t.docs[id]
}

// altTerm is a word whose occurrences count as those of a query term,
// scaled, in every searched field or, with shortFields, in those
// isShortField names.
type altTerm struct {
	term        string
	scale       float64
	shortFields bool
}

// weightedTerm is a term of an expanded query and its weight.
type weightedTerm struct {
	term   string
	weight float64
	// alts are synonyms of term: their occurrences count as term's,
	// scaled by the Searcher's synonymScale.
	alts []altTerm
	// pair says that term is a pair of words (pairKey), searched in the
	// pairs of the names and of the leads only; words are the numbers of
	// its two words among the query's terms, and hash its pairHash.
	pair  bool
	words [2]int
	hash  uint64
}

// expand returns the query of terms expanded with the words of its first
// hits, RM3's way: each hit's words are weighed by their share of the
// hit's (field-weighted) length and by the hit's share of the hits'
// scores, the heaviest words are kept, and the query's own words keep
// QueryWeight of the total weight. Weights are scaled so that a query
// term alone weighs about 1, as in the first ranking. It returns nil when
// no hit's text is known.
func (s *Searcher) expand(terms []string, hits []toolindex.Hit) []weightedTerm {
	f := s.feedback
	top := hits[:min(f.Docs, len(hits))]
	var total float64
	for _, h := range top {
		total += h.Score
	}
	if total <= 0 {
		return nil
	}
	relevance := map[string]float64{}
	for _, h := range top {
		d := s.texts.get(h.ID)
		if d == nil {
			continue
		}
		counts, length := s.weightedCounts(d)
		if length == 0 {
			continue
		}
		for term, c := range counts {
			relevance[term] += h.Score / total * c / length
		}
	}
	if len(relevance) == 0 {
		return nil
	}
	added := make([]weightedTerm, 0, len(relevance))
	for term, p := range relevance {
		added = append(added, weightedTerm{term: term, weight: p})
	}
	slices.SortFunc(added, func(a, b weightedTerm) int {
		if c := cmp.Compare(b.weight, a.weight); c != 0 {
			return c
		}
		return cmp.Compare(a.term, b.term)
	})
	added = added[:min(f.Terms, len(added))]
	var mass float64
	for _, t := range added {
		mass += t.weight
	}

	n := float64(len(terms))
	weights := make(map[string]float64, len(terms)+len(added))
	for _, term := range terms {
		weights[term] = f.QueryWeight / n
	}
	for _, t := range added {
		weights[t.term] += (1 - f.QueryWeight) * t.weight / mass
	}
	// The query's own terms come first, so that the bound on a query's
	// terms never drops them.
	out := make([]weightedTerm, 0, len(weights))
	for _, term := range terms {
		out = append(out, weightedTerm{term: term, weight: weights[term] * n})
	}
	for _, t := range added {
		if !slices.Contains(terms, t.term) && len(out) < maxQueryTerms {
			out = append(out, weightedTerm{term: t.term, weight: weights[t.term] * n})
		}
	}
	return out
}

// weightedCounts returns the count of each word of d's searched fields,
// each occurrence counting its field's weight, and their total.
func (s *Searcher) weightedCounts(d *document) (map[string]float64, float64) {
	fields := d.fields(false)
	counts := map[string]float64{}
	var length float64
	for _, f := range s.fields {
		text, _ := fields[f.name].(string)
		for _, tok := range s.analyzer.Analyze([]byte(text)) {
			if len(tok.Term) == 0 {
				continue
			}
			counts[string(tok.Term)] += f.weight
			length += f.weight
		}
	}
	if math.IsNaN(length) {
		return nil, 0
	}
	return counts, length
}
