package toolsearch

import (
	"bytes"
	"hash/maphash"
	"slices"
	"sync"
)

// The pairs of words of the description leads are kept in memory, by
// tool, rather than indexed: a lead of w words has about 4w pairs, nearly
// all of them terms no other tool holds, and indexing them as a field of
// their own took more than half the time of indexing a catalogue. A query
// finds them among the tools whose lead holds both words of one of its
// pairs, which the postings of the lead say: the same tools, with the
// same counts, as the indexed field gave.

// pairSet is the pairs of words of a lead, as sorted pairHash values.
type pairSet []uint64

// contains reports whether the set holds the pair of hash h.
func (p pairSet) contains(h uint64) bool {
	_, found := slices.BinarySearch(p, h)
	return found
}

// pairSeed seeds pairHash. Sets live in memory only, so a seed of the
// process's own is enough.
var pairSeed = maphash.MakeSeed()

// pairHash is the 64-bit hash of a pair's key (pairKey): two different
// pairs of a catalogue's leads collide with odds of about one in 10¹⁴.
func pairHash(key string) uint64 {
	return maphash.String(pairSeed, key)
}

// pairHashOf is pairHash(pairKey(a, b)), without making the key.
func pairHashOf(a, b []byte) uint64 {
	if bytes.Compare(b, a) < 0 {
		a, b = b, a
	}
	var h maphash.Hash
	h.SetSeed(pairSeed)
	_, _ = h.Write(a)
	_ = h.WriteByte('_')
	_, _ = h.Write(b)
	return h.Sum64()
}

// leadPairBook holds the pairSet of each upserted tool's lead. Changes
// take its lock for a map update only; queries read it with the read
// lock held, never across an indexing batch.
//
// A query caches, in each segment, the documents whose lead holds a pair
// (segmentPostings.leadPairs), computed from the book. A document's pairs
// change with its lead, which is then indexed again, as a new document in
// a new segment: its pairs are set before it is indexed, so that no query
// sees the new document with the old pairs, and the old document is
// deleted, so that what any segment cached about it is skipped. Pairs
// that change without their document being indexed again (those of an
// on-disk index that was reopened, learnt from the upserts that follow)
// start a new generation, which leaves what the segments cached before
// behind.
type leadPairBook struct {
	mu   sync.RWMutex
	byID map[string]pairSet
	gen  uint64
}

// set records the pairs of the documents' leads. indexed says that the
// documents are about to be indexed; otherwise a change of pairs starts a
// new generation.
func (b *leadPairBook) set(docs []*document, indexed bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, d := range docs {
		if slices.Equal(b.byID[d.id], d.leadPairs) {
			continue
		}
		if !indexed {
			b.gen++
		}
		if len(d.leadPairs) == 0 {
			delete(b.byID, d.id)
			continue
		}
		b.byID[d.id] = d.leadPairs
	}
}

// drop forgets the pairs of the tools with ids.
func (b *leadPairBook) drop(ids []string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, id := range ids {
		delete(b.byID, id)
	}
}
