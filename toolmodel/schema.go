package toolmodel

import (
	"encoding/json"
	"fmt"
	"maps"
	"net/url"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
)

// SchemaValidator validates JSON values against JSON Schemas.
//
// Implementations must be safe for concurrent use. They must not modify
// the schema, the tool or the instance they are given, and must never
// fetch anything over the network. A schema may be given in any form that
// marshals to a JSON Schema (see [SchemaJSON]); an instance is a decoded
// JSON value (map[string]any, []any, string, float64, bool, nil) or raw
// JSON ([json.RawMessage] or []byte).
//
// Errors: an instance that does not satisfy its schema yields code
// [errors.Validation]; a schema that cannot be used (malformed, external
// $ref) yields [errors.InvalidArgument].
type SchemaValidator interface {
	// Validate checks instance against schema.
	Validate(schema, instance any) error
	// ValidateInput checks a call's arguments against the tool's input
	// schema. Nil arguments are checked as the empty object, since MCP
	// clients may leave them out.
	ValidateInput(tool *Tool, args any) error
	// ValidateOutput checks a result's structured content against the
	// tool's output schema. A tool without an output schema accepts any
	// result.
	ValidateOutput(tool *Tool, result any) error
}

// DefaultCacheSize is the number of compiled schemas a [Validator] keeps
// unless told otherwise with [WithCacheSize].
const DefaultCacheSize = 4096

// Validator is the default [SchemaValidator], built on
// github.com/google/jsonschema-go. It accepts JSON Schema 2020-12 and
// draft-07 (chosen by "$schema"; 2020-12 when absent) and refuses any $ref
// outside the schema itself.
//
// It refuses what would make validation recurse without end or beyond the
// stack: references that loop without descending into the instance, and
// more than 1000 schemas nested in all, counting references and the
// nesting of the instance (a schema with a longer reference chain is
// refused with [errors.InvalidArgument], an instance nested too deeply for
// its schema with [errors.Validation]).
//
// Its errors name each failing value by its JSON Pointer in the instance
// ("/child/n", "/a~1b" for the property "a/b"; see the package
// documentation).
//
// Each distinct schema is compiled once and kept in a bounded cache, so
// validating against a schema seen before costs only the validation. The
// cache is keyed by content for raw JSON schemas (what [Tool] decoding
// produces) and for schemas given as other values such as maps (which are
// marshaled to find their content), and by pointer for *jsonschema.Schema
// values, which therefore must not be modified after their first use, as
// jsonschema-go itself requires. When the cache is full, the least recently
// used schema is dropped.
type Validator struct {
	size int

	mu sync.RWMutex
	// Two maps rather than one keyed by a struct, so that looking up raw
	// JSON by content does not allocate.
	byContent map[string]*compiled
	byPointer map[*jsonschema.Schema]*compiled
	clock     atomic.Uint64 // ticks on every use, to find the least recent
}

var _ SchemaValidator = (*Validator)(nil)

// ValidatorOption configures a [Validator].
type ValidatorOption func(*Validator)

// WithCacheSize sets how many compiled schemas the validator keeps; n < 1
// means 1.
func WithCacheSize(n int) ValidatorOption {
	return func(v *Validator) { v.size = max(n, 1) }
}

// NewValidator returns a validator with an empty cache.
func NewValidator(opts ...ValidatorOption) *Validator {
	v := &Validator{size: DefaultCacheSize, byContent: map[string]*compiled{}, byPointer: map[*jsonschema.Schema]*compiled{}}
	for _, opt := range opts {
		opt(v)
	}
	return v
}

// Len returns the number of compiled schemas in the cache.
func (v *Validator) Len() int {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return len(v.byContent) + len(v.byPointer)
}

// cacheKey identifies a schema: by content, or by pointer for a
// *jsonschema.Schema.
type cacheKey struct {
	content string
	ptr     *jsonschema.Schema
}

// compiled is a resolved schema ready to validate instances.
type compiled struct {
	key      cacheKey
	resolved *jsonschema.Resolved
	graph    *schemaGraph
	lastUse  atomic.Uint64

	// Subschemas resolved in the context of the whole schema, built on
	// failures only: they let an error list every failing property, at
	// its full path, rather than the first.
	probesOnce sync.Once
	probeRoot  *jsonschema.Schema // a copy of the schema, with an $id
	probesMu   sync.Mutex
	probes     map[*jsonschema.Schema]*jsonschema.Resolved
}

// Validate implements [SchemaValidator].
func (v *Validator) Validate(schema, instance any) error {
	return v.validate("toolmodel.Validate", "", schema, instance)
}

