package toolsearch

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	blevedoc "github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// ErrClosed is the cause of the error returned by every method of a
// [Searcher] after Close.
var ErrClosed = errors.New("toolsearch: searcher is closed")

// Searcher is a [toolindex.Searcher] on a bleve index scored with BM25.
//
// Each tool is indexed as a document with one field per part of its
// definition (name, namespace, tags, title, description lead and details,
// parameter names and parameter descriptions), all analysed the same way: identifiers are
// split into words, words are lower-cased and stemmed, English stop words
// are dropped. A query is analysed the same way and never parsed as a
// query language. A tool matches when any field contains any query word;
// it is scored with BM25F: for each query word, its count in each field is
// normalised by the field's length relative to the field's average length
// and multiplied by the field's weight ([Weights]), and the sum over the
// fields is saturated once, so that a word adds at most a bounded amount
// however often a long description or parameter list repeats it. The
// tool's score is the sum over the query words. A word's agent noun
// ("finder" for "find") counts as half an occurrence of it, and each pair
// of query words that the tool's name holds both of adds half a word's
// score. The tool's score is multiplied by 0.7 + 0.3 × the share of the
// query words' idf that its core fields (name, namespace, tags, title and
// description lead) hold, divided by the best score, and added to
// [DefaultLexicalBlend] times its lexical score divided by the best one
// ([WithLexicalBlend]). Hits come best first, ties in ID order.
//
// Incremental updates: Upsert and Remove apply one bleve batch each. A
// tool whose indexed content has not changed is skipped (documents carry
// a content hash). An in-memory index keeps itself compact by merging
// small segments as it goes, so that the number of segments a query
// visits stays logarithmic in the catalogue size however the tools
// arrived. An on-disk index leaves this to bleve's merger, and each of
// its changes is on disk when Upsert or Remove returns.
//
// On-disk index ([WithPath]): the directory holds the documents, not the
// catalogue, and survives restarts. A reopened index answers queries with
// the documents it had when it was closed; bring it in line with the
// catalogue by upserting every current tool (an unchanged tool costs a
// hash comparison, not a re-index) and removing the tools that are gone,
// which [Searcher.Prune] finds for a caller that knows which IDs are
// current. An index written by an incompatible version of this package is
// discarded and recreated empty. A directory is used by one Searcher at a
// time.
//
// The average field lengths are kept up to date as tools change; an
// on-disk index reads them back when it is opened, which reads every
// posting of the index once.
//
// Cost model, for n indexed tools in s segments (O(log n) for the
// in-memory index), a query of t terms (words, their agent nouns, pairs;
// at most 64 words): analysing the query is O(its length); looking its
// terms up costs O(t × s) map lookups in the segments' caches of postings
// (and, for a term no query asked for since its segment was written, a
// dictionary lookup per field and the decoding of its postings, once);
// scoring reads every posting of its terms once, O(postings), visiting
// only the tools that hold a query word; keeping the best page costs
// O(log(Offset+Limit)) per matching tool, and an ID lookup per hit
// returned (cached too). The lexical blend adds a lexical search,
// O(its postings), and the pairs of the leads, once per segment and
// pair, a look at each tool whose lead holds both words. Upsert and
// Remove cost the analysis of the tools they change, plus, for the
// in-memory index, O(log n) amortized re-indexing per changed tool for
// the merges: most calls merge little or nothing, and once in a while
// one merges large segments and takes longer (queries do not wait for
// it). The caches hold at most about 8 MB per segment; see the package's
// README for what each stage costs on catalogues of 500 and 4 000 tools.
//
// A Searcher is safe for concurrent use; changes are applied one at a
// time, queries run in parallel with them. Close releases the index.
//
// Make a Searcher with [New]: it needs an index, which may fail to open,
// and it must be closed. Every method of its zero value, or of a nil
// *Searcher (from a New whose error went unchecked), fails with
// [errors.InvalidArgument], and SemanticStatus reports semantic ranking
// off.
type Searcher struct {
	idx      bleve.Index
	analyzer analysis.Analyzer
	fields   []weightedField
	// leadPairWeight is Weights.LeadPairs: the weight of the pairs of
	// words of the leads, which leadPairs holds when it is positive.
	leadPairWeight float64
	leadPairs      *leadPairBook
	coverage       coverageMode
	k1             float64
	lexical        *toolindex.LexicalSearcher // nil without fusion
	semantic       *semanticIndex             // nil without an embedder
	feedback       Feedback
	texts          *feedbackTexts // nil without feedback
	// fuseLexical fuses the ranking with that of lexical by reciprocal
	// rank; blend, when positive, adds lexical's scores, so weighted,
	// to the ranking's. Either needs lexical.
	fuseLexical bool
	blend       float64
	// fusionWeight is the weight of the BM25F ranking in the fusion,
	// the lexical one's being 1.
	fusionWeight float64
	// query says how a query's words become weighted terms.
	query queryConfig
	// wholeDescription searches the whole description as its first
	// paragraph, leaving the details field empty.
	wholeDescription bool
	// synonyms holds the synonyms of query words, nil without them.
	synonyms synonymIndex

	// mu guards closed: every operation holds it for reading, Close for
	// writing, so that Close waits for the operations under way.
	mu     sync.RWMutex
	closed bool

	// postings caches the postings queries read, by segment.
	postings *postingCache
	// slots are the fields whose postings are read for a term of each
	// termGroup.
	slots [3][]fieldSlot

	// wmu serializes changes, and guards segs and the lengths' changes.
	wmu     sync.Mutex
	segs    *segments // nil for an on-disk index
	lengths *lengthBook
}

