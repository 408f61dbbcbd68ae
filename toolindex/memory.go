package toolindex

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// MemoryIndex is the built-in [Index]: every tool is held in memory, and
// search is delegated to a [Searcher] kept up to date incrementally.
//
// Cost model, for a catalogue of n tools, a page of k summaries, and b
// backends per tool (usually 1):
//
//   - Register: O(b + log n) plus the tool's own size (validation, a deep
//     copy, comparison with the registered definition) plus the
//     Searcher's Upsert; RegisterMany of m tools is m times that, with
//     one Searcher call. The ordered ID sets behind listings are lists of
//     blocks of at most 512 IDs, so an insertion or removal moves at most
//     512 + n/512 slice entries: a few hundred even for 100,000 tools.
//   - UnregisterBackend: O(m (b + log n)) for the m tools of that backend.
//   - GetAll: an O(1) lookup, plus a deep copy of the tool and its
//     backends.
//   - List: O(log n + k) with no filter or one filter; with both a
//     namespace and a backend filter, it walks the smaller of the two
//     sets from the cursor and skips the tools that fail the other.
//   - Namespaces: O(s log s) for s namespaces.
//   - Search: the Searcher's cost (see [LexicalSearcher]) plus O(k).
//   - OnChange delivery: O(subscribers) per event.
//
// Every operation is safe for concurrent use, and readers never wait for
// the Searcher to index: changes are made one at a time, and a change
// first brings the Searcher in line, without blocking readers, then
// applies itself to the index's own maps under a short write lock (its
// cost is the O(m (b + log n)) above, never the Searcher's). Hence:
//
//   - A registered tool is visible to GetAll and List once the
//     registration returns, and not before the Searcher has indexed it;
//     a change the Searcher refused is never visible.
//   - Search returns only tools that GetAll finds at the time: while a
//     change is being indexed, the Searcher may already rank the tools it
//     adds, and Search leaves them out (a page may then be short) until
//     the change applies; a removed tool leaves the Searcher before it
//     leaves the index.
//   - GetAll, List, Namespaces, Len and Search hold the read lock
//     only while they copy from the maps; Search calls the Searcher
//     without any lock.
//
// The zero value is an empty index ready to use, as [New] without
// options makes it: it searches with a [LexicalSearcher] of its own,
// made on first use, and has no source. It must not be copied after
// first use.
type MemoryIndex struct {
	// searcher is set by New, or on first use by setDefaults, and never
	// changes afterwards.
	searcher Searcher
	// defaults gives a zero MemoryIndex what New gives every index. A
	// sync.Once costs one atomic load once done, which keeps it off the
	// profile of Register and Search; New runs it too, so that every
	// later call takes the fast path.
	defaults sync.Once
	// sources are the sources given with WithSource, by identity, in the
	// order their first source was given. They are fixed by New.
	sources []*sourceGroup

	// writeMu serializes changes, from staging until their events are
	// queued. The fields below change only under both writeMu and mu, so
	// a change reads them under writeMu alone while it stages and while
	// the Searcher indexes, leaving mu to readers.
	writeMu sync.Mutex

	// mu guards the fields below: readers hold it for reading, a change
	// holds it for writing only while it applies its staged entries.
	mu          sync.RWMutex
	tools       map[string]*entry
	ids         sortedSet             // every tool ID
	byNamespace map[string]*sortedSet // namespace -> IDs; "" is left out
	byBackend   map[string]*sortedSet // backend identity -> IDs
	version     atomic.Uint64         // written under mu

	notify notifier
}

var _ Index = (*MemoryIndex)(nil)

// entry is a registered tool. Entries are never modified once in the
// index: a change puts a new entry in place, which lets readers use an
// entry after releasing the lock. Entries that share a definition share
// the tool pointer, which is how a change tells whether the definition
// changed.
type entry struct {
	tool     *toolmodel.Tool
	backends []toolmodel.ToolBackend // registration order
	summary  Summary
}

func newEntry(tool *toolmodel.Tool, backends []toolmodel.ToolBackend) *entry {
	return &entry{tool: tool, backends: backends, summary: newSummary(tool, backends)}
}