// ValidateInput implements [SchemaValidator].
func (v *Validator) ValidateInput(tool *Tool, args any) error {
	if args == nil {
		args = map[string]any{}
	}
	if tool.InputSchema == nil {
		e := errors.Errorf(errors.InvalidArgument, "tool has no input schema")
		e.Op, e.ToolID = "validate_input", tool.ID()
		return e
	}
	return v.validate("validate_input", tool.ID(), tool.InputSchema, args)
}

// ValidateOutput implements [SchemaValidator].
func (v *Validator) ValidateOutput(tool *Tool, result any) error {
	if tool.OutputSchema == nil {
		return nil
	}
	return v.validate("validate_output", tool.ID(), tool.OutputSchema, result)
}

func (v *Validator) validate(op, toolID string, schema, instance any) error {
	c, err := v.compile(schema)
	if err != nil {
		e := errors.E(errors.InvalidArgument, err)
		e.Op, e.ToolID = op, toolID
		return e
	}
	instance, err = decodeInstance(instance)
	if err != nil {
		e := errors.Errorf(errors.Validation, "instance is not JSON: %w", err)
		e.Op, e.ToolID = op, toolID
		return e
	}
	if err := c.graph.checkDepth(instance); err != nil {
		e := errors.E(errors.Validation, err)
		e.Op, e.ToolID = op, toolID
		return e
	}
	if err := c.resolved.Validate(instance); err != nil {
		e := errors.Errorf(errors.Validation, "%s", c.describe(instance, err))
		e.Op, e.ToolID = op, toolID
		return e
	}
	return nil
}

// decodeInstance turns raw JSON into a decoded value; other values pass.
func decodeInstance(instance any) (any, error) {
	var raw []byte
	switch x := instance.(type) {
	case json.RawMessage:
		raw = x
	case []byte:
		raw = x
	default:
		return instance, nil
	}
	var decoded any
	if err := json.Unmarshal(raw, &decoded); err != nil {
		return nil, err
	}
	return decoded, nil
}

// compile returns the compiled form of schema, from the cache when it has
// been compiled before.
func (v *Validator) compile(schema any) (*compiled, error) {
	tick := v.clock.Add(1)
	if c := v.cached(schema); c != nil {
		c.lastUse.Store(tick)
		return c, nil
	}
	key, err := keyOf(schema)
	if err != nil {
		return nil, err
	}
	if c := v.cachedKey(key); c != nil { // a schema given as a map, say
		c.lastUse.Store(tick)
		return c, nil
	}
	c, err := compileSchema(key)
	if err != nil {
		return nil, err
	}
	c.lastUse.Store(tick)
	v.mu.Lock()
	defer v.mu.Unlock()
	if prev := v.lookupLocked(key); prev != nil { // compiled concurrently
		return prev, nil
	}
	if v.lenLocked() >= v.size {
		v.evictLocked()
	}
	if key.ptr != nil {
		v.byPointer[key.ptr] = c
	} else {
		v.byContent[key.content] = c
	}
	return c, nil
}

// cached returns the compiled form of a schema given as raw JSON or as a
// *jsonschema.Schema, without allocating, or nil.
func (v *Validator) cached(schema any) *compiled {
	v.mu.RLock()
	defer v.mu.RUnlock()
	switch s := schema.(type) {
	case *jsonschema.Schema:
		return v.byPointer[s]
	case json.RawMessage:
		return v.byContent[string(s)]
	case []byte:
		return v.byContent[string(s)]
	}
	return nil
}

func (v *Validator) cachedKey(key cacheKey) *compiled {
	v.mu.RLock()
	defer v.mu.RUnlock()
	return v.lookupLocked(key)
}

func (v *Validator) lookupLocked(key cacheKey) *compiled {
	if key.ptr != nil {
		return v.byPointer[key.ptr]
	}
	return v.byContent[key.content]
}

func (v *Validator) lenLocked() int { return len(v.byContent) + len(v.byPointer) }

// evictLocked drops the least recently used entry. It scans the cache,
// which happens only when a new schema arrives at a full cache.
func (v *Validator) evictLocked() {
	var oldest *compiled
	older := func(c *compiled) {
		if oldest == nil || c.lastUse.Load() < oldest.lastUse.Load() {
			oldest = c
		}
	}
	for _, c := range v.byContent {
		older(c)
	}
	for _, c := range v.byPointer {
		older(c)
	}
	if oldest.key.ptr != nil {
		delete(v.byPointer, oldest.key.ptr)
	} else {
		delete(v.byContent, oldest.key.content)
	}
}