var (
	_ toolindex.Searcher = (*Searcher)(nil)
	_ io.Closer          = (*Searcher)(nil)
)

// weightedField is a searched field, its weight and its BM25 length
// normalisation b.
type weightedField struct {
	name   string
	weight float64
	b      float64
	slot   fieldSlot // the field's place in textFields
}

// New returns a Searcher with an empty in-memory index, or with the
// on-disk index given by [WithPath]. Errors have code
// [errors.InvalidArgument] for bad options or a directory that holds
// something other than an index of this package, and
// [errors.Unavailable] when the directory is in use by another Searcher.
func New(opts ...Option) (*Searcher, error) {
	const op = "toolsearch.New"
	c := defaultConfig()
	for _, opt := range opts {
		if opt != nil {
			opt(&c)
		}
	}
	if err := c.weights.validate(); err != nil {
		return nil, errors.Opf(op, errors.InvalidArgument, "%w", err)
	}
	if c.blend < 0 || math.IsNaN(c.blend) || math.IsInf(c.blend, 0) {
		return nil, errors.Opf(op, errors.InvalidArgument, "lexical blend weight %v: need a finite weight >= 0", c.blend)
	}
	if err := c.feedback.validate(); err != nil {
		return nil, errors.Opf(op, errors.InvalidArgument, "%w", err)
	}
	m, err := newMapping(c.stemmerName())
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "index mapping: %w", err)
	}
	s := &Searcher{fields: c.fields(), leadPairWeight: c.weights.LeadPairs, coverage: c.coverage, k1: c.k1, fusionWeight: c.fusionWeight, fuseLexical: c.fusion, blend: c.blend, query: c.query, wholeDescription: c.wholeDescription, lengths: newLengthBook(), postings: newPostingCache(), leadPairs: &leadPairBook{byID: map[string]pairSet{}}}
	for _, f := range s.fields {
		s.slots[groupWords] = append(s.slots[groupWords], f.slot)
	}
	// The pairs of the leads are found among the tools whose lead holds
	// both words of a pair, even when the lead itself weighs nothing.
	if slot := fieldSlot(textFieldIndex(descriptionField)); s.leadPairWeight > 0 && !slices.Contains(s.slots[groupWords], slot) {
		s.slots[groupWords] = append(s.slots[groupWords], slot)
	}
	s.slots[groupPairs] = []fieldSlot{slotNamePairs}
	s.slots[groupNamespace] = []fieldSlot{slotNamespaceKey}
	if c.fusion || c.blend > 0 {
		s.lexical = toolindex.NewLexicalSearcher()
	}
	if c.embedder != nil {
		s.semantic = newSemanticIndex(c.embedder)
	}
	if c.feedback != (Feedback{}) {
		s.feedback = c.feedback
		s.texts = &feedbackTexts{docs: map[string]*document{}}
	}
	if c.path == "" {
		s.idx, err = bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
		if err != nil {
			return nil, errors.Opf(op, errors.Internal, "create in-memory index: %w", err)
		}
		s.segs = newSegments()
	} else if s.idx, err = openDisk(c.path, m, indexFormat(&c)); err != nil {
		return nil, err
	} else if err := s.loadLengths(); err != nil {
		_ = s.idx.Close()
		return nil, errors.Opf(op, errors.Internal, "read field lengths: %w", err)
	}
	s.analyzer = s.idx.Mapping().AnalyzerNamed(textAnalyzerName)
	if s.analyzer == nil {
		_ = s.idx.Close()
		return nil, errors.Opf(op, errors.Internal, "analyzer %q is not defined", textAnalyzerName)
	}
	if c.query.synonymScale > 0 {
		s.synonyms = newSynonymIndex(s.analyzer)
	}
	return s, nil
}