// backendIndex returns the position of the backend of the given identity,
// or -1.
func (e *entry) backendIndex(identity string) int {
	return slices.IndexFunc(e.backends, func(b toolmodel.ToolBackend) bool { return b.Identity() == identity })
}

// registeredSource is a Source given with WithSource.
type registeredSource struct {
	src  Source
	opts []RegisterOption
}

// sourceGroup is the sources given with WithSource that share one
// identity. They own that identity's backend together, so Refresh lists
// them all and reconciles the backend with the union of their listings:
// reconciling each one alone would take away the tools of the others.
type sourceGroup struct {
	identity string
	sources  []registeredSource // in the order given
	// mu serializes the refreshes of the group, so that its listings
	// taken at different times are never applied out of order. Each
	// group has its own, so that a source slow to list (a server still
	// starting) delays no refresh of another identity.
	mu sync.Mutex
}

// Option configures a [MemoryIndex].
type Option func(*MemoryIndex)

// WithSearcher makes the index search with s instead of a new
// [LexicalSearcher]. s must start empty, and the index must be its only
// writer: the index calls Upsert and Remove itself as tools change, so
// that s always holds exactly the index's tools. A nil s is ignored.
func WithSearcher(s Searcher) Option {
	return func(ix *MemoryIndex) {
		if s != nil {
			ix.searcher = s
		}
	}
}

// WithSource adds a source of tools, which [MemoryIndex.Refresh] lists
// and reconciles with the index, registering its tools with opts. The
// index starts without the source's tools: call Refresh to load them.
// Sources are refreshed in the order they were given, those of one
// identity together, at the place of the first of them. A nil src is
// ignored.
//
// Several sources may share an identity, such as two services imported
// from one gRPC server: they own the backend of that identity together.
// Refresh lists all of them and reconciles the backend with the union of
// their listings, so a tool stays as long as one of them lists it; when
// two of them list the same tool, the one given last sets its definition
// and backend, as a later registration of the same source would. Each
// registers its tools with its own opts. The source's Identity is read
// once, when New applies the option.
func WithSource(src Source, opts ...RegisterOption) Option {
	return func(ix *MemoryIndex) {
		if src == nil {
			return
		}
		s := registeredSource{src: src, opts: opts}
		identity := src.Identity()
		for _, g := range ix.sources {
			if g.identity == identity {
				g.sources = append(g.sources, s)
				return
			}
		}
		ix.sources = append(ix.sources, &sourceGroup{identity: identity, sources: []registeredSource{s}})
	}
}

// New returns an empty index. Without options it searches with a new
// [LexicalSearcher] and has no source. Nil options are ignored.
func New(opts ...Option) *MemoryIndex {
	ix := &MemoryIndex{}
	for _, opt := range opts {
		if opt != nil {
			opt(ix)
		}
	}
	ix.defaults.Do(ix.setDefaults)
	return ix
}

// setDefaults fills in what an index needs and options did not give it.
// It runs once, from New or from the first change or search of a zero
// MemoryIndex. The Searcher is read only after it ran; the maps are made
// under mu, since readers of a zero index read them (nil maps read as
// empty) without running it.
func (ix *MemoryIndex) setDefaults() {
	if ix.searcher == nil {
		ix.searcher = NewLexicalSearcher()
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.tools == nil {
		ix.tools = map[string]*entry{}
		ix.byNamespace = map[string]*sortedSet{}
		ix.byBackend = map[string]*sortedSet{}
	}
}

// prepare validates a registration and returns a copy that shares nothing
// with the caller's.
func prepare(reg *Registration) (Registration, error) {
	if err := reg.Tool.Validate(); err != nil {
		return Registration{}, err
	}
	if err := reg.Backend.Validate(); err != nil {
		return Registration{}, err
	}
	return Registration{Tool: reg.Tool.Clone(), Backend: reg.Backend.Clone()}, nil
}

// Register implements [Index].
func (ix *MemoryIndex) Register(ctx context.Context, reg Registration, opts ...RegisterOption) error {
	return ix.registerAll(ctx, "toolindex.Register", []Registration{reg}, opts)
}

// RegisterMany implements [Index].
func (ix *MemoryIndex) RegisterMany(ctx context.Context, regs []Registration, opts ...RegisterOption) error {
	return ix.registerAll(ctx, "toolindex.RegisterMany", regs, opts)
}

func (ix *MemoryIndex) registerAll(ctx context.Context, op string, regs []Registration, opts []RegisterOption) error {
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return err
	}
	prepared := make([]Registration, len(regs))
	for i := range regs {
		p, err := prepare(&regs[i])
		if err != nil {
			if len(regs) > 1 {
				return errors.Opf(op, errors.InvalidArgument, "registration %d: %w", i, err)
			}
			return err
		}
		prepared[i] = p
	}
	cfg := newRegisterConfig(opts)
	return ix.change(ctx, op, func(tx *txn) error {
		for i := range prepared {
			if err := tx.register(&prepared[i], cfg); err != nil {
				return err
			}
		}
		return nil
	})
}

