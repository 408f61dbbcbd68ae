package tooldocs

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// Describer is the read side of a [Store]: what an MCP server or a
// code-mode engine needs to show documentation to an agent. Consumers
// should accept a Describer, so that tests can substitute their own.
//
// Implementations are safe for concurrent use and return values the
// caller owns: changing a returned Doc or Example never changes the
// implementation's state. They honour ctx where they block (to resolve a
// tool definition). Errors: an unknown tool yields code
// [errors.NotFound]; a malformed ID or an undefined level yields
// [errors.InvalidArgument].
type Describer interface {
	// Describe returns the documentation of a tool at the given level.
	Describe(ctx context.Context, id string, level DetailLevel) (Doc, error)
	// DescribeWithin returns the documentation of a tool at the richest
	// level whose Markdown rendering is estimated to cost at most budget
	// tokens. When not even the summary fits, it fails with code
	// [errors.ResourceExhausted].
	DescribeWithin(ctx context.Context, id string, budget int) (Doc, error)
	// Examples returns up to limit examples of a tool (all of them when
	// limit <= 0), in registration order. A known tool without examples
	// yields none and no error.
	Examples(ctx context.Context, id string, limit int) ([]Example, error)
}

// Store holds the documentation of tools and discloses it progressively,
// at the [DetailLevel] a caller can afford. Create one with [NewStore], or
// use the zero value, which is an empty Store with the defaults of
// NewStore without options. A Store must not be copied after first use.
//
// A Store documents two kinds of tools:
//
//   - tools registered with their definition ([Entry.Tool] set): the Store
//     keeps the definition and derives everything from it once, at
//     registration;
//   - tools whose definition lives elsewhere: with a [ToolResolver] (see
//     [WithResolver] and [IndexResolver]), the Store describes every tool
//     the resolver knows, registered or not, and adds the examples, notes
//     and references of an [Entry] registered for it by ID.
//
// A Store is safe for concurrent use. Everything it returns is a deep copy,
// and it keeps deep copies of what it is given.
//
// Cost model, for n registered entries: Register, Remove, Get and the
// lookups of Describe are O(1) map operations plus the work on the entry
// itself (validating its examples, deriving its schema digests), which
// does not depend on n. Describe of a registered tool copies a pre-built
// document. For a tool found through the resolver it also calls the
// resolver and, from [LevelSchema] on, digests the schemas; digests are
// kept in a cache keyed by schema content (up to 1024 distinct schemas),
// since decoding a schema is the expensive part. [Store.Costs] and
// [Store.DescribeWithin] render the document once per level; registered
// tools remember the result. RemoveSource is O(n) and List O(n log n).
type Store struct {
	resolver ToolResolver
	// validator and estimator are set by options, or else by setDefaults,
	// and read only after it ran.
	validator toolmodel.SchemaValidator
	estimator TokenEstimator
	// defaults gives a zero Store what NewStore gives every Store. Once
	// done, it costs an atomic load per call that needs its fields;
	// NewStore runs it, so that those calls take the fast path at once.
	defaults sync.Once
	// summaryLen is the longest summary in runes: 0 for
	// DefaultSummaryLength, which the zero Store has, and negative for no
	// limit.
	summaryLen int
	digests    digestCache

	mu sync.RWMutex
	// entries is made by the first registration, under mu: reading a nil
	// map finds nothing, as an empty Store should.
	entries map[string]*entry
}

var _ Describer = (*Store)(nil)

// entry is a registered Entry as the Store keeps it. It is immutable once
// stored, apart from the lazily computed costs.
type entry struct {
	id  string
	reg Entry // normalized; reg.Tool is the Store's own copy, or nil
	// full is the full-level document, built at registration for an entry
	// with its own tool; nil for an entry whose tool is resolved.
	full *Doc

	costsOnce sync.Once
	costs     TokenCosts
}

// Option configures a [Store].
type Option func(*Store)

// WithResolver makes the Store describe tools it does not keep, by
// resolving their definitions through r (see [IndexResolver]). A nil r,
// or a nil [ToolResolverFunc], leaves the Store without a resolver.
func WithResolver(r ToolResolver) Option {
	return func(s *Store) {
		if f, ok := r.(ToolResolverFunc); ok && f == nil {
			r = nil
		}
		s.resolver = r
	}
}