// Upsert implements [toolindex.Searcher]. A tool without a name is
// refused with [errors.InvalidArgument], and then nothing changes. When
// the same ID occurs more than once, the last tool wins.
func (s *Searcher) Upsert(ctx context.Context, tools []toolmodel.Tool) error {
	const op = "toolsearch.Searcher.Upsert"
	if err := s.usable(op); err != nil {
		return err
	}
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return err
	}
	docs := make([]*document, 0, len(tools))
	seen := make(map[string]int, len(tools))
	for i := range tools {
		if tools[i].Name == "" {
			return errors.Opf(op, errors.InvalidArgument, "tools[%d] has no name", i)
		}
		d := newDocument(&tools[i])
		d.namePairs = s.namePairs(d.name)
		if s.wholeDescription {
			d.lead, d.details = d.description, ""
		}
		d.leadPairs = s.leadPairSet(d.lead)
		if j, dup := seen[d.id]; dup {
			docs[j] = d
			continue
		}
		seen[d.id] = len(docs)
		docs = append(docs, d)
	}

	if err := s.upsertLocked(ctx, op, tools, docs); err != nil {
		return err
	}
	// Embedding waits on a service: the texts to embed are queued under
	// the change lock, in the order of the changes, and embedded outside
	// it.
	if s.semantic != nil {
		s.semantic.embedPending(ctx, "")
	}
	return nil
}

// upsertLocked applies the change of Upsert to the indexes under the
// change lock, and queues the documents' texts for embedding once it is
// applied.
func (s *Searcher) upsertLocked(ctx context.Context, op string, tools []toolmodel.Tool, docs []*document) error {
	unlock, err := s.lockWrite(op)
	if err != nil {
		return err
	}
	defer unlock()
	if err := s.apply(ctx, op, tools, docs); err != nil {
		return err
	}
	if s.semantic != nil {
		s.semantic.enqueue(docs)
	}
	if s.texts != nil {
		s.texts.set(docs)
	}
	return nil
}

// apply indexes the documents of tools that changed; the caller holds the
// change lock.
func (s *Searcher) apply(ctx context.Context, op string, tools []toolmodel.Tool, docs []*document) error {
	if s.lexical != nil {
		if err := s.lexical.Upsert(ctx, tools); err != nil {
			return errors.Opf(op, errors.CodeOf(err), "lexical index: %w", err)
		}
	}
	changed, err := s.changed(docs)
	if err != nil {
		return errors.Opf(op, errors.Internal, "read indexed documents: %w", err)
	}
	// The pairs of the leads of the documents indexed are set first (see
	// leadPairBook); then those of every document, changed or not: a
	// reopened on-disk index learns them from the upserts that follow.
	s.leadPairs.set(changed, true)
	defer s.leadPairs.set(docs, false)
	if len(changed) == 0 {
		return nil
	}
	if err := s.index(changed); err != nil {
		return errors.Opf(op, errors.Internal, "%w", err)
	}
	if s.segs != nil {
		s.segs.indexed(changed)
		return s.compact(op)
	}
	return nil
}

// index indexes docs in one batch, and records their field lengths,
// which bleve's analysis of the batch measures.
func (s *Searcher) index(docs []*document) error {
	b := s.idx.NewBatch()
	mapped := make([]*blevedoc.Document, len(docs))
	for i, d := range docs {
		mapped[i] = blevedoc.NewDocument(d.id)
		if err := s.idx.Mapping().MapDocument(mapped[i], d.fields(s.segs == nil)); err != nil {
			return fmt.Errorf("index %q: %w", d.id, err)
		}
		if err := b.IndexAdvanced(mapped[i]); err != nil {
			return fmt.Errorf("index %q: %w", d.id, err)
		}
	}
	if err := s.idx.Batch(b); err != nil {
		return fmt.Errorf("apply batch: %w", err)
	}
	for i, d := range docs {
		s.lengths.set(d.id, analysedLengths(mapped[i]))
	}
	s.lengths.publish()
	return nil
}

// loadLengths reads the field lengths of the documents of an index
// reopened from disk.
func (s *Searcher) loadLengths() error {
	adv, err := s.idx.Advanced()
	if err != nil {
		return err
	}
	r, err := adv.Reader()
	if err != nil {
		return err
	}
	defer r.Close()
	return s.lengths.load(context.Background(), r)
}

