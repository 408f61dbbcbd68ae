package toolsearch

import (
	"cmp"
	"context"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
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
// Lookups by name come first: when the query is a single word that is a
// tool's ID, or a tool's name (in any case), that tool ranks first; a
// query "select:NAME,NAME2" ranks the tools so named first, in that
// order, and then those whose text matches the names' words. Named tools
// outside the query's namespace are left out as usual.
//
// The index is bleve's, and so are the statistics of the scores (see
// [Searcher]), but the query is not run through bleve's query engine: a
// disjunction of per-field term queries there visits every match through
// nested searchers, which made a query about four times as slow as
// reading the postings directly and adding up the scores, as Search does.
//
// A query's cost is linear in its length, plus that of at most
// maxQueryTerms terms and their pairs: a long text is analysed in chunks
// of queryChunk bytes, and ctx is checked between them and while the
// postings are read, so that a deadline ends even a query of megabytes
// promptly, with an error of code errors.Timeout.
func (s *Searcher) Search(ctx context.Context, q toolindex.SearchQuery) ([]toolindex.Hit, error) {
	const op = "toolsearch.Searcher.Search"
	if err := s.usable(op); err != nil {
		return nil, err
	}
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return nil, err
	}
	if q.Offset < 0 || q.Limit < 1 {
		return nil, errors.Opf(op, errors.InvalidArgument, "offset %d and limit %d: need offset >= 0 and limit >= 1", q.Offset, q.Limit)
	}
	names, text := lookupNames(q.Text)
	tokens, err := analyzeChunks(ctx, s.analyzer, text, queryChunk)
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	terms := s.queryTerms(tokens)
	end := q.Offset + q.Limit
	if end < q.Offset { // overflow: every hit is before the end
		end = math.MaxInt
	}
	// The query is embedded before the index is read: the embedding
	// service may take a while, and must not hold the index open.
	var semantic []toolindex.Hit
	if s.semantic != nil && strings.TrimSpace(text) != "" {
		semantic = s.semantic.rank(ctx, text, q.Namespace, max(end, fusionDepth))
		if err := errors.FromContext(ctx, op, nil); err != nil {
			return nil, err
		}
	}
	if len(terms) == 0 && len(names) == 0 && len(semantic) == 0 {
		return []toolindex.Hit{}, nil
	}

	unlock, err := s.lockRead(op)
	if err != nil {
		return nil, err
	}
	defer unlock()
	adv, err := s.idx.Advanced()
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "open the index: %w", err)
	}
	r, err := adv.Reader()
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "open a reader: %w", err)
	}
	defer r.Close()

	pinned, err := s.named(ctx, r, names, q.Namespace)
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	// The named tools are taken out of the ranking: rank as many more.
	depth := end
	for _, group := range pinned {
		if depth <= math.MaxInt-len(group) {
			depth += len(group)
		}
	}
	if s.fuseLexical || s.semantic != nil {
		depth = max(depth, fusionDepth)
	}
	// With a blend, the ranking goes on below the first depth hits as
	// long as the lexical scores could lift a hit into them.
	margin := s.blend
	hits := []toolindex.Hit{}
	if len(terms) > 0 {
		query := s.weightedQuery(tokens, terms)
		if err := errors.FromContext(ctx, op, nil); err != nil {
			return nil, err
		}
		if hits, err = s.rank(ctx, r, query, q.Namespace, depth, margin); err != nil {
			return nil, searchError(ctx, op, err)
		}
		if s.texts != nil && len(hits) > 0 {
			if expanded := s.expand(terms, hits); expanded != nil {
				if hits, err = s.rank(ctx, r, expanded, q.Namespace, depth, margin); err != nil {
					return nil, searchError(ctx, op, err)
				}
			}
		}
	}
	if s.blend > 0 && len(terms) > 0 {
		lexical, err := s.lexical.Search(ctx, toolindex.SearchQuery{Text: text, Namespace: q.Namespace, Limit: max(depth, blendDepth)})
		if err != nil {
			return nil, searchError(ctx, op, err)
		}
		hits = blend(depth, hits, lexical, s.blend)
	}
	rankings := []weightedRanking{{hits: hits, weight: s.fusionWeight}}
	if s.fuseLexical && len(terms) > 0 {
		lexical, err := s.lexical.Search(ctx, toolindex.SearchQuery{Text: text, Namespace: q.Namespace, Limit: depth})
		if err != nil {
			return nil, searchError(ctx, op, err)
		}
		rankings = append(rankings, weightedRanking{hits: lexical, weight: 1})
	}
	if len(semantic) > 0 {
		rankings = append(rankings, weightedRanking{hits: semantic, weight: 1})
	}
	if len(rankings) > 1 {
		hits = fuse(depth, rankings...)
	}
	hits = pin(hits, pinned, end)
	return hits[min(q.Offset, len(hits)):], nil
}