func keyOf(schema any) (cacheKey, error) {
	switch s := schema.(type) {
	case nil:
		return cacheKey{}, errors.New("schema is missing")
	case *jsonschema.Schema:
		return cacheKey{ptr: s}, nil
	case json.RawMessage:
		return cacheKey{content: string(s)}, nil
	case []byte:
		return cacheKey{content: string(s)}, nil
	}
	raw, err := SchemaJSON(schema)
	if err != nil {
		return cacheKey{}, err
	}
	return cacheKey{content: string(raw)}, nil
}

func compileSchema(key cacheKey) (*compiled, error) {
	s := key.ptr
	var err error
	if s == nil {
		if s, err = DecodeSchema(json.RawMessage(key.content)); err != nil {
			return nil, err
		}
	} else if _, err = json.Marshal(s); err != nil {
		// Marshaling refuses a schema that contains itself, which
		// Resolve would follow until the stack overflows.
		return nil, fmt.Errorf("schema: %w", err)
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{Loader: refuseRemote})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	// After Resolve, which has checked the references, and before any
	// validation, which would follow a loop until the stack overflows.
	g, err := newSchemaGraph(s)
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &compiled{key: key, resolved: resolved, graph: g}, nil
}

// refuseRemote is the loader for references outside the schema: metatools
// never fetches a schema, so a tool definition cannot make it reach the
// network.
func refuseRemote(uri *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("external $ref %q refused: only references inside the schema are allowed", uri)
}

// describe returns an error message for an instance that failed
// validation with err. For an object schema it lists every failing
// property, at the deepest path it can name; otherwise it gives err's
// message.
func (c *compiled) describe(instance any, err error) string {
	if problems := c.problems(c.resolved.Schema(), "", instance); len(problems) > 0 {
		return strings.Join(problems, "; ")
	}
	// The failure is not tied to one property (allOf, minProperties, a
	// reference...): the validator's message says it best.
	return readable(err.Error())
}

// problems lists what is wrong with the properties of instance, at path
// (a JSON Pointer, each step escaped with PointerToken), against s, a subschema of the compiled schema. It checks each declared
// property on its own against its subschema, resolved within the whole
// schema (so that "#" still means the root), and goes down into a failing
// property for a more precise path. Validation has already checked that
// instance is not nested too deeply, so the recursion is bounded.
func (c *compiled) problems(s *jsonschema.Schema, path string, instance any) []string {
	switch x := instance.(type) {
	case map[string]any:
		return c.propertyProblems(s, path, x)
	case []any:
		return c.itemProblems(s, path, x)
	}
	return nil
}

func (c *compiled) propertyProblems(s *jsonschema.Schema, path string, obj map[string]any) []string {
	s = c.graph.declaring(s, func(s *jsonschema.Schema) bool { return len(s.Properties) > 0 || len(s.Required) > 0 })
	if s == nil {
		return nil
	}
	var problems []string
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, fmt.Sprintf("%s/%s: required property is missing", path, PointerToken(name)))
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	refused := false
	for _, name := range names {
		sub, declared := s.Properties[name]
		if !declared {
			if isFalse(s.AdditionalProperties) {
				problem := fmt.Sprintf("%s/%s: property is not allowed", path, PointerToken(name))
				if !refused {
					problem += " (" + allowedProperties(s) + ")"
					refused = true
				}
				problems = append(problems, problem)
			}
			continue
		}
		problems = append(problems, c.check(sub, path+"/"+PointerToken(name), obj[name])...)
	}
	return problems
}

// maxListedProperties bounds the names allowedProperties lists.
const maxListedProperties = 20

// allowedProperties names the properties s declares, so that a caller
// who misnamed one sees the name meant without asking for the schema.
func allowedProperties(s *jsonschema.Schema) string {
	names := slices.Sorted(maps.Keys(s.Properties))
	if len(names) == 0 {
		return "the object allows none"
	}
	list := "allowed: " + strings.Join(names[:min(len(names), maxListedProperties)], ", ")
	if more := len(names) - maxListedProperties; more > 0 {
		list += fmt.Sprintf(" and %d more", more)
	}
	return list
}

// itemProblems lists the failing items of an array whose items all have
// one schema.
func (c *compiled) itemProblems(s *jsonschema.Schema, path string, items []any) []string {
	s = c.graph.declaring(s, func(s *jsonschema.Schema) bool { return s.Items != nil })
	if s == nil || len(s.PrefixItems) > 0 || len(s.ItemsArray) > 0 {
		return nil
	}
	var problems []string
	for i, item := range items {
		problems = append(problems, c.check(s.Items, path+"/"+strconv.Itoa(i), item)...)
	}
	return problems
}

