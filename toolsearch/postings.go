package toolsearch

import (
	"context"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segapi "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/metatools-go/metatools/errors"
)

// A query reads the postings of each of its terms in up to nine fields.
// Asking bleve for them each time (a TermFieldReader per term and field)
// costs a dictionary lookup in every segment, and allocates about a dozen
// objects, whether or not the field holds the term: most of a query's
// time went there. Segments never change once written, so the postings a
// query reads from one are kept, decoded and compact, in a cache of that
// segment, for every later query: a word of a query costs a map lookup
// per segment once any earlier query asked for it. A change to the index
// adds a segment, and marks the documents it replaces as deleted in the
// others, whose caches stay valid (a deleted document is skipped as its
// postings are read); a segment merged away takes its cache with it.

// fieldSlot numbers the fields whose postings are cached.
type fieldSlot uint8

const (
	// slotPairs and the slots after it follow those of textFields.
	slotNamePairs fieldSlot = iota + fieldSlot(len(textFields))
	slotNamespaceKey
	numSlots
)

// slotFields are the fields of each slot.
var slotFields = func() (out [numSlots]string) {
	copy(out[:], textFields[:])
	out[slotNamePairs] = namePairsField
	out[slotNamespaceKey] = namespaceKeyField
	return out
}()

// slotDescription is the slot of the description's lead.
var slotDescription = fieldSlot(textFieldIndex(descriptionField))

// termGroup says which fields a cached term's postings are read from: a
// word's from the searched text fields, a pair's from the pair fields, a
// namespace's from the namespace key. The same text may be a word and a
// namespace; it then has an entry for each.
type termGroup uint8

const (
	groupWords termGroup = iota
	groupPairs
	groupNamespace
)

// termKey identifies a cached term.
type termKey struct {
	group termGroup
	term  string
}

// posting is a term's occurrences in one document of a segment: the
// document's number in the segment, the term's count in the field and the
// field's length in words, both capped at 65535 (a field that long is
// already weighed as if it were endless).
type posting struct {
	doc    uint32
	count  uint16
	length uint16
}

// termPostings holds the postings of a term in each field of its group;
// the slots of other fields are empty.
type termPostings struct {
	fields [numSlots][]posting
}

// Bounds on what the cache of one segment holds: when a term would take
// it past either, the cache is emptied first; the pairs of the leads
// found (segmentPostings.leadPairs) are emptied on their own when they
// reach maxCachedTerms. The postings bound is about 8 MB; an index of a
// few thousand tools holds well under a million postings in its searched
// fields, and the thousands of labelled queries of the evaluation data
// ask for about 10 000 terms and 40 000 pairs, so that only a large
// catalogue queried with a large vocabulary ever reaches them.
const (
	maxCachedPostings = 1 << 20
	maxCachedTerms    = 1 << 17
)

// segmentPostings is the cache of one segment: the postings of the terms
// queries asked for, and the IDs of the documents they returned.
type segmentPostings struct {
	seg                   segapi.Segment
	maxPostings, maxTerms int

	mu    sync.RWMutex
	terms map[termKey]*termPostings
	size  int // the postings held in terms
	// leadPairs holds, by pair and generation of the leadPairBook, the
	// documents whose lead holds the pair (with a count of 1).
	leadPairs map[leadPairKey][]posting
	// dicts are the segment's term dictionaries, opened on the first
	// miss in each field; a dictionary is not safe for concurrent use,
	// so they are used with mu held for writing.
	dicts [numSlots]segapi.TermDictionary
	// list and iter are reused from one miss to the next, as bleve's
	// own readers reuse theirs: a query on a new segment misses on most
	// of its terms. They are used with mu held for writing.
	list segapi.PostingsList
	iter segapi.PostingsIterator
	ids  []string // by document number; "" until looked up
}

// cachedView is the segments of one index snapshot with their caches:
// the number of a segment's first document among all the snapshot's
// documents (as bleve numbers them), and its deleted documents.
type cachedView struct {
	segs    []*segmentPostings
	deleted []*roaring.Bitmap // nil for a segment without deletions
	bases   []uint64
}