// WithValidator sets the validator that checks examples against their
// tool's schemas. The default is a new [toolmodel.Validator]; share one to
// share its cache of compiled schemas. A nil v keeps the default.
func WithValidator(v toolmodel.SchemaValidator) Option {
	return func(s *Store) { s.validator = v }
}

// WithTokenEstimator sets how the Store estimates token costs. The default
// is [EstimateTokens]; a nil e, or a nil [TokenEstimatorFunc], keeps it.
func WithTokenEstimator(e TokenEstimator) Option {
	return func(s *Store) {
		if f, ok := e.(TokenEstimatorFunc); ok && f == nil {
			e = nil
		}
		s.estimator = e
	}
}

// WithSummaryLength sets the longest one-line description, in runes (see
// [Summarize]); n < 1 means no limit. The default is
// [DefaultSummaryLength].
func WithSummaryLength(n int) Option {
	return func(s *Store) {
		if n < 1 {
			n = -1
		}
		s.summaryLen = n
	}
}

// NewStore returns an empty Store. Nil options are ignored.
func NewStore(opts ...Option) *Store {
	s := &Store{}
	for _, opt := range opts {
		if opt != nil {
			opt(s)
		}
	}
	s.defaults.Do(s.setDefaults)
	return s
}

// setDefaults fills in the validator and the estimator that options did
// not set. It runs once, from NewStore or from the first call of a zero
// Store that needs them.
func (s *Store) setDefaults() {
	if s.validator == nil {
		s.validator = toolmodel.NewValidator()
	}
	if s.estimator == nil {
		s.estimator = TokenEstimatorFunc(EstimateTokens)
	}
}

// summaryLength returns the longest summary, in runes, as [Summarize]
// takes it: 0 for no limit.
func (s *Store) summaryLength() int {
	switch {
	case s.summaryLen == 0:
		return DefaultSummaryLength
	case s.summaryLen < 0:
		return 0
	}
	return s.summaryLen
}

// Register adds the documentation of one tool, replacing any entry already
// registered for the same ID.
//
// The entry is checked and normalized: the tool definition (when given)
// must be valid; every example must have a unique name and arguments that
// satisfy the tool's input schema (and a result that satisfies its output
// schema); references must be absolute http(s) URLs; blank notes are
// dropped. An entry without Tool needs a resolver that knows the tool.
// Errors: [errors.InvalidArgument] for a malformed entry,
// [errors.Validation] for an example that does not satisfy its schema
// (the message names the example), [errors.NotFound] when the resolver
// does not know the tool, or the resolver's own error code.
func (s *Store) Register(ctx context.Context, e Entry) error {
	prepared, err := s.prepare(ctx, e)
	if err != nil {
		return errors.WithOp("tooldocs.Register", err).With("", prepared.idOr(e), "")
	}
	s.mu.Lock()
	s.put(prepared)
	s.mu.Unlock()
	return nil
}

// put stores a prepared entry; the caller holds the write lock.
func (s *Store) put(p *entry) {
	if s.entries == nil {
		s.entries = map[string]*entry{}
	}
	s.entries[p.id] = p
}

