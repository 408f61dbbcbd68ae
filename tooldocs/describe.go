package tooldocs

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// Doc is a tool's documentation at one detail level. Fields beyond its
// Level are empty. Render it with [Doc.Markdown] or [Doc.Signature], or
// send it as JSON.
type Doc struct {
	// Level is the detail level the Doc was built at.
	Level DetailLevel `json:"level"`

	// ID is the tool's ID ("namespace:name", or the name alone).
	ID string `json:"id"`
	// Namespace is the tool's namespace, if any.
	Namespace string `json:"namespace,omitempty"`
	// Name is the tool's name.
	Name string `json:"name"`
	// Title is the tool's display title: its title, or its annotations'
	// title, if either is set.
	Title string `json:"title,omitempty"`
	// Summary is the first sentence of the tool's description, on one
	// line and of bounded length (see [Summarize]).
	Summary string `json:"summary,omitempty"`
	// Tags are the tool's tags.
	Tags []string `json:"tags,omitempty"`

	// InputSchema is the tool's input schema as compact JSON
	// ([LevelSchema] and up).
	InputSchema json.RawMessage `json:"inputSchema,omitempty"`
	// OutputSchema is the tool's output schema as compact JSON, if it has
	// one ([LevelSchema] and up).
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
	// Input is the digest of the input schema ([LevelSchema] and up).
	Input *SchemaInfo `json:"input,omitempty"`
	// Output is the digest of the output schema, if the tool has one
	// ([LevelSchema] and up).
	Output *SchemaInfo `json:"output,omitempty"`

	// Description is the tool's full description ([LevelFull]).
	Description string `json:"description,omitempty"`
	// Examples are sample calls ([LevelFull]).
	Examples []Example `json:"examples,omitempty"`
	// Notes are free-text remarks ([LevelFull]).
	Notes []string `json:"notes,omitempty"`
	// Refs point to documentation elsewhere ([LevelFull]).
	Refs []ExternalRef `json:"refs,omitempty"`
	// Annotations are the tool's behaviour hints, if it declares any
	// ([LevelFull]).
	Annotations *Annotations `json:"annotations,omitempty"`
	// Version is the tool's version, if known ([LevelFull]).
	Version string `json:"version,omitempty"`
	// Source says where the documentation came from ([LevelFull]).
	Source string `json:"source,omitempty"`
}

// Annotations are a tool's behaviour hints with the defaults of the MCP
// specification applied: a tool that declares hints but not all of them is
// assumed not read-only, destructive, not idempotent and open-world. Hints
// are claims of the tool's author, not guarantees.
type Annotations struct {
	// ReadOnly reports that the tool does not modify its environment.
	ReadOnly bool `json:"readOnly"`
	// Destructive reports that the tool may delete or overwrite; it is
	// meaningful only when ReadOnly is false.
	Destructive bool `json:"destructive"`
	// Idempotent reports that repeating a call with the same arguments has
	// no further effect; it is meaningful only when ReadOnly is false.
	Idempotent bool `json:"idempotent"`
	// OpenWorld reports that the tool reaches entities outside a closed
	// domain, such as the web.
	OpenWorld bool `json:"openWorld"`
}

// annotationsOf returns the hints of an MCP tool, or nil when it declares
// none.
func annotationsOf(a *mcp.ToolAnnotations) *Annotations {
	if a == nil || *a == (mcp.ToolAnnotations{Title: a.Title}) {
		return nil
	}
	out := &Annotations{ReadOnly: a.ReadOnlyHint, Destructive: true, Idempotent: a.IdempotentHint, OpenWorld: true}
	if a.DestructiveHint != nil {
		out.Destructive = *a.DestructiveHint
	}
	if a.OpenWorldHint != nil {
		out.OpenWorld = *a.OpenWorldHint
	}
	return out
}

// Clone returns a deep copy of d.
func (d *Doc) Clone() Doc { return d.at(d.Level) }

// at returns a deep copy of d cut down to level, which must not exceed
// d.Level.
func (d *Doc) at(level DetailLevel) Doc {
	c := Doc{
		Level:     level,
		ID:        d.ID,
		Namespace: d.Namespace,
		Name:      d.Name,
		Title:     d.Title,
		Summary:   d.Summary,
		Tags:      slices.Clone(d.Tags),
	}
	if level >= LevelSchema {
		c.InputSchema = bytes.Clone(d.InputSchema)
		c.OutputSchema = bytes.Clone(d.OutputSchema)
		c.Input = d.Input.Clone()
		c.Output = d.Output.Clone()
	}
	if level >= LevelFull {
		c.Description = d.Description
		c.Examples = cloneExamples(d.Examples)
		c.Notes = slices.Clone(d.Notes)
		c.Refs = slices.Clone(d.Refs)
		if d.Annotations != nil {
			a := *d.Annotations
			c.Annotations = &a
		}
		c.Version = d.Version
		c.Source = d.Source
	}
	return c
}