// postingCache keeps the caches of the segments of the index's latest
// snapshot.
type postingCache struct {
	// maxPostings and maxTerms bound each segment's cache
	// (maxCachedPostings and maxCachedTerms).
	maxPostings, maxTerms int

	mu    sync.Mutex
	snap  *scorch.IndexSnapshot // the snapshot view was made for
	view  *cachedView
	bySeg map[segapi.Segment]*segmentPostings
}

func newPostingCache() *postingCache {
	return &postingCache{maxPostings: maxCachedPostings, maxTerms: maxCachedTerms, bySeg: map[segapi.Segment]*segmentPostings{}}
}

// viewOf returns the view of the snapshot r, which the caller holds open.
// A snapshot the cache has not seen yet keeps the caches of the segments
// it shares with the one before, and drops the others'.
func (c *postingCache) viewOf(r index.IndexReader) (*cachedView, error) {
	snap, ok := r.(*scorch.IndexSnapshot)
	if !ok {
		return nil, errors.Errorf(errors.Internal, "index reader is a %T, want a scorch snapshot", r)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if snap == c.snap {
		return c.view, nil
	}
	segs := snap.Segments()
	v := &cachedView{
		segs:    make([]*segmentPostings, len(segs)),
		deleted: make([]*roaring.Bitmap, len(segs)),
		bases:   make([]uint64, len(segs)),
	}
	bySeg := make(map[segapi.Segment]*segmentPostings, len(segs))
	var base uint64
	for i, ss := range segs {
		seg := ss.Segment()
		sp := c.bySeg[seg]
		if sp == nil {
			sp = &segmentPostings{seg: seg, terms: map[termKey]*termPostings{}, maxPostings: c.maxPostings, maxTerms: c.maxTerms}
		}
		bySeg[seg] = sp
		v.segs[i] = sp
		if d := ss.Deleted(); d != nil && !d.IsEmpty() {
			v.deleted[i] = d
		}
		v.bases[i] = base
		base += seg.Count() // as bleve numbers a snapshot's documents
	}
	c.snap, c.view, c.bySeg = snap, v, bySeg
	return v, nil
}

// lookup sets found[i] to the postings of keys[i] in the segment, reading
// from the segment those no earlier query asked for. slots are the fields
// of each group.
func (sp *segmentPostings) lookup(ctx context.Context, keys []termKey, slots *[3][]fieldSlot, found []*termPostings) error {
	missing := false
	sp.mu.RLock()
	for i, k := range keys {
		found[i] = sp.terms[k]
		missing = missing || found[i] == nil
	}
	sp.mu.RUnlock()
	if !missing {
		return nil
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	for i, k := range keys {
		if found[i] != nil {
			continue
		}
		if found[i] = sp.terms[k]; found[i] != nil {
			continue
		}
		tp, n, err := sp.read(ctx, k.term, slots[k.group])
		if err != nil {
			return err
		}
		if sp.size+n > sp.maxPostings || len(sp.terms) >= sp.maxTerms {
			sp.empty()
		}
		sp.terms[k] = tp
		sp.size += n
		found[i] = tp
	}
	return nil
}

// dictionary returns the segment's dictionary of the field of slot; the
// caller holds mu for writing.
func (sp *segmentPostings) dictionary(slot fieldSlot) (segapi.TermDictionary, error) {
	if sp.dicts[slot] == nil {
		d, err := sp.seg.Dictionary(slotFields[slot])
		if err != nil {
			return nil, err
		}
		sp.dicts[slot] = d
	}
	return sp.dicts[slot], nil
}

// empty empties the cache; the caller holds mu for writing.
func (sp *segmentPostings) empty() {
	clear(sp.terms)
	clear(sp.leadPairs)
	sp.size = 0
}

// leadPairKey identifies the documents whose lead holds a pair, in a
// generation of the leadPairBook.
type leadPairKey struct {
	hash, gen uint64
}

// leadPairPostings returns the documents of the segment whose lead holds
// the pair of hash h, in generation gen of the pairs of the leads byID,
// given the postings in the lead of its two words: the documents that
// hold both words, whose pairs hold h. The caller holds the book's read
// lock.
func (sp *segmentPostings) leadPairPostings(h, gen uint64, first, second []posting, byID map[string]pairSet) ([]posting, error) {
	key := leadPairKey{hash: h, gen: gen}
	sp.mu.RLock()
	list, ok := sp.leadPairs[key]
	sp.mu.RUnlock()
	if ok {
		return list, nil
	}
	for x, y := 0, 0; x < len(first) && y < len(second); {
		switch {
		case first[x].doc < second[y].doc:
			x++
			continue
		case first[x].doc > second[y].doc:
			y++
			continue
		}
		doc := first[x].doc
		x, y = x+1, y+1
		id, err := sp.id(doc)
		if err != nil {
			return nil, err
		}
		if byID[id].contains(h) {
			list = append(list, posting{doc: doc, count: 1, length: 1})
		}
	}
	sp.mu.Lock()
	defer sp.mu.Unlock()
	if sp.size+len(list) > sp.maxPostings {
		sp.empty()
	}
	if len(sp.leadPairs) >= sp.maxTerms {
		for _, l := range sp.leadPairs {
			sp.size -= len(l)
		}
		clear(sp.leadPairs)
	}
	if sp.leadPairs == nil {
		sp.leadPairs = map[leadPairKey][]posting{}
	}
	sp.leadPairs[key] = list
	sp.size += len(list)
	return list, nil
}

// noPostings is the entry of a term that none of its fields holds, which
// is what most lookups find (a query word in a field that lacks it, an
// agent noun no tool uses).
var noPostings = &termPostings{}

// read decodes the postings of term in the fields of slots, and returns
// them and their number; the caller holds mu for writing.
func (sp *segmentPostings) read(ctx context.Context, term string, slots []fieldSlot) (*termPostings, int, error) {
	var tp *termPostings
	n := 0
	for _, slot := range slots {
		dict, err := sp.dictionary(slot)
		if err != nil {
			return nil, 0, err
		}
		list, err := sp.postings(ctx, dict, term)
		if err != nil {
			return nil, 0, err
		}
		if len(list) == 0 {
			continue
		}
		if tp == nil {
			tp = &termPostings{}
		}
		tp.fields[slot] = list
		n += len(list)
	}
	if tp == nil {
		return noPostings, 0, nil
	}
	return tp, n, nil
}

// postings decodes the postings of term in dict; the caller holds mu for
// writing.
func (sp *segmentPostings) postings(ctx context.Context, dict segapi.TermDictionary, term string) ([]posting, error) {
	pl, err := dict.PostingsList([]byte(term), nil, sp.list)
	if err != nil || pl == nil {
		return nil, err
	}
	sp.list = pl
	if pl.Count() == 0 {
		return nil, nil
	}
	list := make([]posting, 0, pl.Count())
	it := pl.Iterator(true, true, false, sp.iter)
	sp.iter = it
	for i := 1; ; i++ {
		if i%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		p, err := it.Next()
		if err != nil || p == nil {
			return list, err
		}
		list = append(list, posting{doc: uint32(p.Number()), count: cap16(p.Frequency()), length: cap16(uint64(fieldLength(p.Norm())))})
	}
}

// id returns the ID of document num of the segment.
func (sp *segmentPostings) id(num uint32) (string, error) {
	sp.mu.RLock()
	if int(num) < len(sp.ids) && sp.ids[num] != "" {
		id := sp.ids[num]
		sp.mu.RUnlock()
		return id, nil
	}
	sp.mu.RUnlock()
	raw, err := sp.seg.DocID(uint64(num))
	if err != nil {
		return "", err
	}
	if raw == nil {
		return "", errors.Errorf(errors.Internal, "document %d has no ID", num)
	}
	id := string(raw)
	sp.mu.Lock()
	if sp.ids == nil {
		sp.ids = make([]string, sp.seg.Count())
	}
	if int(num) < len(sp.ids) {
		sp.ids[num] = id
	}
	sp.mu.Unlock()
	return id, nil
}

// id returns the ID of the view's document num.
func (v *cachedView) id(num uint64) (string, error) {
	// The last segment starting at or before num: an empty segment
	// starts where the next one does.
	i := sort.Search(len(v.bases), func(i int) bool { return v.bases[i] > num }) - 1
	return v.segs[i].id(uint32(num - v.bases[i]))
}

// cap16 returns n, or 65535 when it is larger.
func cap16(n uint64) uint16 {
	return uint16(min(n, 1<<16-1))
}
