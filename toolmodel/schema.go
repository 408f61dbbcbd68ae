package toolmodel

import (
	"encoding/json"
	"fmt"
	"net/url"
	"reflect"
	"slices"
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
	lastUse  atomic.Uint64

	// Resolved property schemas, built on the first failure only: they let
	// an error list every failing property rather than the first.
	propsOnce sync.Once
	props     map[string]*jsonschema.Resolved
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
	raw := []byte(key.content)
	var err error
	if s == nil {
		if s, err = DecodeSchema(json.RawMessage(raw)); err != nil {
			return nil, err
		}
	} else if raw, err = json.Marshal(s); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	if err := checkRefCycles(raw); err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	resolved, err := s.Resolve(&jsonschema.ResolveOptions{Loader: refuseRemote})
	if err != nil {
		return nil, fmt.Errorf("schema: %w", err)
	}
	return &compiled{key: key, resolved: resolved}, nil
}

// refuseRemote is the loader for references outside the schema: metatools
// never fetches a schema, so a tool definition cannot make it reach the
// network.
func refuseRemote(uri *url.URL) (*jsonschema.Schema, error) {
	return nil, fmt.Errorf("external $ref %q refused: only references inside the schema are allowed", uri)
}

// describe returns an error message for an instance that failed
// validation with err. For an object schema it lists every failing
// property; otherwise it gives err's message.
func (c *compiled) describe(instance any, err error) string {
	obj, isObj := instance.(map[string]any)
	root := c.resolved.Schema()
	if !isObj || len(root.Properties) == 0 && len(root.Required) == 0 {
		return err.Error()
	}
	c.propsOnce.Do(func() { c.props = resolveProperties(root) })

	var problems []string
	for _, name := range root.Required {
		if _, ok := obj[name]; !ok {
			problems = append(problems, fmt.Sprintf("/%s: required property is missing", name))
		}
	}
	names := make([]string, 0, len(obj))
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		sub, declared := root.Properties[name]
		if !declared {
			if isFalse(root.AdditionalProperties) {
				problems = append(problems, fmt.Sprintf("/%s: property is not allowed", name))
			}
			continue
		}
		if rs := c.props[name]; rs != nil && sub != nil {
			if perr := rs.Validate(obj[name]); perr != nil {
				problems = append(problems, fmt.Sprintf("/%s: %s", name, innermost(perr)))
			}
		}
	}
	if len(problems) == 0 {
		// The failure is not tied to one property (allOf, minProperties,
		// a reference...): the validator's message says it best.
		return err.Error()
	}
	return strings.Join(problems, "; ")
}

// resolveProperties resolves each property schema on its own, so that each
// property can be checked apart. Properties whose schemas refer to the rest
// of the schema cannot be resolved alone; they are left out.
func resolveProperties(root *jsonschema.Schema) map[string]*jsonschema.Resolved {
	out := make(map[string]*jsonschema.Resolved, len(root.Properties))
	for name, sub := range root.Properties {
		if sub == nil {
			continue
		}
		standalone := sub.CloneSchemas()
		standalone.Schema = root.Schema // same draft as the root
		if rs, err := standalone.Resolve(&jsonschema.ResolveOptions{Loader: refuseRemote}); err == nil {
			out[name] = rs
		}
	}
	return out
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