// check validates value, at path, against sub alone, and describes the
// failure at the deepest path it can.
func (c *compiled) check(sub *jsonschema.Schema, path string, value any) []string {
	rs := c.probe(sub)
	if rs == nil {
		return nil
	}
	err := rs.Validate(value)
	if err == nil {
		return nil
	}
	if deeper := c.problems(sub, path, value); len(deeper) > 0 {
		return deeper
	}
	return []string{fmt.Sprintf("%s: %s", path, readable(innermost(err)))}
}

// probeID is the $id given to a copy of a schema without one, so that the
// references in it still resolve to it when it is nested in a probe. A
// schema that uses it itself cannot be probed: its $id or a reference to
// it would clash, and the probe is left out.
const probeID = "urn:metatools:toolmodel:probe-root"

// probe returns sub, a subschema of the compiled schema, resolved in the
// context of the whole schema: a schema that refers to sub and keeps a
// copy of the whole schema under $defs. It returns nil when sub cannot be
// checked on its own; the caller then leaves it out.
func (c *compiled) probe(sub *jsonschema.Schema) *jsonschema.Resolved {
	root := c.resolved.Schema()
	c.probesOnce.Do(func() {
		c.probes = map[*jsonschema.Schema]*jsonschema.Resolved{}
		id := root.ID
		if id == "" {
			id = probeID
		}
		// In draft-07 an $id beside a $ref is ignored; a relative or
		// fragment $id would not make the copy its own base either.
		if u, err := url.Parse(id); err != nil || !u.IsAbs() || u.Fragment != "" || c.graph.draft7 && root.Ref != "" {
			return
		}
		cp := root.CloneSchemas()
		cp.ID, cp.Schema = id, ""
		c.probeRoot = cp
	})
	info := c.graph.info[sub]
	if c.probeRoot == nil || info == nil {
		return nil
	}
	c.probesMu.Lock()
	defer c.probesMu.Unlock()
	if rs, ok := c.probes[sub]; ok {
		return rs
	}
	ref := &url.URL{Fragment: "/$defs/root" + info.ptr}
	wrapper := &jsonschema.Schema{
		Schema: root.Schema,
		Ref:    ref.String(),
		Defs:   map[string]*jsonschema.Schema{"root": c.probeRoot},
	}
	var rs *jsonschema.Resolved
	// The probe is checked like any schema: it must not loop either.
	if r, err := wrapper.Resolve(&jsonschema.ResolveOptions{Loader: refuseRemote}); err == nil {
		if _, err := newSchemaGraph(wrapper); err == nil {
			rs = r
		}
	}
	c.probes[sub] = rs
	return rs
}

// declaring returns the schema, s or one its $refs lead to, that has
// what has reports, or nil.
func (g *schemaGraph) declaring(s *jsonschema.Schema, has func(*jsonschema.Schema) bool) *jsonschema.Schema {
	for range maxValidationDepth {
		if has(s) {
			return s
		}
		if s.Ref == "" {
			return nil
		}
		next, _, err := g.resolve(s, s.Ref)
		if err != nil {
			return nil
		}
		s = next
	}
	return nil
}

// innermost strips jsonschema-go's "validating <schema>:" prefixes, which
// repeat the schema, down to the reason.
func innermost(err error) string {
	msg := err.Error()
	for {
		rest, ok := strings.CutPrefix(msg, "validating ")
		if !ok {
			return msg
		}
		i := strings.Index(rest, ": ")
		if i < 0 {
			return msg
		}
		msg = rest[i+2:]
	}
}

// isFalse reports whether s is the schema false, which jsonschema-go
// decodes as {"not": {}}.
func isFalse(s *jsonschema.Schema) bool {
	return s != nil && s.Not != nil && reflect.DeepEqual(*s.Not, jsonschema.Schema{})
}

// SchemaJSON returns the JSON encoding of a schema given in any form:
// [json.RawMessage] or []byte (returned as is), *jsonschema.Schema,
// map[string]any, or any other value that marshals to JSON.
func SchemaJSON(schema any) ([]byte, error) {
	switch s := schema.(type) {
	case nil:
		return nil, errors.New("schema is missing")
	case json.RawMessage:
		return s, nil
	case []byte:
		return s, nil
	}
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, fmt.Errorf("schema does not marshal to JSON: %w", err)
	}
	return raw, nil
}

// DecodeSchema returns a schema given in any form (see [SchemaJSON]) as a
// *jsonschema.Schema. A *jsonschema.Schema is returned as is; any other
// form is decoded into a new value.
func DecodeSchema(schema any) (*jsonschema.Schema, error) {
	if s, ok := schema.(*jsonschema.Schema); ok {
		return s, nil
	}
	raw, err := SchemaJSON(schema)
	if err != nil {
		return nil, err
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &s, nil
}
