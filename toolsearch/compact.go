package toolsearch

import (
	"cmp"
	"slices"
)

// mergeFactor is how many segments of about the same size an in-memory
// index merges into one. Segments are grouped in levels by size (level l
// holds sizes in [mergeFactor^l, mergeFactor^(l+1))), and a level that
// fills up with mergeFactor segments is merged into one segment of the
// next level. Each document is therefore re-indexed at most once per
// level, O(log n) times in all, and an index of n documents has at most
// (mergeFactor-1) segments per level, O(log n) in all. Building a
// segment has a fixed cost (a dictionary per field), which a change of one
// tool pays for its own segment and for its share of the merges: 8 merges
// half as often as 4, and re-indexes a document 4 times rather than 6 in
// a catalogue of 4 000, for a few more segments to read per query.
const mergeFactor = 8

// segments keeps an in-memory index compact.
//
// Bleve's in-memory index turns every batch into a segment and never
// merges segments (its merger works on files only), so an index updated
// one tool at a time would otherwise end up with one segment per update,
// and every query would visit them all. segments tracks which batch holds
// the live version of each document, and says when to re-index the
// documents of several small segments in one batch: bleve then drops the
// segments they came from, since nothing live is left in them.
//
// It also keeps the indexed documents, which a merge re-indexes and which
// tell whether an upsert changes anything. It is not safe for concurrent
// use: the Searcher's write lock guards it.
type segments struct {
	docs  map[string]*document // live documents by ID
	owner map[string]*segment  // the segment holding each live document
	all   []*segment
}

// segment is one batch applied to the index, with its live documents.
type segment struct {
	ids map[string]struct{}
}

func newSegments() *segments {
	return &segments{docs: map[string]*document{}, owner: map[string]*segment{}}
}

// unchanged reports whether d is already indexed with the same content.
func (s *segments) unchanged(d *document) bool {
	old := s.docs[d.id]
	return old != nil && old.hash == d.hash
}

// indexed records that docs were indexed in one batch. The batch held
// nothing else.
func (s *segments) indexed(docs []*document) {
	seg := &segment{ids: make(map[string]struct{}, len(docs))}
	for _, d := range docs {
		s.release(d.id)
		s.docs[d.id] = d
		s.owner[d.id] = seg
		seg.ids[d.id] = struct{}{}
	}
	if len(seg.ids) > 0 {
		s.all = append(s.all, seg)
	}
}

// removed records that the documents with ids were deleted.
func (s *segments) removed(ids []string) {
	for _, id := range ids {
		s.release(id)
		delete(s.docs, id)
	}
}

// release takes id out of the segment that holds it, forgetting segments
// left empty (bleve drops those too).
func (s *segments) release(id string) {
	seg := s.owner[id]
	if seg == nil {
		return
	}
	delete(seg.ids, id)
	delete(s.owner, id)
	if len(seg.ids) == 0 {
		s.all = slices.DeleteFunc(s.all, func(x *segment) bool { return x == seg })
	}
}

// nextMerge returns the documents of the lowest level that holds
// mergeFactor segments or more, in ID order, or nil when no level is
// full.
func (s *segments) nextMerge() []*document {
	byLevel := map[int][]*segment{}
	full := -1
	for _, seg := range s.all {
		l := level(len(seg.ids))
		byLevel[l] = append(byLevel[l], seg)
		if len(byLevel[l]) >= mergeFactor && (full < 0 || l < full) {
			full = l
		}
	}
	if full < 0 {
		return nil
	}
	var docs []*document
	for _, seg := range byLevel[full] {
		for id := range seg.ids {
			docs = append(docs, s.docs[id])
		}
	}
	slices.SortFunc(docs, func(a, b *document) int { return cmp.Compare(a.id, b.id) })
	return docs
}

// level returns floor(log_mergeFactor(size)) for size >= 1.
func level(size int) int {
	l := 0
	for size >= mergeFactor {
		size /= mergeFactor
		l++
	}
	return l
}
