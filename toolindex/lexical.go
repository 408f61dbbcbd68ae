package toolindex

import (
	"context"
	"encoding/json"
	"maps"
	"math"
	"slices"
	"sync"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// Field weights of the [LexicalSearcher]: a word in a tool's name says
// more about what the tool does than the same word in its description.
const (
	weightName        = 3.0
	weightTitle       = 2.0
	weightTags        = 2.0
	weightNamespace   = 1.5
	weightParameter   = 1.0
	weightDescription = 1.0
)

// BM25 parameters: the usual values. k1 bounds how much repeating a word
// adds; b sets how much a long document is penalized.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// LexicalSearcher is the built-in [Searcher]: an in-memory inverted index
// over words, ranked with BM25.
//
// Each tool is indexed under the terms (see below) of its name, title,
// tags, namespace, parameter names (the properties of its input schema)
// and description, each field with its own weight, the name weighing
// most. A query matches the tools that contain any of its terms. A tool
// scores the sum over the query terms it contains of BM25 with the
// weighted term frequency, times the fraction of the query terms it
// contains, so that tools matching more of the query rank higher.
//
// Terms: text is split into words at anything but letters and digits,
// identifiers are split at their inner boundaries ("createIssue",
// "create_issue", "create-issue", "github.create.issue" all give "create"
// and "issue", "v2" gives "v" and "2"), words are lower-cased, common
// English plurals are folded to the singular ("issues" is "issue"), and a
// few stopwords ("the", "to", "of", ...) are dropped. A query is only
// ever such text: characters such as ':', '+', '-', '"' and '*' are
// separators, never operators.
//
// Cost model, for a query of q terms whose postings hold p documents in
// all, m of which match (m <= p), and k = Offset+Limit: a query costs
// O(q + p + m log k): it touches only the postings of its terms, and
// keeps the k best in a heap rather than sorting every match. Scores
// accumulate in a scratch array indexed by document number, borrowed
// from a pool and cleared entry by entry after use, so a query allocates
// nothing in proportion to the catalogue once the pool is warm. Upsert
// and Remove cost O(t log t) per tool for its t distinct terms, whatever
// the catalogue size: postings are unordered lists from which a document
// is removed by moving the last entry into its place. Memory is O(total
// distinct terms per tool).
//
// It is safe for concurrent use: queries run in parallel, changes run
// alone. The zero value is an empty searcher ready to use, as
// [NewLexicalSearcher] makes it; it must not be copied after first use.
type LexicalSearcher struct {
	mu       sync.RWMutex
	nums     map[string]int32     // tool ID -> document number
	docs     []lexDoc             // by document number; a free slot has no id
	free     []int32              // free document numbers
	postings map[string][]posting // term -> the documents holding it, unordered
	totalLen float64              // sum of the documents' lengths

	scratch sync.Pool // of *accumulator
}

var _ Searcher = (*LexicalSearcher)(nil)

// lexDoc is an indexed tool.
type lexDoc struct {
	id        string
	namespace string
	terms     []string // distinct, sorted
	at        []int32  // at[i] is the document's position in postings[terms[i]]
	length    float64  // sum of the weighted frequencies
}

// posting is an entry of a term's postings: a document and the weighted
// frequency of the term in it.
type posting struct {
	doc  int32
	freq float32
}

// accumulator holds the scores of one query, by document number.
type accumulator struct {
	score   []float64
	matched []int32
	touched []int32 // the document numbers with a score
}

// NewLexicalSearcher returns an empty searcher.
func NewLexicalSearcher() *LexicalSearcher {
	return &LexicalSearcher{nums: map[string]int32{}, postings: map[string][]posting{}}
}

// analyzed is a tool turned into weighted term frequencies, ready to go
// into the postings.
type analyzed struct {
	id, namespace string
	freqs         map[string]float64
}

// analyze computes the weighted term frequencies of t. It needs no lock.
func analyze(t *toolmodel.Tool) analyzed {
	a := analyzed{id: t.ID(), namespace: t.Namespace, freqs: map[string]float64{}}
	var terms []string
	add := func(text string, weight float64) {
		terms = appendTerms(terms[:0], text)
		for _, term := range terms {
			a.freqs[term] += weight
		}
	}
	add(t.Name, weightName)
	add(title(t), weightTitle)
	for _, tag := range t.Tags {
		add(tag, weightTags)
	}
	add(t.Namespace, weightNamespace)
	for _, p := range parameterNames(t.InputSchema) {
		add(p, weightParameter)
	}
	add(t.Description, weightDescription)
	return a
}

// parameterNames returns the names of the properties of an input schema,
// sorted; a schema that is not an object with properties has none.
func parameterNames(schema any) []string {
	raw, err := toolmodel.SchemaJSON(schema)
	if err != nil {
		return nil
	}
	var s struct {
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if json.Unmarshal(raw, &s) != nil {
		return nil
	}
	return slices.Sorted(maps.Keys(s.Properties))
}

// Upsert implements [Searcher]. Tools are analyzed before the lock is
// taken, so queries wait only for the postings to change. A tool without
// a name is refused with [errors.InvalidArgument], and then nothing
// changes.
func (s *LexicalSearcher) Upsert(ctx context.Context, tools []toolmodel.Tool) error {
	if err := errors.FromContext(ctx, "toolindex.LexicalSearcher.Upsert", nil); err != nil {
		return err
	}
	docs := make([]analyzed, len(tools))
	for i := range tools {
		if tools[i].Name == "" {
			return errors.Opf("toolindex.LexicalSearcher.Upsert", errors.InvalidArgument, "tools[%d] has no name", i)
		}
		docs[i] = analyze(&tools[i])
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nums == nil {
		// A zero LexicalSearcher: Remove and Search read nil maps as
		// empty, so only the first Upsert has to make them.
		s.nums, s.postings = map[string]int32{}, map[string][]posting{}
	}
	for i := range docs {
		s.removeLocked(docs[i].id)
		s.addLocked(&docs[i])
	}
	return nil
}

// Remove implements [Searcher].
func (s *LexicalSearcher) Remove(ctx context.Context, ids []string) error {
	if err := errors.FromContext(ctx, "toolindex.LexicalSearcher.Remove", nil); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, id := range ids {
		s.removeLocked(id)
	}
	return nil
}

func (s *LexicalSearcher) addLocked(a *analyzed) {
	terms := slices.Sorted(maps.Keys(a.freqs))
	d := lexDoc{id: a.id, namespace: a.namespace, terms: terms, at: make([]int32, len(terms))}
	var num int32
	if n := len(s.free); n > 0 {
		num, s.free = s.free[n-1], s.free[:n-1]
	} else {
		num = int32(len(s.docs))
		s.docs = append(s.docs, lexDoc{})
	}
	// Summing in term order makes the length, hence every score, the same
	// bit for bit whenever the same tool is indexed.
	for i, term := range terms {
		f := a.freqs[term]
		d.length += f
		list := s.postings[term]
		d.at[i] = int32(len(list))
		s.postings[term] = append(list, posting{doc: num, freq: float32(f)})
	}
	s.docs[num] = d
	s.nums[d.id] = num
	s.totalLen += d.length
}

func (s *LexicalSearcher) removeLocked(id string) {
	num, ok := s.nums[id]
	if !ok {
		return
	}
	d := &s.docs[num]
	for i, term := range d.terms {
		list := s.postings[term]
		pos, last := d.at[i], int32(len(list)-1)
		if pos != last {
			// Move the last entry into the hole and tell its document.
			moved := list[last]
			list[pos] = moved
			md := &s.docs[moved.doc]
			j, _ := slices.BinarySearch(md.terms, term)
			md.at[j] = pos
		}
		if last == 0 {
			delete(s.postings, term)
		} else {
			s.postings[term] = list[:last]
		}
	}
	s.totalLen -= d.length
	*d = lexDoc{}
	s.free = append(s.free, num)
	delete(s.nums, id)
	if len(s.nums) == 0 {
		s.totalLen = 0 // no rounding left behind
	}
}

// Search implements [Searcher].
func (s *LexicalSearcher) Search(ctx context.Context, q SearchQuery) ([]Hit, error) {
	const op = "toolindex.LexicalSearcher.Search"
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return nil, err
	}
	if q.Offset < 0 || q.Limit < 1 {
		return nil, errors.Opf(op, errors.InvalidArgument, "offset %d and limit %d: need offset >= 0 and limit >= 1", q.Offset, q.Limit)
	}
	terms := slices.Compact(slices.Sorted(slices.Values(appendTerms(nil, q.Text))))
	if len(terms) == 0 {
		return []Hit{}, nil
	}

	s.mu.RLock()
	defer s.mu.RUnlock()
	n := float64(len(s.nums))
	if n == 0 {
		return []Hit{}, nil
	}
	avgLen := s.totalLen / n
	acc := s.borrow()
	defer s.scratch.Put(acc)
	for _, term := range terms {
		if err := errors.FromContext(ctx, op, nil); err != nil {
			acc.reset()
			return nil, err
		}
		list := s.postings[term]
		if len(list) == 0 {
			continue
		}
		df := float64(len(list))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		for _, p := range list {
			d := &s.docs[p.doc]
			if q.Namespace != "" && d.namespace != q.Namespace {
				continue
			}
			f := float64(p.freq)
			if acc.matched[p.doc] == 0 {
				acc.touched = append(acc.touched, p.doc)
			}
			acc.score[p.doc] += idf * f * (bm25K1 + 1) / (f + bm25K1*(1-bm25B+bm25B*d.length/avgLen))
			acc.matched[p.doc]++
		}
	}

	k := q.Limit
	if q.Offset < math.MaxInt-q.Limit {
		k += q.Offset
	} else {
		k = math.MaxInt
	}
	top := topK{k: k}
	coverage := 1 / float64(len(terms))
	for _, num := range acc.touched {
		top.offer(Hit{ID: s.docs[num].id, Score: acc.score[num] * float64(acc.matched[num]) * coverage})
	}
	acc.reset()
	hits := top.sorted()
	if q.Offset >= len(hits) {
		return []Hit{}, nil
	}
	return hits[q.Offset:], nil
}

// borrow returns a cleared accumulator with room for every document
// number. The caller holds the read lock and puts it back when done.
func (s *LexicalSearcher) borrow() *accumulator {
	acc, _ := s.scratch.Get().(*accumulator)
	if acc == nil {
		acc = &accumulator{}
	}
	if n := len(s.docs); len(acc.score) < n {
		// Grown with room to spare, so that a growing catalogue does
		// not reallocate on every query.
		size := n + n/4
		acc.score = make([]float64, size)
		acc.matched = make([]int32, size)
	}
	return acc
}

// reset clears the entries the query touched, leaving the accumulator
// ready for the next query.
func (a *accumulator) reset() {
	for _, num := range a.touched {
		a.score[num] = 0
		a.matched[num] = 0
	}
	a.touched = a.touched[:0]
}

// better reports whether a ranks before b: higher score, then lower ID.
func better(a, b Hit) bool {
	if a.Score != b.Score {
		return a.Score > b.Score
	}
	return a.ID < b.ID
}

// topK keeps the k best hits offered, in a heap whose root is the worst
// kept, so that each offer costs O(log k) and the matches are never all
// sorted.
type topK struct {
	k    int
	heap []Hit
}

func (t *topK) offer(h Hit) {
	if len(t.heap) < t.k {
		t.heap = append(t.heap, h)
		t.up(len(t.heap) - 1)
		return
	}
	if better(h, t.heap[0]) {
		t.heap[0] = h
		t.down(0)
	}
}

// up and down restore the heap property; the parent of i is (i-1)/2 and
// a parent is worse than its children.
func (t *topK) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(t.heap[parent], t.heap[i]) {
			return
		}
		t.heap[parent], t.heap[i] = t.heap[i], t.heap[parent]
		i = parent
	}
}

func (t *topK) down(i int) {
	for {
		worst := i
		for _, c := range []int{2*i + 1, 2*i + 2} {
			if c < len(t.heap) && better(t.heap[worst], t.heap[c]) {
				worst = c
			}
		}
		if worst == i {
			return
		}
		t.heap[worst], t.heap[i] = t.heap[i], t.heap[worst]
		i = worst
	}
}

// sorted returns the kept hits, best first.
func (t *topK) sorted() []Hit {
	slices.SortFunc(t.heap, func(a, b Hit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return t.heap
}