// RegisterMany registers every entry or none: when one fails, the Store is
// left unchanged and the error names the failing entry by index. Entries
// are checked as by [Store.Register]; two entries for the same ID are an
// error of code [errors.InvalidArgument].
func (s *Store) RegisterMany(ctx context.Context, entries []Entry) error {
	prepared := make([]*entry, len(entries))
	index := make(map[string]int, len(entries))
	for i, e := range entries {
		p, err := s.prepare(ctx, e)
		if err != nil {
			return errors.WithOp("tooldocs.RegisterMany", fmt.Errorf("entries[%d]: %w", i, err)).With("", p.idOr(e), "")
		}
		if j, dup := index[p.id]; dup {
			err := errors.Errorf(errors.InvalidArgument, "entries[%d]: documents the same tool as entries[%d]", i, j)
			return errors.WithOp("tooldocs.RegisterMany", err).With("", p.id, "")
		}
		index[p.id] = i
		prepared[i] = p
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range prepared {
		s.put(p)
	}
	return nil
}

// prepare checks and normalizes an entry. On error, the returned entry
// holds the tool ID when it is known.
func (s *Store) prepare(ctx context.Context, e Entry) (*entry, error) {
	p := &entry{}
	var tool toolmodel.Tool
	switch {
	case e.Tool != nil:
		if err := e.Tool.Validate(); err != nil {
			return p, err
		}
		p.id = e.Tool.ID()
		if e.ToolID != "" && e.ToolID != p.id {
			return p, errors.Errorf(errors.InvalidArgument, "ToolID %q does not match the tool's ID %q", e.ToolID, p.id)
		}
		tool = e.Tool.Clone()
		p.reg.Tool = &tool
	default:
		if _, _, err := toolmodel.ParseToolID(e.ToolID); err != nil {
			return p, err
		}
		p.id = e.ToolID
		if s.resolver == nil {
			return p, errors.Errorf(errors.InvalidArgument, "the entry has no Tool, and the store has no resolver to find it")
		}
		var err error
		if tool, err = s.resolve(ctx, p.id); err != nil {
			return p, err
		}
	}
	p.reg.ToolID = p.id

	source := strings.TrimSpace(e.Source)
	if strings.ContainsFunc(source, unicode.IsControl) {
		return p, errors.Errorf(errors.InvalidArgument, "source %q: must be a single line", source)
	}
	p.reg.Source = source
	s.defaults.Do(s.setDefaults)
	var err error
	if p.reg.Examples, err = normalizeExamples(s.validator, &tool, e.Examples); err != nil {
		return p, err
	}
	if p.reg.Refs, err = normalizeRefs(e.Refs); err != nil {
		return p, err
	}
	p.reg.Notes = normalizeNotes(e.Notes)
	if p.reg.Tool != nil {
		full, err := s.build(&tool, &p.reg, LevelFull)
		if err != nil {
			return p, err
		}
		p.full = &full
	}
	return p, nil
}

// idOr returns the entry's ID, or the ID the raw entry names when
// preparing it failed before the ID was known.
func (p *entry) idOr(e Entry) string {
	if p != nil && p.id != "" {
		return p.id
	}
	return e.ToolID
}

// resolve returns the definition of a tool the Store does not keep, from
// its resolver, which must be set.
func (s *Store) resolve(ctx context.Context, id string) (toolmodel.Tool, error) {
	tool, err := s.resolver.ResolveTool(ctx, id)
	if err != nil {
		return toolmodel.Tool{}, err
	}
	if tool.ID() != id {
		return toolmodel.Tool{}, errors.Errorf(errors.Internal, "resolver returned tool %q", tool.ID())
	}
	return tool, nil
}

// Remove deletes the entry registered for a tool. It fails with code
// [errors.NotFound] when there is none; a tool found through the resolver
// but never registered has no entry to remove.
func (s *Store) Remove(id string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.entries[id]; !ok {
		return errors.WithOp("tooldocs.Remove", errors.Errorf(errors.NotFound, "no documentation registered for this tool")).With("", id, "")
	}
	delete(s.entries, id)
	return nil
}

// RemoveSource deletes every entry whose [Entry.Source] is source, as when
// the server or document it came from goes away, and returns how many it
// deleted. The empty source matches the entries registered without one.
func (s *Store) RemoveSource(source string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for id, e := range s.entries {
		if e.reg.Source == source {
			delete(s.entries, id)
			n++
		}
	}
	return n
}

// Get returns a copy of the entry registered for a tool, normalized as the
// Store keeps it. It fails with code [errors.NotFound] when there is none.
func (s *Store) Get(id string) (Entry, error) {
	e := s.entry(id)
	if e == nil {
		return Entry{}, errors.WithOp("tooldocs.Get", errors.Errorf(errors.NotFound, "no documentation registered for this tool")).With("", id, "")
	}
	return e.reg.Clone(), nil
}

// ListFilter selects entries for [Store.List]. A zero field matches
// everything.
type ListFilter struct {
	// Namespace keeps the tools of one namespace.
	Namespace string
	// Source keeps the entries of one source.
	Source string
}

// List returns the IDs of the registered entries that match filter, sorted.
func (s *Store) List(filter ListFilter) []string {
	s.mu.RLock()
	var ids []string
	for id, e := range s.entries {
		if filter.Source != "" && e.reg.Source != filter.Source {
			continue
		}
		if filter.Namespace != "" {
			if ns, _, found := strings.Cut(id, ":"); !found || ns != filter.Namespace {
				continue
			}
		}
		ids = append(ids, id)
	}
	s.mu.RUnlock()
	slices.Sort(ids)
	return ids
}

// Len returns the number of registered entries.
func (s *Store) Len() int {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return len(s.entries)
}

func (s *Store) entry(id string) *entry {
	s.mu.RLock()
	defer s.mu.RUnlock()
	return s.entries[id]
}