// build returns the documentation of tool at level, with the examples,
// notes and references of reg (which may be nil). The result shares its
// examples, notes and references with reg and its digests with the digest
// cache: it must be copied (with at) before it leaves the Store.
func (s *Store) build(tool *toolmodel.Tool, reg *Entry, level DetailLevel) (Doc, error) {
	d := Doc{
		Level:     level,
		ID:        tool.ID(),
		Namespace: tool.Namespace,
		Name:      tool.Name,
		Title:     tool.Title,
		Summary:   Summarize(tool.Description, s.summaryLength()),
		Tags:      slices.Clone(tool.Tags),
	}
	if d.Title == "" && tool.Annotations != nil {
		d.Title = tool.Annotations.Title
	}
	if level >= LevelSchema {
		var err error
		if d.InputSchema, d.Input, err = s.digest(tool.InputSchema); err != nil {
			return Doc{}, errors.Errorf(errors.InvalidArgument, "input schema: %w", err)
		}
		if tool.OutputSchema != nil {
			if d.OutputSchema, d.Output, err = s.digest(tool.OutputSchema); err != nil {
				return Doc{}, errors.Errorf(errors.InvalidArgument, "output schema: %w", err)
			}
		}
	}
	if level >= LevelFull {
		d.Description = tool.Description
		d.Annotations = annotationsOf(tool.Annotations)
		d.Version = tool.Version
		if reg != nil {
			d.Examples = reg.Examples
			d.Notes = reg.Notes
			d.Refs = reg.Refs
			d.Source = reg.Source
		}
	}
	return d, nil
}

// digest returns a schema as compact JSON and its derived SchemaInfo,
// which is shared with the digest cache and must not be modified.
func (s *Store) digest(schema any) (json.RawMessage, *SchemaInfo, error) {
	raw, err := toolmodel.SchemaJSON(schema)
	if err != nil {
		return nil, nil, err
	}
	raw = compactJSON(raw)
	info, err := s.digests.get(raw)
	if err != nil {
		return nil, nil, err
	}
	return raw, info, nil
}

// digestCacheSize bounds the digests a Store keeps for resolved tools.
const digestCacheSize = 1024

// digestCache keeps the SchemaInfo derived from each distinct schema, keyed
// by its compact JSON, so that describing a resolved tool again does not
// decode its schemas again: decoding dominates the cost of a digest.
type digestCache struct {
	mu sync.Mutex
	m  map[string]*SchemaInfo
}

// get returns the digest of a compact schema, deriving it on a miss. When
// the cache is full, an arbitrary entry makes room.
func (c *digestCache) get(raw []byte) (*SchemaInfo, error) {
	c.mu.Lock()
	info, ok := c.m[string(raw)]
	c.mu.Unlock()
	if ok {
		return info, nil
	}
	info, err := DeriveSchemaInfo(json.RawMessage(raw))
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = make(map[string]*SchemaInfo)
	}
	if len(c.m) >= digestCacheSize {
		for k := range c.m {
			delete(c.m, k)
			break
		}
	}
	c.m[string(raw)] = info
	return info, nil
}

// view is what the Store knows about one tool when asked about it.
type view struct {
	tool  toolmodel.Tool // the definition, when resolved
	entry *entry         // the registered entry, if any
}

// lookup finds what the Store knows about a tool: its registered entry,
// and its definition from the resolver unless the entry carries one.
func (s *Store) lookup(ctx context.Context, op, id string) (view, error) {
	if _, _, err := toolmodel.ParseToolID(id); err != nil {
		return view{}, errors.WithOp(op, err).With("", id, "")
	}
	v := view{entry: s.entry(id)}
	if v.entry != nil && v.entry.full != nil {
		return v, nil
	}
	if s.resolver == nil {
		return view{}, errors.WithOp(op, errors.Errorf(errors.NotFound, "no tool with this ID is documented")).With("", id, "")
	}
	var err error
	if v.tool, err = s.resolve(ctx, id); err != nil {
		return view{}, errors.WithOp(op, err).With("", id, "")
	}
	return v, nil
}

// doc returns the documentation of v at level. The result may share the
// registered entry's state: callers copy it with at before returning it.
func (s *Store) doc(v view, level DetailLevel) (*Doc, error) {
	if v.entry != nil && v.entry.full != nil {
		return v.entry.full, nil
	}
	var reg *Entry
	if v.entry != nil {
		reg = &v.entry.reg
	}
	d, err := s.build(&v.tool, reg, level)
	return &d, err
}

