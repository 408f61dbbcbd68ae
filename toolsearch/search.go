package toolsearch

import (
	"cmp"
	"container/heap"
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2/search"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
)

// maxQueryTerms bounds the distinct words of a query that count, so that
// a very long text costs a bounded number of term lookups. It is at most
// 64: a tool's matched terms are the bits of a uint64.
const maxQueryTerms = 64

// Search implements [toolindex.Searcher]. A tool matches when it contains
// any word of the query.
//
// The index is bleve's, and so are the statistics of the scores (see
// [Searcher]), but the query is not run through bleve's query engine: a
// disjunction of per-field term queries there visits every match through
// nested searchers, which made a query about four times as slow as
// reading the postings directly and adding up the scores, as Search does.
func (s *Searcher) Search(ctx context.Context, q toolindex.SearchQuery) ([]toolindex.Hit, error) {
	const op = "toolsearch.Searcher.Search"
	if err := ctxError(ctx, op); err != nil {
		return nil, err
	}
	if q.Offset < 0 || q.Limit < 1 {
		return nil, opError(op, errors.InvalidArgument, "offset %d and limit %d: need offset >= 0 and limit >= 1", q.Offset, q.Limit)
	}
	terms := s.queryTerms(q.Text)
	if len(terms) == 0 {
		return []toolindex.Hit{}, nil
	}

	unlock, err := s.lockRead(op)
	if err != nil {
		return nil, err
	}
	defer unlock()
	adv, err := s.idx.Advanced()
	if err != nil {
		return nil, opError(op, errors.Internal, "open the index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, opError(op, errors.Internal, "open a reader: %w", err)
	}
	defer r.Close()

	end := q.Offset + q.Limit
	if end < q.Offset { // overflow: every hit is before the end
		end = math.MaxInt
	}
	hits, err := s.rank(ctx, r, terms, q.Namespace, end)
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	return hits[min(q.Offset, len(hits)):], nil
}

// queryTerms analyses text as the fields were analysed and returns its
// distinct terms, sorted, at most maxQueryTerms of them (the first ones).
func (s *Searcher) queryTerms(text string) []string {
	var terms []string
	seen := map[string]bool{}
	for _, tok := range s.analyzer.Analyze([]byte(text)) {
		term := string(tok.Term)
		if term == "" || seen[term] {
			continue
		}
		seen[term] = true
		terms = append(terms, term)
		if len(terms) == maxQueryTerms {
			break
		}
	}
	slices.Sort(terms)
	return terms
}

// rank returns the first end hits of the query made of terms, in the
// namespace when it is not empty, in score then ID order.
//
// A tool's score is the sum, over the (term, field) pairs it contains, of
// the field's weight times the pair's BM25 score, scaled by the fraction
// of the query's terms it contains. BM25 is bleve's, with bleve's
// statistics: the term frequency is the square root of the count, the
// field length comes from the posting's norm, and the average field
// length is the field's cardinality per document, rounded up.
//
// Each pair's postings are read once and the scores added up by
// document; the cost is O(postings) for the reading plus O(matches × log
// end) to find the best, then an ID lookup for each hit returned (and for
// those that tie with the last one).
func (s *Searcher) rank(ctx context.Context, r index.IndexReader, terms []string, namespace string, end int) ([]toolindex.Hit, error) {
	n, err := r.DocCount()
	if err != nil || n == 0 {
		return []toolindex.Hit{}, err
	}
	var keep map[uint64]bool
	if namespace != "" {
		if keep, err = docsWith(ctx, r, namespace, namespaceKeyField); err != nil {
			return nil, err
		}
		if len(keep) == 0 {
			return []toolindex.Hit{}, nil
		}
	}
	lists, found, err := s.open(ctx, r, n, terms)
	defer func() {
		for _, l := range lists {
			_ = l.tfr.Close()
		}
	}()
	if err != nil {
		return nil, err
	}
	acc := accumulators.Get().(*accumulator)
	defer release(acc)
	if err := read(ctx, lists, acc); err != nil {
		return nil, err
	}
	if !s.coverage {
		found = 0
	}
	return acc.best(r, end, found, keep)
}

// postingList is the postings of a query term in a field, with their
// scorer.
type postingList struct {
	tfr   index.TermFieldReader
	term  uint64 // the term's bit: 1 << its number among the terms found
	score bm25Scorer
}

// open opens the posting lists of the terms in the searched fields, and
// returns them with the number of terms found in some field; the caller
// closes the lists, even on error.
func (s *Searcher) open(ctx context.Context, r index.IndexReader, n uint64, terms []string) (lists []postingList, found int, err error) {
	lengths := averageLengths{r: r, n: n, avg: map[string]float64{}}
	for _, term := range terms {
		bit := uint64(1) << found
		for _, f := range s.fields {
			tfr, err := r.TermFieldReader(ctx, []byte(term), f.name, true, true, false)
			if err != nil {
				return lists, found, err
			}
			df := tfr.Count()
			if df == 0 {
				_ = tfr.Close()
				continue
			}
			lists = append(lists, postingList{tfr: tfr, term: bit})
			avg, err := lengths.of(f.name)
			if err != nil {
				return lists, found, err
			}
			lists[len(lists)-1].score = newBM25Scorer(f.weight, bm25IDF(n, df), avg, f.b)
		}
		if len(lists) > 0 && lists[len(lists)-1].term == bit {
			found++
		}
	}
	return lists, found, nil
}

// read adds up the scores of the postings of lists in acc.
func read(ctx context.Context, lists []postingList, acc *accumulator) error {
	var tfd index.TermFieldDoc
	for _, l := range lists {
		err := postings(ctx, l.tfr, &tfd, func(d *index.TermFieldDoc) error {
			num, err := docNum(d.ID)
			if err != nil {
				return err
			}
			acc.add(num, l.term, l.score.score(d.Freq, d.Norm))
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// bm25Scorer scores a term in a field as bleve's BM25 does, times the
// field's weight:
//
//	weight × idf × tf × k1 / (tf + k1 × (1 - b + b × length / avg))
//
// with the constant parts worked out once per (term, field) pair, since
// it runs for every posting.
type bm25Scorer struct {
	scale   float64 // weight × idf × k1
	base    float64 // k1 × (1 - b)
	perUnit float64 // k1 × b / avg, per unit of field length
}

// newBM25Scorer returns the scorer of a term of the given idf in a field
// of the given weight and average length.
func newBM25Scorer(weight, idf, avg, b float64) bm25Scorer {
	k1 := search.BM25_k1
	return bm25Scorer{scale: weight * idf * k1, base: k1 * (1 - b), perUnit: k1 * b / avg}
}

// score scores a posting: the term's count in the field, and the field's
// norm, 1/sqrt(length).
func (s bm25Scorer) score(freq uint64, norm float64) float64 {
	tf := 1.0
	if freq != 1 {
		tf = math.Sqrt(float64(freq))
	}
	return s.scale * tf / (tf + s.base + s.perUnit/(norm*norm))
}

// bm25IDF is the idf of a term found in df of n documents, as bleve's
// BM25 scorer computes it; it is positive whenever df <= n.
func bm25IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// averageLengths computes the average length of each field once per
// query, as bleve does for BM25.
type averageLengths struct {
	r   index.IndexReader
	n   uint64
	avg map[string]float64
}

func (a averageLengths) of(field string) (float64, error) {
	if v, ok := a.avg[field]; ok {
		return v, nil
	}
	br, ok := a.r.(index.BM25Reader)
	if !ok {
		return 0, errors.New("the index reader has no BM25 statistics")
	}
	card, err := br.FieldCardinality(field)
	if err != nil {
		return 0, err
	}
	// A field holding the term has a cardinality of at least one.
	v := max(1, math.Ceil(float64(card)/float64(a.n)))
	a.avg[field] = v
	return v, nil
}

// ctxCheckEvery is how many postings are read between two checks of the
// context.
const ctxCheckEvery = 1024

// postings calls fn with each posting of tfr, stopping at the first error
// or when ctx is done.
func postings(ctx context.Context, tfr index.TermFieldReader, tfd *index.TermFieldDoc, fn func(*index.TermFieldDoc) error) error {
	for i := 1; ; i++ {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		// No Reset: Next overwrites the ID, count and norm, and
		// there are no term vectors.
		d, err := tfr.Next(tfd)
		if err != nil || d == nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
}

// docsWith returns the numbers of the documents whose field holds term.
func docsWith(ctx context.Context, r index.IndexReader, term, field string) (map[uint64]bool, error) {
	tfr, err := r.TermFieldReader(ctx, []byte(term), field, false, false, false)
	if err != nil {
		return nil, err
	}
	docs := make(map[uint64]bool, tfr.Count())
	var tfd index.TermFieldDoc
	err = postings(ctx, tfr, &tfd, func(d *index.TermFieldDoc) error {
		num, err := docNum(d.ID)
		docs[num] = true
		return err
	})
	if cerr := tfr.Close(); err == nil {
		err = cerr
	}
	return docs, err
}

// docNum returns the number of a document from its internal ID, which
// scorch writes as 8 big-endian bytes.
func docNum(id index.IndexInternalID) (uint64, error) {
	if len(id) != 8 {
		return 0, errors.Errorf(errors.Internal, "internal document ID of %d bytes, want 8", len(id))
	}
	return binary.BigEndian.Uint64(id), nil
}

// accumulator adds up the scores of the documents a query matches. It
// finds a document's entry through slot, indexed by document number,
// rather than a map, which would cost more than reading the postings.
// Accumulators are pooled: slot grows to the largest document number
// once, and reset clears only the entries a query touched, so that a
// query costs O(matches), not O(catalogue).
type accumulator struct {
	slot []int32 // by document number: 1 + the position in docs, or 0
	docs []docScore
}

type docScore struct {
	num   uint64
	sum   float64
	terms uint64 // the bits of the query terms the document holds
	score float64
}

var accumulators = sync.Pool{New: func() any { return new(accumulator) }}

// release empties a and puts it back in the pool.
func release(a *accumulator) {
	for i := range a.docs {
		a.slot[a.docs[i].num] = 0
	}
	a.docs = a.docs[:0]
	accumulators.Put(a)
}

// add adds score to document num for the term of bit term.
func (a *accumulator) add(num uint64, term uint64, score float64) {
	d := a.doc(num)
	d.sum += score
	d.terms |= term
}

// doc returns the entry of document num, adding it when there is none.
func (a *accumulator) doc(num uint64) *docScore {
	if num >= uint64(len(a.slot)) {
		a.slot = append(a.slot, make([]int32, num+1-uint64(len(a.slot))+uint64(len(a.slot)/2))...)
	}
	i := a.slot[num]
	if i == 0 {
		a.docs = append(a.docs, docScore{num: num})
		i = int32(len(a.docs))
		a.slot[num] = i
	}
	return &a.docs[i-1]
}

// best returns the first end documents by score, then by ID, among those
// keep holds (all when keep is nil); terms is the number of query terms
// that matched, which scales the scores (0 scales nothing).
func (a *accumulator) best(r index.IndexReader, end, terms int, keep map[uint64]bool) ([]toolindex.Hit, error) {
	top := topScores{limit: end}
	for i := range a.docs {
		d := &a.docs[i]
		if keep != nil && !keep[d.num] {
			d.score = math.Inf(-1)
			continue
		}
		d.score = d.sum
		if terms > 0 {
			d.score *= float64(bits.OnesCount64(d.terms)) / float64(terms)
		}
		top.offer(d.score)
	}
	threshold, full := top.min()
	hits := []toolindex.Hit{}
	var id [8]byte
	for i := range a.docs {
		d := &a.docs[i]
		if d.score == math.Inf(-1) || (full && d.score < threshold) {
			continue
		}
		binary.BigEndian.PutUint64(id[:], d.num)
		ext, err := r.ExternalID(id[:])
		if err != nil {
			return nil, err
		}
		hits = append(hits, toolindex.Hit{ID: ext, Score: d.score})
	}
	slices.SortFunc(hits, func(a, b toolindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits[:min(end, len(hits))], nil
}

// topScores keeps the largest limit scores offered to it, in a min-heap,
// so that each offer costs O(log limit).
type topScores struct {
	limit int
	h     floatHeap
}

func (t *topScores) offer(v float64) {
	switch {
	case len(t.h) < t.limit:
		heap.Push(&t.h, v)
	case v > t.h[0]:
		t.h[0] = v
		heap.Fix(&t.h, 0)
	}
}

// min returns the smallest score kept, and whether limit scores are kept.
func (t *topScores) min() (float64, bool) {
	if len(t.h) == 0 || len(t.h) < t.limit {
		return 0, false
	}
	return t.h[0], true
}

// floatHeap is a min-heap of float64 for container/heap.
type floatHeap []float64

func (h floatHeap) Len() int           { return len(h) }
func (h floatHeap) Less(i, j int) bool { return h[i] < h[j] }
func (h floatHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *floatHeap) Push(x any)        { *h = append(*h, x.(float64)) }
func (h *floatHeap) Pop() any {
	old := *h
	v := old[len(old)-1]
	*h = old[:len(old)-1]
	return v
}