// changed returns the documents whose content differs from the indexed
// one.
func (s *Searcher) changed(docs []*document) ([]*document, error) {
	var out []*document
	for _, d := range docs {
		same := false
		if s.segs != nil {
			same = s.segs.unchanged(d)
		} else {
			stored, err := s.storedHash(d.id)
			if err != nil {
				return nil, err
			}
			same = stored == d.hash
		}
		if !same {
			out = append(out, d)
		}
	}
	return out, nil
}

// storedHash returns the content hash recorded with an on-disk document,
// or "" when there is none.
func (s *Searcher) storedHash(id string) (string, error) {
	doc, err := s.idx.Document(id)
	if err != nil || doc == nil {
		return "", err
	}
	var hash string
	doc.VisitFields(func(f index.Field) {
		if f.Name() == hashField {
			hash = string(f.Value())
		}
	})
	return hash, nil
}

// compact merges the in-memory index's segments while a level is full.
func (s *Searcher) compact(op string) error {
	for docs := s.segs.nextMerge(); docs != nil; docs = s.segs.nextMerge() {
		if err := s.index(docs); err != nil {
			return errors.Opf(op, errors.Internal, "merge segments: %w", err)
		}
		s.segs.indexed(docs)
	}
	return nil
}

// Remove implements [toolindex.Searcher].
func (s *Searcher) Remove(ctx context.Context, ids []string) error {
	const op = "toolsearch.Searcher.Remove"
	if err := s.usable(op); err != nil {
		return err
	}
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return err
	}
	unlock, err := s.lockWrite(op)
	if err != nil {
		return err
	}
	defer unlock()
	return s.removeLocked(op, ids)
}

// removeLocked deletes the documents with ids in one batch; the caller
// holds the change lock.
func (s *Searcher) removeLocked(op string, ids []string) error {
	if s.lexical != nil {
		if err := s.lexical.Remove(context.Background(), ids); err != nil {
			return errors.Opf(op, errors.CodeOf(err), "lexical index: %w", err)
		}
	}
	if s.semantic != nil {
		s.semantic.remove(ids)
	}
	s.leadPairs.drop(ids)
	if s.texts != nil {
		s.texts.drop(ids)
	}
	b := s.idx.NewBatch()
	var removed []string
	for _, id := range ids {
		if s.segs != nil && s.segs.docs[id] == nil {
			continue
		}
		b.Delete(id)
		removed = append(removed, id)
	}
	if len(removed) == 0 {
		return nil
	}
	if err := s.idx.Batch(b); err != nil {
		return errors.Opf(op, errors.Internal, "apply batch: %w", err)
	}
	for _, id := range removed {
		s.lengths.drop(id)
	}
	s.lengths.publish()
	if s.segs != nil {
		s.segs.removed(removed)
		return s.compact(op)
	}
	return nil
}

// Prune removes every indexed tool whose ID keep rejects, and returns how
// many it removed. It is how an on-disk index that was reopened forgets
// the tools the catalogue no longer has: call it with a function that
// reports whether an ID is still registered. It visits every indexed ID,
// so it costs O(n). A nil keep is refused with [errors.InvalidArgument].
func (s *Searcher) Prune(ctx context.Context, keep func(id string) bool) (int, error) {
	const op = "toolsearch.Searcher.Prune"
	if err := s.usable(op); err != nil {
		return 0, err
	}
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return 0, err
	}
	if keep == nil {
		return 0, errors.Opf(op, errors.InvalidArgument, "keep is nil")
	}
	unlock, err := s.lockWrite(op)
	if err != nil {
		return 0, err
	}
	defer unlock()
	ids, err := s.indexedIDs(ctx)
	if err != nil {
		return 0, err
	}
	var gone []string
	for _, id := range ids {
		if !keep(id) {
			gone = append(gone, id)
		}
	}
	if err := s.removeLocked(op, gone); err != nil {
		return 0, err
	}
	return len(gone), nil
}

// indexedIDs returns the ID of every indexed document.
func (s *Searcher) indexedIDs(ctx context.Context) ([]string, error) {
	const op = "toolsearch.Searcher.Prune"
	n, err := s.idx.DocCount()
	if err != nil {
		return nil, errors.Opf(op, errors.Internal, "count documents: %w", err)
	}
	if n == 0 {
		return nil, nil
	}
	req := bleve.NewSearchRequestOptions(bleve.NewMatchAllQuery(), int(n), 0, false)
	req.Score = "none"
	req.SortBy([]string{"_id"})
	res, err := s.idx.SearchInContext(ctx, req)
	if err != nil {
		return nil, searchError(ctx, op, err)
	}
	ids := make([]string, len(res.Hits))
	for i, h := range res.Hits {
		ids[i] = h.ID
	}
	return ids, nil
}