// change stages a change under writeMu, commits it unless staging
// failed, and then, without any lock, delivers the events. Staging and
// the Searcher's indexing run without mu, so readers do not wait for
// them; see [txn.commit].
func (ix *MemoryIndex) change(ctx context.Context, op string, stage func(*txn) error) error {
	ix.defaults.Do(ix.setDefaults)
	ix.writeMu.Lock()
	tx := ix.begin(op)
	err := stage(tx)
	if err == nil {
		err = tx.commit(ctx)
	}
	ix.writeMu.Unlock()
	ix.notify.deliver()
	return err
}

// UnregisterBackend implements [Index].
func (ix *MemoryIndex) UnregisterBackend(ctx context.Context, identity string) (int, error) {
	const op = "toolindex.UnregisterBackend"
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return 0, err
	}
	changed := 0
	err := ix.change(ctx, op, func(tx *txn) error {
		if set := ix.byBackend[identity]; set != nil {
			set.ascend("", func(id string) bool {
				tx.removeBackend(id, identity)
				changed++
				return true
			})
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return changed, nil
}

// lookup returns the entry of a tool. The entry may be read without the
// lock, since entries are never modified.
func (ix *MemoryIndex) lookup(ctx context.Context, op, id string) (*entry, error) {
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	e := ix.tools[id]
	ix.mu.RUnlock()
	if e == nil {
		err := errors.Opf(op, errors.NotFound, "no tool %q", id)
		err.ToolID = id
		return nil, err
	}
	return e, nil
}

// GetAll implements [Index].
func (ix *MemoryIndex) GetAll(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
	e, err := ix.lookup(ctx, "toolindex.GetAll", id)
	if err != nil {
		return toolmodel.Tool{}, nil, err
	}
	return e.tool.Clone(), cloneBackends(e.backends), nil
}

// pageSize returns the page size a request's limit asks for.
func pageSize(op string, limit int) (int, error) {
	switch {
	case limit < 0:
		return 0, errors.Opf(op, errors.InvalidArgument, "limit %d is negative", limit)
	case limit == 0:
		return DefaultPageSize, nil
	}
	return min(limit, MaxPageSize), nil
}

// List implements [Index].
func (ix *MemoryIndex) List(ctx context.Context, req ListRequest) (Page, error) {
	const op = "toolindex.List"
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return Page{}, err
	}
	limit, err := pageSize(op, req.Limit)
	if err != nil {
		return Page{}, err
	}
	fp := fingerprint(req.Namespace, req.Backend)
	after := ""
	if req.Cursor != "" {
		if after, err = decodeListCursor(req.Cursor, fp); err != nil {
			return Page{}, errors.Opf(op, errors.InvalidArgument, "%w", err)
		}
	}

	ix.mu.RLock()
	defer ix.mu.RUnlock()
	walk, keep := ix.listPlan(req)
	if walk == nil {
		return Page{Items: []Summary{}}, nil
	}
	page := Page{Items: make([]Summary, 0, min(limit, walk.len()))}
	walk.ascend(after, func(id string) bool {
		e := ix.tools[id]
		if !keep(e) {
			return true
		}
		if len(page.Items) == limit {
			page.NextCursor = encodeListCursor(fp, page.Items[limit-1].ID)
			return false
		}
		page.Items = append(page.Items, e.summary.clone())
		return true
	})
	return page, nil
}

// listPlan returns the set of IDs a listing walks, nil when it is empty,
// and the test of the filter that the set does not apply itself. It walks
// the smallest set that applies a filter.
func (ix *MemoryIndex) listPlan(req ListRequest) (*sortedSet, func(*entry) bool) {
	all := func(*entry) bool { return true }
	nsSet, bkSet := &ix.ids, (*sortedSet)(nil)
	if req.Namespace != "" {
		if nsSet = ix.byNamespace[req.Namespace]; nsSet == nil {
			return nil, all
		}
	}
	if req.Backend == "" {
		return nsSet, all
	}
	if bkSet = ix.byBackend[req.Backend]; bkSet == nil {
		return nil, all
	}
	if req.Namespace == "" {
		return bkSet, all
	}
	if nsSet.len() <= bkSet.len() {
		return nsSet, func(e *entry) bool { return e.backendIndex(req.Backend) >= 0 }
	}
	return bkSet, func(e *entry) bool { return e.tool.Namespace == req.Namespace }
}

// Namespaces implements [Index].
func (ix *MemoryIndex) Namespaces(ctx context.Context) ([]string, error) {
	if err := errors.FromContext(ctx, "toolindex.Namespaces", nil); err != nil {
		return nil, err
	}
	ix.mu.RLock()
	names := slices.Collect(maps.Keys(ix.byNamespace))
	ix.mu.RUnlock()
	slices.Sort(names)
	if names == nil {
		names = []string{}
	}
	return names, nil
}

// Search implements [Index].
func (ix *MemoryIndex) Search(ctx context.Context, req SearchRequest) (Page, error) {
	const op = "toolindex.Search"
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return Page{}, err
	}
	limit, err := pageSize(op, req.Limit)
	if err != nil {
		return Page{}, err
	}
	fp := fingerprint(req.Query, req.Namespace)
	offset := 0
	if req.Cursor != "" {
		if offset, err = decodeSearchCursor(req.Cursor, fp); err != nil {
			return Page{}, errors.Opf(op, errors.InvalidArgument, "%w", err)
		}
	}

	// The Searcher is asked without the lock: a long query must not hold
	// up a change, which would hold up every reader queued behind it.
	// One hit more than the page tells whether there is a next page.
	ix.defaults.Do(ix.setDefaults)
	hits, err := ix.searcher.Search(ctx, SearchQuery{Text: req.Query, Namespace: req.Namespace, Offset: offset, Limit: limit + 1})
	if err != nil {
		return Page{}, fmt.Errorf("%s: %w", op, err)
	}
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	page := Page{Items: make([]Summary, 0, min(len(hits), limit))}
	for i, h := range hits {
		if i == limit {
			// Rankings deeper than a cursor can hold end here.
			if offset+limit <= maxSearchOffset {
				page.NextCursor = encodeSearchCursor(fp, offset+limit)
			}
			break
		}
		// A change being indexed is in the Searcher before it is in the
		// index: its new tools are left out until it applies, so that
		// Search never returns a tool GetAll cannot find. The check also
		// guards against a faulty Searcher.
		if e := ix.tools[h.ID]; e != nil {
			s := e.summary.clone()
			s.Score = h.Score
			page.Items = append(page.Items, s)
		}
	}
	return page, nil
}