// Describe implements [Describer]. A tool registered with its definition
// is described from that definition; any other tool is resolved through
// the Store's resolver, and the examples, notes and references of its
// registered entry, if any, are added.
func (s *Store) Describe(ctx context.Context, id string, level DetailLevel) (Doc, error) {
	const op = "tooldocs.Describe"
	if !level.Valid() {
		return Doc{}, errors.WithOp(op, errors.Errorf(errors.InvalidArgument, "undefined detail level %d", int(level))).With("", id, "")
	}
	v, err := s.lookup(ctx, op, id)
	if err != nil {
		return Doc{}, err
	}
	d, err := s.doc(v, level)
	if err != nil {
		return Doc{}, errors.WithOp(op, err).With("", id, "")
	}
	return d.at(level), nil
}

// TokenCosts are the estimated token costs of a tool's documentation
// rendered as Markdown ([Doc.Markdown]) at each detail level.
type TokenCosts struct {
	// Summary is the cost of [LevelSummary].
	Summary int `json:"summary"`
	// Schema is the cost of [LevelSchema].
	Schema int `json:"schema"`
	// Full is the cost of [LevelFull].
	Full int `json:"full"`
}

// At returns the cost of one level, or 0 for an undefined level.
func (c TokenCosts) At(level DetailLevel) int {
	switch level {
	case LevelSummary:
		return c.Summary
	case LevelSchema:
		return c.Schema
	case LevelFull:
		return c.Full
	}
	return 0
}

// Richest returns the richest level that costs at most budget tokens, and
// false when not even the summary does.
func (c TokenCosts) Richest(budget int) (DetailLevel, bool) {
	levels := Levels()
	for i := len(levels) - 1; i >= 0; i-- {
		if c.At(levels[i]) <= budget {
			return levels[i], true
		}
	}
	return LevelSummary, false
}

// costs prices the full document d at every level.
func (s *Store) costs(d *Doc) TokenCosts {
	s.defaults.Do(s.setDefaults)
	return TokenCosts{
		Summary: s.estimator.EstimateTokens(d.markdown(LevelSummary)),
		Schema:  s.estimator.EstimateTokens(d.markdown(LevelSchema)),
		Full:    s.estimator.EstimateTokens(d.markdown(LevelFull)),
	}
}

// priced returns the full document of v and its costs; registered tools
// compute their costs once.
func (s *Store) priced(v view) (*Doc, TokenCosts, error) {
	d, err := s.doc(v, LevelFull)
	if err != nil {
		return nil, TokenCosts{}, err
	}
	if v.entry != nil && v.entry.full != nil {
		v.entry.costsOnce.Do(func() { v.entry.costs = s.costs(d) })
		return d, v.entry.costs, nil
	}
	return d, s.costs(d), nil
}

// Costs returns the estimated token cost of a tool's documentation at
// each level, as rendered by [Doc.Markdown] and estimated by the Store's
// [TokenEstimator]. Errors are those of [Store.Describe].
func (s *Store) Costs(ctx context.Context, id string) (TokenCosts, error) {
	const op = "tooldocs.Costs"
	v, err := s.lookup(ctx, op, id)
	if err != nil {
		return TokenCosts{}, err
	}
	_, c, err := s.priced(v)
	if err != nil {
		return TokenCosts{}, errors.WithOp(op, err).With("", id, "")
	}
	return c, nil
}

// DescribeWithin implements [Describer]. The error for a budget too small
// carries the summary's cost in its Meta["tokens"].
func (s *Store) DescribeWithin(ctx context.Context, id string, budget int) (Doc, error) {
	const op = "tooldocs.DescribeWithin"
	v, err := s.lookup(ctx, op, id)
	if err != nil {
		return Doc{}, err
	}
	d, c, err := s.priced(v)
	if err != nil {
		return Doc{}, errors.WithOp(op, err).With("", id, "")
	}
	level, ok := c.Richest(budget)
	if !ok {
		e := errors.Errorf(errors.ResourceExhausted, "even the summary costs about %d tokens, over the budget of %d", c.Summary, budget)
		e.Op, e.ToolID = op, id
		e.Meta = map[string]string{"tokens": strconv.Itoa(c.Summary)}
		return Doc{}, e
	}
	return d.at(level), nil
}

// Examples implements [Describer].
func (s *Store) Examples(ctx context.Context, id string, limit int) ([]Example, error) {
	v, err := s.lookup(ctx, "tooldocs.Examples", id)
	if err != nil {
		return nil, err
	}
	if v.entry == nil {
		return nil, nil
	}
	examples := v.entry.reg.Examples
	if limit > 0 && limit < len(examples) {
		examples = examples[:limit]
	}
	return cloneExamples(examples), nil
}