// queryChunk is how many bytes of a query's text, at most, are analysed
// between two checks of the context: about 15 ms of work.
const queryChunk = 64 << 10

// analyzeChunks returns the tokens of text analysed by a, as
// a.Analyze([]byte(text)) returns them, but analyses the text a chunk of
// about chunk bytes at a time, cut after a character that no word holds
// (isChunkEnd), and checks ctx before each chunk: analysing a megabyte of
// query takes a few hundred milliseconds, which a deadline must be able
// to cut short. The analyzer's filters act on one token at a time, so the
// terms are the same; the tokens' positions and offsets are shifted to
// follow those of the chunks before.
func analyzeChunks(ctx context.Context, a analysis.Analyzer, text string, chunk int) (analysis.TokenStream, error) {
	if len(text) <= chunk {
		return a.Analyze([]byte(text)), nil
	}
	var tokens analysis.TokenStream
	start, position := 0, 0
	for start < len(text) {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		end := chunkEnd(text[start:], chunk) + start
		last := position
		for _, tok := range a.Analyze([]byte(text[start:end])) {
			tok.Position += position
			tok.Start += start
			tok.End += start
			last = max(last, tok.Position)
			tokens = append(tokens, tok)
		}
		start, position = end, last
	}
	return tokens, nil
}

// chunkEnd returns where the first chunk of text ends: after the last
// character ending at most chunk bytes in that can end a chunk
// (isChunkEnd), or, when there is none, after the first one past them, or
// at the end of the text. The text is decoded from its start, as the
// tokenizer decodes it, so that a cut never falls inside a character,
// however malformed the UTF-8.
func chunkEnd(text string, chunk int) int {
	if len(text) <= chunk {
		return len(text)
	}
	cut := 0
	for i := 0; i < len(text) && (i < chunk || cut == 0); {
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		if isChunkEnd(r) && (i <= chunk || cut == 0) {
			cut = i
		}
	}
	if cut == 0 {
		return len(text)
	}
	return cut
}

// isChunkEnd reports whether the identifierTokenizer ends any token at r:
// r belongs to no word and is no apostrophe (which may join two words'
// letters), or it is a character of a script written without spaces,
// which is a token on its own.
func isChunkEnd(r rune) bool {
	return !isWordRune(r) && !isApostrophe(r) || isUnspacedScript(r)
}