// Close releases the index. An on-disk index keeps its documents for the
// next Searcher opened on its directory. Close is idempotent; every other
// method fails with [ErrClosed] afterwards.
func (s *Searcher) Close() error {
	if err := s.usable("toolsearch.Searcher.Close"); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil
	}
	s.closed = true
	if err := s.idx.Close(); err != nil {
		return errors.Opf("toolsearch.Searcher.Close", errors.Internal, "close index: %w", err)
	}
	return nil
}

// usable fails when s was not made by New. New sets the index before
// anyone else sees s and nothing changes it afterwards, so reading it
// needs no lock; the check costs a comparison.
func (s *Searcher) usable(op string) error {
	if s == nil || s.idx == nil {
		return errors.Opf(op, errors.InvalidArgument, "the Searcher was not made by toolsearch.New")
	}
	return nil
}

// lockRead takes the read side of mu, failing once the searcher is
// closed.
func (s *Searcher) lockRead(op string) (unlock func(), err error) {
	s.mu.RLock()
	if s.closed {
		s.mu.RUnlock()
		return nil, closedError(op)
	}
	return s.mu.RUnlock, nil
}

// lockWrite takes the read side of mu and the change lock.
func (s *Searcher) lockWrite(op string) (unlock func(), err error) {
	runlock, err := s.lockRead(op)
	if err != nil {
		return nil, err
	}
	s.wmu.Lock()
	return func() {
		s.wmu.Unlock()
		runlock()
	}, nil
}

// openDisk opens the index in dir, creating it when dir is missing or
// empty and recreating it when it has another format.
func openDisk(dir string, m *mapping.IndexMappingImpl, format string) (bleve.Index, error) {
	const op = "toolsearch.New"
	entries, err := os.ReadDir(dir)
	switch {
	case errors.Is(err, os.ErrNotExist) || err == nil && len(entries) == 0:
		return createDisk(dir, m, format)
	case err != nil:
		return nil, errors.Opf(op, errors.InvalidArgument, "index directory: %w", err)
	}
	idx, err := bleve.OpenUsing(dir, map[string]any{"bolt_timeout": boltTimeout})
	if err != nil {
		if errors.Is(err, bleve.ErrorIndexMetaMissing) || errors.Is(err, bleve.ErrorIndexMetaCorrupt) {
			return nil, errors.Opf(op, errors.InvalidArgument, "directory %q holds no index of this package: %w", dir, err)
		}
		return nil, errors.Opf(op, errors.Unavailable, "open index %q (is another Searcher using it?): %w", dir, err)
	}
	recorded, err := idx.GetInternal(formatKey)
	if err != nil || recorded == nil {
		_ = idx.Close()
		return nil, errors.Opf(op, errors.InvalidArgument, "directory %q holds a bleve index that this package did not write", dir)
	}
	if string(recorded) == format {
		return idx, nil
	}
	if err := idx.Close(); err != nil {
		return nil, errors.Opf(op, errors.Internal, "close outdated index %q: %w", dir, err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return nil, errors.Opf(op, errors.Internal, "remove outdated index %q: %w", dir, err)
	}
	return createDisk(dir, m, format)
}

// boltTimeout bounds the wait for the lock on an on-disk index, so that a
// directory already in use fails to open instead of blocking.
const boltTimeout = "1s"

func createDisk(dir string, m *mapping.IndexMappingImpl, format string) (bleve.Index, error) {
	const op = "toolsearch.New"
	// bleve creates the directory itself and refuses one that exists.
	if err := os.Remove(dir); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, errors.Opf(op, errors.InvalidArgument, "index directory: %w", err)
	}
	idx, err := bleve.NewUsing(dir, m, scorch.Name, scorch.Name, map[string]any{"bolt_timeout": boltTimeout})
	if err != nil {
		return nil, errors.Opf(op, errors.InvalidArgument, "create index %q: %w", dir, err)
	}
	if err := idx.SetInternal(formatKey, []byte(format)); err != nil {
		_ = idx.Close()
		return nil, errors.Opf(op, errors.Internal, "record index format: %w", err)
	}
	return idx, nil
}

func closedError(op string) error {
	e := errors.E(errors.Unavailable, ErrClosed)
	e.Op = op
	e.Retryable = false
	return e
}

// searchError classifies an error from a bleve search: the context's own
// error when it ended, an internal error otherwise.
func searchError(ctx context.Context, op string, err error) error {
	if cerr := errors.FromContext(ctx, op, nil); cerr != nil {
		return cerr
	}
	return errors.Opf(op, errors.Internal, "search: %w", err)
}