// OnChange implements [Index]. A nil fn subscribes nothing.
func (ix *MemoryIndex) OnChange(fn func(ChangeEvent)) (unsubscribe func()) {
	if fn == nil {
		return func() {}
	}
	// A change applies its entries and queues its events under the write
	// lock, so under the read lock none is half applied: every event
	// above the version read is queued after the subscription exists.
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return ix.notify.subscribe(fn, ix.version.Load())
}

// Refresh implements [Index]. Each source is listed without holding the
// index's lock, then reconciled atomically: its listed tools are
// registered, and its backend is removed from the tools it no longer
// lists. Sources that share an identity (see [WithSource]) are listed
// one after the other and reconciled together, with the union of their
// listings. A listing in which a registration is invalid, has a backend
// of another identity than the source's, or conflicts with another
// source's definition (unless the source was given [Replace]) is refused
// as a whole, and the source keeps its tools; so do the other sources of
// its identity, since their listings are reconciled as one. When ctx is
// done during the pass, the sources not yet refreshed are skipped.
//
// The refreshes of one identity are serialized; refreshes of different
// identities, made by concurrent calls, run at the same time.
func (ix *MemoryIndex) Refresh(ctx context.Context, identities ...string) error {
	const op = "toolindex.Refresh"
	if err := errors.FromContext(ctx, op, nil); err != nil {
		return err
	}
	var errs []error
	for _, g := range ix.sources {
		if len(identities) > 0 && !slices.Contains(identities, g.identity) {
			continue
		}
		if err := errors.FromContext(ctx, op, nil); err != nil {
			errs = append(errs, err)
			break
		}
		if err := ix.refreshGroup(ctx, op, g); err != nil {
			errs = append(errs, err)
		}
	}
	// The refreshed event changes no tool, so its commit cannot fail.
	_ = ix.change(ctx, op, func(tx *txn) error {
		tx.events = append(tx.events, ChangeEvent{Kind: Refreshed})
		return nil
	})
	return errors.Join(errs...)
}