// queryTerms returns the distinct terms of a query's tokens (its text
// analysed as the fields were), sorted, at most maxQueryTerms of them (the
// first ones).
func (s *Searcher) queryTerms(tokens analysis.TokenStream) []string {
	var terms []string
	seen := map[string]bool{}
	for _, tok := range tokens {
		if len(tok.Term) == 0 || seen[string(tok.Term)] {
			continue
		}
		term := string(tok.Term)
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
// Scores are BM25F: each term's frequency in a field is normalised by the
// field's length relative to its average (with the field's own b),
// weighted by the field's weight, and the sums over the fields are
// saturated once per term, so that a term repeated across many fields or
// in a long field adds at most its idf, however long the tool's text:
//
//	tf'  = Σ_field weight × count / (1 - b + b × length / average length)
//	term = idf × tf' × (k1 + 1) / (k1 + tf')
//
// The idf counts the documents holding the term in any searched field.
// A tool's score is the sum of its terms' scores, scaled, when coverage
// is on, by the share of the query's idf that its terms carry: a tool
// holding the rare words of a query outranks one holding its common
// words, however many times it repeats them.
//
// The postings come from the segments' caches (postingCache): a map
// lookup per term and segment, and, for a term no query asked for since
// its segment was written, a dictionary lookup per field. Each posting is
// then read once and its frequency added up by document, O(postings);
// keeping the best costs O(matches × log end), and an ID lookup for each
// hit returned (and for those that tie with the last one).
func (s *Searcher) rank(ctx context.Context, r index.IndexReader, terms []weightedTerm, namespace string, end int, margin float64) ([]toolindex.Hit, error) {
	n, err := r.DocCount()
	if err != nil || n == 0 {
		return []toolindex.Hit{}, err
	}
	view, err := s.postings.viewOf(r)
	if err != nil {
		return nil, err
	}
	acc := accumulators.Get().(*accumulator)
	defer release(acc)
	if err := s.open(ctx, view, terms, namespace, acc); err != nil {
		return nil, err
	}
	if namespace != "" && !acc.inNamespace(view) {
		return []toolindex.Hit{}, nil
	}
	found, err := s.read(ctx, view, terms, n, acc)
	if err != nil {
		return nil, err
	}
	return acc.best(view, end, margin, s.coverage, s.query.coreCoverage, found)
}

// postingList is the postings of a query term in a field of a segment,
// with the field's weight and length normalisation.
type postingList struct {
	postings []posting
	seg      int  // the segment's position in the view
	term     int  // the term's number among the query's terms
	core     bool // the field names or sums up the tool (isCoreField)
	norm     fieldNorm
}

// keyUse is what a looked-up term is to the query: an occurrence of its
// term number term, scaled, in every field of its group or, with
// shortFields, in the short fields only.
type keyUse struct {
	term        int
	scale       float64
	shortFields bool
}

// open looks up the postings of the terms (and of namespace, when it is
// not empty) in every segment of view, and leaves in acc.lists those of
// the terms in the searched fields, in term order.
func (s *Searcher) open(ctx context.Context, view *cachedView, terms []weightedTerm, namespace string, acc *accumulator) error {
	for i, term := range terms {
		acc.selfKey = append(acc.selfKey, len(acc.keys))
		if term.pair {
			acc.addKey(termKey{group: groupPairs, term: term.term}, keyUse{term: i, scale: 1})
			continue
		}
		acc.addKey(termKey{group: groupWords, term: term.term}, keyUse{term: i, scale: 1})
		for _, alt := range term.alts {
			acc.addKey(termKey{group: groupWords, term: alt.term}, keyUse{term: i, scale: alt.scale, shortFields: alt.shortFields})
		}
	}
	if namespace != "" {
		acc.addKey(termKey{group: groupNamespace, term: namespace}, keyUse{term: -1})
	}
	k := len(acc.keys)
	acc.found = slices.Grow(acc.found[:0], k*len(view.segs))[:k*len(view.segs)]
	for j, sp := range view.segs {
		if err := sp.lookup(ctx, acc.keys, &s.slots, acc.found[j*k:(j+1)*k]); err != nil {
			return err
		}
	}
	stats := s.lengths.current()
	for i, key := range acc.keys {
		use := acc.uses[i]
		switch key.group {
		case groupPairs:
			// Pairs count as they are: a name or a lead holds a pair
			// once or a few times, whatever its length.
			acc.addLists(view, i, use.term, slotNamePairs, fieldNorm{weight: 1, base: 1}, false)
		case groupWords:
			for _, f := range s.fields {
				if use.shortFields && !isShortField(f.name) {
					continue
				}
				norm := newFieldNorm(f, stats.average(int(f.slot)))
				norm.weight *= use.scale
				acc.addLists(view, i, use.term, f.slot, norm, isCoreField(f.name))
			}
		}
	}
	return nil
}

// read scores the postings of acc.lists, which come in term order, and
// the pairs of the leads, for an index of n documents, each term's score
// multiplied by its weight in terms, and returns the number of terms
// found and the sum of their idf. Deleted documents are skipped.
func (s *Searcher) read(ctx context.Context, view *cachedView, terms []weightedTerm, n uint64, acc *accumulator) (found queryMass, err error) {
	var (
		leadPairs map[string]pairSet
		gen       uint64
	)
	if s.leadPairWeight > 0 {
		s.leadPairs.mu.RLock()
		defer s.leadPairs.mu.RUnlock()
		leadPairs, gen = s.leadPairs.byID, s.leadPairs.gen
	}
	lists, next := acc.lists, 0
	for t, term := range terms {
		if err := ctx.Err(); err != nil {
			return found, err
		}
		bit := uint64(1) << t
		acc.termDocs = acc.termDocs[:0]
		for ; next < len(lists) && lists[next].term == t; next++ {
			l := &lists[next]
			base, deleted := view.bases[l.seg], view.deleted[l.seg]
			for _, p := range l.postings {
				if deleted != nil && deleted.Contains(p.doc) {
					continue
				}
				acc.addFrequency(base+uint64(p.doc), bit, l.core, l.norm.frequency(p.count, p.length))
			}
		}
		if term.pair && leadPairs != nil {
			if err := acc.addLeadPairs(view, t, term, leadPairs, gen, s.leadPairWeight); err != nil {
				return found, err
			}
		}
		if len(acc.termDocs) == 0 { // no document holds it, or only deleted ones
			continue
		}
		idf := bm25IDF(n, uint64(len(acc.termDocs)))
		found.terms++
		found.idf += idf
		if !term.pair {
			found.wordIDF += idf
		}
		for _, j := range acc.termDocs {
			d := &acc.docs[j]
			d.sum += term.weight * saturate(idf, d.freq, s.k1)
			d.covered += idf
			if !term.pair && d.core&bit != 0 {
				d.coreIDF += idf
			}
			d.freq = 0
		}
	}
	return found, nil
}

// addLeadPairs adds weight to the frequency of the pair term, the t-th
// of the query, in each document whose lead holds the pair, which each
// segment works out once from the postings of its words in the lead and
// the pairs of the leads (leadPairPostings).
func (a *accumulator) addLeadPairs(view *cachedView, t int, term weightedTerm, leadPairs map[string]pairSet, gen uint64, weight float64) error {
	k := len(a.keys)
	first, second := a.selfKey[term.words[0]], a.selfKey[term.words[1]]
	bit := uint64(1) << t
	for j, sp := range view.segs {
		pa, pb := a.found[j*k+first].fields[slotDescription], a.found[j*k+second].fields[slotDescription]
		if len(pa) == 0 || len(pb) == 0 {
			continue
		}
		list, err := sp.leadPairPostings(term.hash, gen, pa, pb, leadPairs)
		if err != nil {
			return err
		}
		base, deleted := view.bases[j], view.deleted[j]
		for _, p := range list {
			if deleted != nil && deleted.Contains(p.doc) {
				continue
			}
			a.addFrequency(base+uint64(p.doc), bit, false, weight)
		}
	}
	return nil
}

// queryMass is how much of a query the index holds: the number of its
// terms found, the sum of their idf, and the sum of the idf of those
// that are words (not pairs of words).
type queryMass struct {
	terms   int
	idf     float64
	wordIDF float64
}

// fieldNorm turns a term's count in a field into its weighted,
// length-normalised frequency:
//
//	weight × count / (1 - b + b × length / average length)
//
// with the constant parts worked out once per (term, field) pair, since
// it runs for every posting.
type fieldNorm struct {
	weight  float64
	base    float64 // 1 - b
	perUnit float64 // b / average length, per unit of field length
}

func newFieldNorm(f weightedField, avg float64) fieldNorm {
	return fieldNorm{weight: f.weight, base: 1 - f.b, perUnit: f.b / avg}
}

// frequency normalises a posting: the term's count in the field, and the
// field's length.
func (f fieldNorm) frequency(count, length uint16) float64 {
	return f.weight * float64(count) / (f.base + f.perUnit*float64(length))
}

// fieldLength recovers a field's length, in words, from its norm,
// 1/sqrt(length), which bleve keeps as a float32: rounding undoes the
// loss of precision.
func fieldLength(norm float64) float64 {
	if norm <= 0 {
		return 1
	}
	return math.Round(1 / (norm * norm))
}

// saturate is the BM25 score of a term of the given idf and normalised
// frequency.
func saturate(idf, freq, k1 float64) float64 {
	return idf * freq * (k1 + 1) / (k1 + freq)
}

// bm25IDF is the idf of a term found in df of n documents, as BM25
// computes it (Lucene's variant, which is never negative).
func bm25IDF(n, df uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
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

// accumulator is the scratch space of a ranking: the terms looked up and
// their postings, and the scores of the documents the query matches. It
// finds a document's entry through slot, indexed by document number,
// rather than a map, which would cost more than reading the postings.
// Accumulators are pooled: their slices grow to what the largest query
// needs once, and release clears only the entries a query touched, so
// that a query costs O(matches), not O(catalogue), and allocates nothing
// here once the pool is warm.
type accumulator struct {
	keys    []termKey
	selfKey []int // by query term: the position in keys of the term itself
	uses    []keyUse
	found   []*termPostings // by segment, then key
	lists   []postingList
	// keep holds the bits, by document number, of the documents in the
	// query's namespace; filter says to use it.
	keep   []uint64
	filter bool

	slot     []int32 // by document number: 1 + the position in docs, or 0
	docs     []docScore
	termDocs []int32 // the positions in docs of the documents holding the term being read
	top      topScores
	deep     topScores
	cands    []int32 // the positions in docs of the hits to return
}

type docScore struct {
	num     uint64
	sum     float64
	freq    float64 // the normalised frequency of the term being read
	terms   uint64  // the bits of the query terms the document holds
	covered float64 // the sum of their idf
	core    uint64  // the bits of the query terms the document's core fields hold
	coreIDF float64 // the sum of the idf of the words among them
	score   float64
}

var accumulators = sync.Pool{New: func() any { return new(accumulator) }}

// release empties a and puts it back in the pool.
func release(a *accumulator) {
	for i := range a.docs {
		a.slot[a.docs[i].num] = 0
	}
	a.docs = a.docs[:0]
	clear(a.found) // let the caches' entries go with their segments
	a.keys, a.selfKey, a.uses, a.found, a.lists = a.keys[:0], a.selfKey[:0], a.uses[:0], a.found[:0], a.lists[:0]
	clear(a.keep)
	a.filter = false
	accumulators.Put(a)
}

// addKey adds a term to look up, and what it is to the query.
func (a *accumulator) addKey(k termKey, use keyUse) {
	a.keys = append(a.keys, k)
	a.uses = append(a.uses, use)
}

// addLists adds the postings of key i in the field of slot in every
// segment that holds any, as occurrences of term.
func (a *accumulator) addLists(view *cachedView, i, term int, slot fieldSlot, norm fieldNorm, core bool) {
	k := len(a.keys)
	for j := range view.segs {
		if p := a.found[j*k+i].fields[slot]; len(p) > 0 {
			a.lists = append(a.lists, postingList{postings: p, seg: j, term: term, core: core, norm: norm})
		}
	}
}

// inNamespace marks the documents of the namespace looked up (the last
// key) in keep, and reports whether there are any.
func (a *accumulator) inNamespace(view *cachedView) bool {
	a.filter = true
	k := len(a.keys)
	some := false
	for j := range view.segs {
		base, deleted := view.bases[j], view.deleted[j]
		for _, p := range a.found[j*k+k-1].fields[slotNamespaceKey] {
			if deleted != nil && deleted.Contains(p.doc) {
				continue
			}
			num := base + uint64(p.doc)
			if w := int(num / 64); w >= len(a.keep) {
				a.keep = append(a.keep, make([]uint64, w+1-len(a.keep))...)
			}
			a.keep[num/64] |= 1 << (num % 64)
			some = true
		}
	}
	return some
}

// kept reports whether document num is in the query's namespace, or the
// query has none.
func (a *accumulator) kept(num uint64) bool {
	if !a.filter {
		return true
	}
	w := num / 64
	return w < uint64(len(a.keep)) && a.keep[w]&(1<<(num%64)) != 0
}

// addFrequency adds freq to the frequency of the term of bit term in
// document num, and notes that the document holds the term, in a core
// field when core is true.
func (a *accumulator) addFrequency(num uint64, term uint64, core bool, freq float64) {
	i := a.doc(num)
	d := &a.docs[i]
	if d.terms&term == 0 {
		d.terms |= term
		a.termDocs = append(a.termDocs, i)
	}
	if core {
		d.core |= term
	}
	d.freq += freq
}

// doc returns the position in docs of document num, adding it when there
// is none.
func (a *accumulator) doc(num uint64) int32 {
	if num >= uint64(len(a.slot)) {
		a.slot = append(a.slot, make([]int32, num+1-uint64(len(a.slot))+uint64(len(a.slot)/2))...)
	}
	i := a.slot[num]
	if i == 0 {
		a.docs = append(a.docs, docScore{num: num})
		i = int32(len(a.docs))
		a.slot[num] = i
	}
	return i - 1
}

// best returns the first end documents by score, then by ID, among those
// in the query's namespace, and after them those whose score is within
// margin times the best score of the end-th one, at most blendDepth in
// all (or end, when that is more); each score is scaled as coverage says
// by the share of the query found that the document holds, and by 1 -
// core + core × the share of the query words' idf that its core fields
// hold.
//
// Scores are ranked in two min-heaps of the best scores, O(matches × log
// limit); only the documents at or above the cut (those returned, and
// those that tie with the last) have their IDs looked up and are sorted.
func (a *accumulator) best(view *cachedView, end int, margin float64, coverage coverageMode, core float64, found queryMass) ([]toolindex.Hit, error) {
	a.top.reset(end)
	a.deep.reset(max(end, blendDepth))
	best := math.Inf(-1)
	for i := range a.docs {
		d := &a.docs[i]
		if !a.kept(d.num) {
			d.score = math.Inf(-1)
			continue
		}
		d.score = d.sum
		switch {
		case coverage == coverageTerms && found.terms > 0:
			d.score *= float64(bits.OnesCount64(d.terms)) / float64(found.terms)
		case coverage == coverageIDF && found.idf > 0:
			d.score *= d.covered / found.idf
		}
		if core > 0 && found.wordIDF > 0 {
			d.score *= 1 - core + core*d.coreIDF/found.wordIDF
		}
		a.top.offer(d.score)
		if margin > 0 {
			a.deep.offer(d.score)
			best = max(best, d.score)
		}
	}
	threshold, full := a.top.min()
	limit := end
	if deepest, deepFull := a.deep.min(); margin > 0 && full {
		threshold -= margin * best
		if deepFull {
			threshold = max(threshold, deepest)
		}
		limit = a.deep.limit
	}
	a.cands = a.cands[:0]
	for i := range a.docs {
		d := &a.docs[i]
		if d.score == math.Inf(-1) || (full && d.score < threshold) {
			continue
		}
		a.cands = append(a.cands, int32(i))
	}
	// Past the limit, only the documents that tie with the last one kept
	// can still be among the first limit once ties are broken by ID.
	slices.SortFunc(a.cands, func(x, y int32) int { return cmp.Compare(a.docs[y].score, a.docs[x].score) })
	cut := min(limit, len(a.cands))
	for cut > 0 && cut < len(a.cands) && a.docs[a.cands[cut]].score == a.docs[a.cands[cut-1]].score {
		cut++
	}
	hits := make([]toolindex.Hit, cut)
	for i, c := range a.cands[:cut] {
		d := &a.docs[c]
		id, err := view.id(d.num)
		if err != nil {
			return nil, err
		}
		hits[i] = toolindex.Hit{ID: id, Score: d.score}
	}
	slices.SortFunc(hits, func(a, b toolindex.Hit) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return hits[:min(limit, len(hits))], nil
}

// topScores keeps the largest limit scores offered to it, in a min-heap,
// so that each offer costs O(log limit).
type topScores struct {
	limit int
	h     []float64
}

// reset empties t to keep the largest limit scores.
func (t *topScores) reset(limit int) {
	t.limit = limit
	t.h = t.h[:0]
}

func (t *topScores) offer(v float64) {
	switch {
	case len(t.h) < t.limit:
		t.h = append(t.h, v)
		for i := len(t.h) - 1; i > 0; { // sift up
			parent := (i - 1) / 2
			if t.h[parent] <= t.h[i] {
				break
			}
			t.h[parent], t.h[i] = t.h[i], t.h[parent]
			i = parent
		}
	case v > t.h[0]:
		t.h[0] = v
		for i := 0; ; { // sift down
			small, l, r := i, 2*i+1, 2*i+2
			if l < len(t.h) && t.h[l] < t.h[small] {
				small = l
			}
			if r < len(t.h) && t.h[r] < t.h[small] {
				small = r
			}
			if small == i {
				break
			}
			t.h[small], t.h[i] = t.h[i], t.h[small]
			i = small
		}
	}
}

// min returns the smallest score kept, and whether limit scores are kept.
func (t *topScores) min() (float64, bool) {
	if len(t.h) == 0 || len(t.h) < t.limit {
		return 0, false
	}
	return t.h[0], true
}