// HasSource reports whether the index was given a source of the identity
// ([WithSource]), which [MemoryIndex.Refresh] lists. Sources are fixed
// when the index is made, so a caller that keeps the index in step with
// changes it hears of can skip, at no cost, the changes of sources the
// index does not follow.
func (ix *MemoryIndex) HasSource(identity string) bool {
	return slices.ContainsFunc(ix.sources, func(g *sourceGroup) bool { return g.identity == identity })
}

// listing is the prepared registrations of one source, with the options
// it registers them with.
type listing struct {
	name string // the source, for errors
	regs []Registration
	cfg  registerConfig
}

// refreshGroup lists every source of a group, then reconciles the
// group's backend with the union of their listings in one change. It
// stops at the first source that fails: the others' listings alone would
// take that source's tools away.
func (ix *MemoryIndex) refreshGroup(ctx context.Context, op string, g *sourceGroup) error {
	g.mu.Lock()
	defer g.mu.Unlock()
	identity := g.identity
	listings := make([]listing, len(g.sources))
	listed := map[string]bool{}
	for k, s := range g.sources {
		// Sources of one identity are told apart by their position.
		name := identity
		if len(g.sources) > 1 {
			name = fmt.Sprintf("%s #%d", identity, k+1)
		}
		regs, err := s.src.ListTools(ctx)
		if err != nil {
			return fmt.Errorf("%s: source %s: %w", op, name, err)
		}
		prepared := make([]Registration, len(regs))
		for i := range regs {
			p, err := prepare(&regs[i])
			if err != nil {
				return errors.Opf(op, errors.InvalidArgument, "source %s: registration %d: %w", name, i, err)
			}
			if got := p.Backend.Identity(); got != identity {
				return errors.Opf(op, errors.InvalidArgument, "source %s: registration %d has a backend of another identity, %s", name, i, got)
			}
			prepared[i] = p
			listed[p.Tool.ID()] = true
		}
		listings[k] = listing{name: name, regs: prepared, cfg: newRegisterConfig(s.opts)}
	}

	return ix.change(ctx, op, func(tx *txn) error {
		for k := range listings {
			l := &listings[k]
			for i := range l.regs {
				if err := tx.register(&l.regs[i], l.cfg); err != nil {
					return fmt.Errorf("%s: source %s: %w", op, l.name, err)
				}
			}
		}
		if set := ix.byBackend[identity]; set != nil {
			set.ascend("", func(id string) bool {
				if !listed[id] {
					tx.removeBackend(id, identity)
				}
				return true
			})
		}
		return nil
	})
}

// Version implements [Index].
func (ix *MemoryIndex) Version() uint64 { return ix.version.Load() }

// Len returns the number of tools in the index.
func (ix *MemoryIndex) Len() int {
	ix.mu.RLock()
	defer ix.mu.RUnlock()
	return len(ix.tools)
}

// cloneBackends returns deep copies of backends.
func cloneBackends(backends []toolmodel.ToolBackend) []toolmodel.ToolBackend {
	out := make([]toolmodel.ToolBackend, len(backends))
	for i := range backends {
		out[i] = backends[i].Clone()
	}
	return out
}
