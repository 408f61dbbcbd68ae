package tooldocs

import (
	"bytes"
	"encoding/json"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// SchemaInfo is a digest of a JSON Schema: the facts an agent needs to
// build a valid call without reading the schema itself. [DeriveSchemaInfo]
// builds it; the Store derives one for each tool's input and output
// schemas.
type SchemaInfo struct {
	// Types are the JSON types the schema accepts ("object", "string",
	// "null", ...), as declared or as implied by other keywords. Empty
	// means any type.
	Types []string `json:"types,omitempty"`
	// Description is the schema's own description.
	Description string `json:"description,omitempty"`
	// Params are the object's properties, required ones first, each group
	// in the order the schema lists them (see [DeriveSchemaInfo]).
	Params []Param `json:"params,omitempty"`
	// Required names the required properties, in the order of Params.
	Required []string `json:"required,omitempty"`
}

// Param describes one property of an object schema.
type Param struct {
	// Name is the property name; it is empty for array items.
	Name string `json:"name,omitempty"`
	// Types are the JSON types the property accepts; empty means any.
	// A nullable property lists "null".
	Types []string `json:"types,omitempty"`
	// Required reports whether the enclosing object requires the property.
	Required bool `json:"required,omitempty"`
	// Description is the property's description.
	Description string `json:"description,omitempty"`
	// Default is the property's default value as compact JSON, if any.
	Default json.RawMessage `json:"default,omitempty"`
	// Enum lists the allowed values as compact JSON ("const" yields one).
	Enum []json.RawMessage `json:"enum,omitempty"`
	// Format is the property's "format" keyword, such as "date-time".
	Format string `json:"format,omitempty"`
	// Deprecated reports whether the schema marks the property deprecated.
	Deprecated bool `json:"deprecated,omitempty"`
	// Items describes the elements of an array property.
	Items *Param `json:"items,omitempty"`
	// Properties describes the properties of an object property. Only the
	// first level of nesting below the top-level parameters is derived.
	Properties []Param `json:"properties,omitempty"`
}

// Derivation limits. Parameters nest at most maxParamLevel object levels
// (the top-level parameters are level 1), which is what keeps a digest
// short; array items do not count as a level, but at most maxItemsNesting
// arrays of arrays are followed. Since references let a small schema
// describe a huge tree, at most maxNestedParams properties below the top
// level are derived in all, and collecting properties visits at most
// maxCollectSteps schemas and properties in all. maxRefHops bounds chains
// of $ref, and maxLogicDepth the nesting of allOf merged into an object.
const (
	maxParamLevel   = 2
	maxItemsNesting = 3
	maxNestedParams = 1000
	maxCollectSteps = 100_000
	maxRefHops      = 16
	maxLogicDepth   = 8
)

// DeriveSchemaInfo digests a JSON Schema given in any form accepted by
// [toolmodel.DecodeSchema] (raw JSON, a map, a *jsonschema.Schema).
//
// It understands draft-07 and 2020-12 schemas: "type" as a string or an
// array (["string", "null"]), OpenAPI's "nullable", "const" and "enum",
// types implied by other keywords, anyOf/oneOf of alternatives (their types
// are merged), allOf (its properties are merged), and "$ref" to any place
// inside the schema ("#", "#/$defs/...", "#/definitions/...", or deeper
// pointers), whose target is merged under the referring schema's own
// keywords. References it cannot follow (external or to named anchors)
// leave only what the referring schema itself says.
//
// Parameters are listed required first, then optional; within each group
// in the order the schema document lists them when that order is known (a
// schema given as JSON, or a *jsonschema.Schema with PropertyOrder), and
// alphabetically otherwise. Nested properties stop after 1000 in all, so
// that a schema whose references fan out cannot make the digest explode,
// and the whole derivation does a bounded amount of work (a schema with
// more than about 100,000 properties and sub-schemas to merge is digested
// in part).
//
// A schema that does not decode yields an error of code
// [errors.InvalidArgument]. A schema given as a *jsonschema.Schema is read,
// never modified.
func DeriveSchemaInfo(schema any) (*SchemaInfo, error) {
	root, err := decodeOrdered(schema)
	if err != nil {
		e := errors.Errorf(errors.InvalidArgument, "derive schema info: %w", err)
		e.Op = "tooldocs.DeriveSchemaInfo"
		return nil, e
	}
	d := deriver{
		root:     root,
		nested:   maxNestedParams,
		steps:    maxCollectSteps,
		types:    map[*jsonschema.Schema][]string{},
		visiting: map[*jsonschema.Schema]bool{},
	}
	info := &SchemaInfo{
		Types:       d.typesOf(root),
		Description: d.description(root),
	}
	info.Params = d.params(root, 1)
	for _, p := range info.Params {
		if p.Required {
			info.Required = append(info.Required, p.Name)
		}
	}
	return info, nil
}

// decodeOrdered decodes schema and, when it was given as JSON, records the
// document order of every "properties" object in PropertyOrder.
func decodeOrdered(schema any) (*jsonschema.Schema, error) {
	if s, ok := schema.(*jsonschema.Schema); ok {
		if s == nil {
			return nil, errors.New("schema is missing")
		}
		return s, nil
	}
	raw, err := toolmodel.SchemaJSON(schema)
	if err != nil {
		return nil, err
	}
	s, err := toolmodel.DecodeSchema(json.RawMessage(raw))
	if err != nil {
		return nil, err
	}
	var order orderTree
	if json.Unmarshal(raw, &order) == nil {
		order.apply(s)
	}
	return s, nil
}

// deriver walks one decoded schema.
type deriver struct {
	root   *jsonschema.Schema
	nested int // nested properties still allowed
	steps  int // schemas and properties collect may still visit

	// The types of each schema, once computed: alternatives and
	// references reach one schema along many paths.
	types    map[*jsonschema.Schema][]string
	visiting map[*jsonschema.Schema]bool // on the current path, to break cycles
}

// chain returns s followed by the targets of its $ref chain: the keywords
// of an earlier schema take precedence over those of later ones.
func (d *deriver) chain(s *jsonschema.Schema) []*jsonschema.Schema {
	out := []*jsonschema.Schema{s}
	for range maxRefHops {
		next := d.lookup(s.Ref)
		if next == nil || slices.Contains(out, next) {
			break
		}
		out = append(out, next)
		s = next
	}
	return out
}

// lookup returns the schema a local reference points to, or nil.
func (d *deriver) lookup(ref string) *jsonschema.Schema { return lookupRef(d.root, ref) }

// lookupRef returns the schema a local reference ("#", "#/$defs/x", or
// any JSON Pointer into the document) points to within root, or nil for a
// reference it cannot follow (external, or to a named anchor).
func lookupRef(root *jsonschema.Schema, ref string) *jsonschema.Schema {
	frag, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil
	}
	if frag == "" {
		return root
	}
	if frag[0] != '/' {
		return nil // a named anchor
	}
	segs := strings.Split(frag[1:], "/")
	for i, seg := range segs {
		if unescaped, err := url.PathUnescape(seg); err == nil {
			seg = unescaped
		}
		segs[i] = strings.NewReplacer("~1", "/", "~0", "~").Replace(seg)
	}
	return walkPointer(root, segs)
}

// walkPointer follows JSON Pointer segments through the schema keywords
// that hold sub-schemas.
func walkPointer(s *jsonschema.Schema, segs []string) *jsonschema.Schema {
	for len(segs) > 0 && s != nil {
		key := segs[0]
		segs = segs[1:]
		var named map[string]*jsonschema.Schema
		var list []*jsonschema.Schema
		switch key {
		case "$defs":
			named = s.Defs
		case "definitions":
			named = s.Definitions
		case "properties":
			named = s.Properties
		case "patternProperties":
			named = s.PatternProperties
		case "dependentSchemas":
			named = s.DependentSchemas
		case "allOf":
			list = s.AllOf
		case "anyOf":
			list = s.AnyOf
		case "oneOf":
			list = s.OneOf
		case "prefixItems":
			list = s.PrefixItems
		case "items":
			if s.ItemsArray == nil {
				s = s.Items
				continue
			}
			list = s.ItemsArray
		case "additionalProperties":
			s = s.AdditionalProperties
			continue
		case "not":
			s = s.Not
			continue
		case "if":
			s = s.If
			continue
		case "then":
			s = s.Then
			continue
		case "else":
			s = s.Else
			continue
		case "contains":
			s = s.Contains
			continue
		default:
			return nil
		}
		if len(segs) == 0 {
			return nil
		}
		next := segs[0]
		segs = segs[1:]
		if named != nil {
			s = named[next]
			continue
		}
		i, err := strconv.Atoi(next)
		if err != nil || i < 0 || i >= len(list) {
			return nil
		}
		s = list[i]
	}
	return s
}

// description returns the first description along s's reference chain.
// Titles are not used: generators often set them to the property name,
// which would cost tokens and tell nothing.
func (d *deriver) description(s *jsonschema.Schema) string {
	for _, n := range d.chain(s) {
		if n.Description != "" {
			return n.Description
		}
	}
	return ""
}

// typesOf returns the JSON types s accepts: declared ones when any schema
// of its reference chain declares them, implied ones otherwise. A schema
// met again while its own types are being worked out (a cycle) adds none.
// The result is the caller's.
func (d *deriver) typesOf(s *jsonschema.Schema) []string {
	if t, ok := d.types[s]; ok {
		return slices.Clone(t)
	}
	if d.visiting[s] {
		return nil
	}
	d.visiting[s] = true
	t := d.computeTypes(s)
	delete(d.visiting, s)
	d.types[s] = t
	return slices.Clone(t)
}

func (d *deriver) computeTypes(s *jsonschema.Schema) []string {
	chain := d.chain(s)
	var out []string
	for _, n := range chain {
		if n.Type != "" {
			out = []string{n.Type}
		} else if len(n.Types) > 0 {
			out = slices.Clone(n.Types)
		}
		if out != nil {
			break
		}
	}
	if out == nil {
		for _, n := range chain {
			if out = d.impliedTypes(n); out != nil {
				break
			}
		}
	}
	for _, n := range chain {
		if nullable, _ := n.Extra["nullable"].(bool); nullable && out != nil {
			out = append(out, "null")
			break
		}
	}
	return uniqueStrings(out)
}

// impliedTypes infers the types of a schema without a "type" keyword.
func (d *deriver) impliedTypes(n *jsonschema.Schema) []string {
	switch {
	case n.Const != nil:
		return []string{jsonType(*n.Const)}
	case n.Enum != nil:
		var out []string
		for _, v := range n.Enum {
			out = append(out, jsonType(v))
		}
		return out
	case n.Properties != nil || n.Required != nil || n.AdditionalProperties != nil ||
		n.PatternProperties != nil || n.MinProperties != nil || n.MaxProperties != nil:
		return []string{"object"}
	case n.Items != nil || n.ItemsArray != nil || n.PrefixItems != nil || n.Contains != nil ||
		n.MinItems != nil || n.MaxItems != nil:
		return []string{"array"}
	case n.Pattern != "" || n.MinLength != nil || n.MaxLength != nil:
		return []string{"string"}
	case n.Minimum != nil || n.Maximum != nil || n.ExclusiveMinimum != nil ||
		n.ExclusiveMaximum != nil || n.MultipleOf != nil:
		return []string{"number"}
	}
	if alts := slices.Concat(n.AnyOf, n.OneOf); len(alts) > 0 {
		var out []string
		for _, alt := range alts {
			if alt == nil {
				continue
			}
			t := d.typesOf(alt)
			if t == nil {
				return nil // one alternative accepts anything
			}
			out = append(out, t...)
		}
		return out
	}
	for _, part := range n.AllOf {
		if part == nil {
			continue
		}
		if t := d.typesOf(part); t != nil {
			return t
		}
	}
	return nil
}

// jsonType returns the JSON type of a decoded JSON value.
func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case float64:
		if x == math.Trunc(x) && !math.IsInf(x, 0) {
			return "integer"
		}
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return ""
}

// property is one property found while collecting an object's properties.
type property struct {
	name   string
	schema *jsonschema.Schema
}

// objectShape is what collect found: properties in schema order, required
// names in the order they were declared, and the schemas already visited.
type objectShape struct {
	props    []property
	seen     map[string]bool
	required []string
	visited  map[*jsonschema.Schema]bool
}

// collect adds the properties and required names of s, its reference chain
// and its allOf parts. The first declaration of a property wins.
func (d *deriver) collect(shape *objectShape, s *jsonschema.Schema, depth int) {
	for _, n := range d.chain(s) {
		if shape.visited[n] || d.steps <= 0 {
			continue
		}
		shape.visited[n] = true
		d.steps--
		for _, name := range propertyOrder(n) {
			if d.steps--; d.steps < 0 {
				return
			}
			if !shape.seen[name] {
				shape.seen[name] = true
				shape.props = append(shape.props, property{name, n.Properties[name]})
			}
		}
		shape.required = append(shape.required, n.Required...)
		if depth < maxLogicDepth {
			for _, part := range n.AllOf {
				if part != nil {
					d.collect(shape, part, depth+1)
				}
			}
		}
	}
}

// propertyOrder returns the names of n's properties: those in
// PropertyOrder first, in that order, then the rest alphabetically.
func propertyOrder(n *jsonschema.Schema) []string {
	names := make([]string, 0, len(n.Properties))
	listed := make(map[string]bool, len(n.PropertyOrder))
	for _, name := range n.PropertyOrder {
		if _, ok := n.Properties[name]; ok && !listed[name] {
			listed[name] = true
			names = append(names, name)
		}
	}
	rest := make([]string, 0, len(n.Properties)-len(names))
	for name := range n.Properties {
		if !listed[name] {
			rest = append(rest, name)
		}
	}
	slices.Sort(rest)
	return append(names, rest...)
}

// params returns the parameters of the object schema s, whose properties
// are at the given level.
func (d *deriver) params(s *jsonschema.Schema, level int) []Param {
	shape := objectShape{seen: map[string]bool{}, visited: map[*jsonschema.Schema]bool{}}
	d.collect(&shape, s, 0)
	required := make(map[string]bool, len(shape.required))
	for _, name := range shape.required {
		required[name] = true
		if !shape.seen[name] { // required but not described: any value
			shape.seen[name] = true
			shape.props = append(shape.props, property{name: name})
		}
	}
	if len(shape.props) == 0 {
		return nil
	}
	out := make([]Param, 0, len(shape.props))
	for _, want := range []bool{true, false} {
		for _, p := range shape.props {
			if required[p.name] != want {
				continue
			}
			if level > 1 {
				if d.nested == 0 {
					return out
				}
				d.nested--
			}
			out = append(out, d.param(p.name, p.schema, want, level, 0))
		}
	}
	return out
}

// param describes the schema s of a property at the given level; arrays
// is the number of enclosing arrays of arrays already followed.
func (d *deriver) param(name string, s *jsonschema.Schema, required bool, level, arrays int) Param {
	p := Param{Name: name, Required: required}
	if s == nil {
		return p
	}
	p.Types = d.typesOf(s)
	p.Description = d.description(s)
	chain := d.chain(s)
	for _, n := range chain {
		if p.Default == nil && len(n.Default) > 0 {
			p.Default = compactJSON(n.Default)
		}
		if p.Enum == nil {
			p.Enum = enumValues(n)
		}
		if p.Format == "" {
			p.Format = n.Format
		}
		p.Deprecated = p.Deprecated || n.Deprecated
	}
	if slices.Contains(p.Types, "array") && arrays < maxItemsNesting {
		for _, n := range chain {
			if n.Items != nil {
				items := d.param("", n.Items, false, level, arrays+1)
				p.Items = &items
				break
			}
		}
	}
	if slices.Contains(p.Types, "object") && level < maxParamLevel && d.nested > 0 {
		p.Properties = d.params(s, level+1)
	}
	return p
}

// enumValues returns n's allowed values as compact JSON, or nil when n
// restricts none.
func enumValues(n *jsonschema.Schema) []json.RawMessage {
	values := n.Enum
	if n.Const != nil {
		values = []any{*n.Const}
	}
	if values == nil {
		return nil
	}
	out := make([]json.RawMessage, 0, len(values))
	for _, v := range values {
		if raw, err := json.Marshal(v); err == nil {
			out = append(out, raw)
		}
	}
	return out
}

// compactJSON returns raw without insignificant spaces.
func compactJSON(raw []byte) json.RawMessage {
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return json.RawMessage(bytes.Clone(raw))
	}
	return buf.Bytes()
}

// uniqueStrings drops repeated strings, keeping the first of each.
func uniqueStrings(in []string) []string {
	if len(in) < 2 {
		return in
	}
	out := in[:0:0]
	for _, s := range in {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// Clone returns a deep copy of info; it returns nil for nil.
func (info *SchemaInfo) Clone() *SchemaInfo {
	if info == nil {
		return nil
	}
	return &SchemaInfo{
		Types:       slices.Clone(info.Types),
		Description: info.Description,
		Params:      cloneParams(info.Params),
		Required:    slices.Clone(info.Required),
	}
}

func cloneParams(in []Param) []Param {
	if in == nil {
		return nil
	}
	out := make([]Param, len(in))
	for i := range in {
		out[i] = in[i].clone()
	}
	return out
}

func (p *Param) clone() Param {
	c := *p
	c.Types = slices.Clone(p.Types)
	c.Default = bytes.Clone(p.Default)
	if p.Enum != nil {
		c.Enum = make([]json.RawMessage, len(p.Enum))
		for i, v := range p.Enum {
			c.Enum[i] = bytes.Clone(v)
		}
	}
	if p.Items != nil {
		items := p.Items.clone()
		c.Items = &items
	}
	c.Properties = cloneParams(p.Properties)
	return c
}

// orderTree records, for one schema document, the order in which each
// "properties" object lists its keys, which decoding into a
// jsonschema.Schema loses. It mirrors only the keywords that hold
// sub-schemas; JSON decoding fills the exported fields.
type orderTree struct {
	Defs                 map[string]*orderTree `json:"$defs"`
	Definitions          map[string]*orderTree `json:"definitions"`
	PatternProperties    map[string]*orderTree `json:"patternProperties"`
	DependentSchemas     map[string]*orderTree `json:"dependentSchemas"`
	AllOf                []*orderTree          `json:"allOf"`
	AnyOf                []*orderTree          `json:"anyOf"`
	OneOf                []*orderTree          `json:"oneOf"`
	PrefixItems          []*orderTree          `json:"prefixItems"`
	AdditionalProperties *orderTree            `json:"additionalProperties"`
	Not                  *orderTree            `json:"not"`
	If                   *orderTree            `json:"if"`
	Then                 *orderTree            `json:"then"`
	Else                 *orderTree            `json:"else"`
	Contains             *orderTree            `json:"contains"`

	props      []string              // keys of "properties", in order
	properties map[string]*orderTree // values of "properties"
	items      *orderTree            // "items" as one schema
	itemsArray []*orderTree          // "items" as an array (draft-07)
}

// UnmarshalJSON records the key order of a schema object. Any other JSON
// value (a boolean schema) yields an empty tree.
func (o *orderTree) UnmarshalJSON(data []byte) error {
	if len(data) == 0 || data[0] != '{' {
		return nil
	}
	type plain orderTree // the same fields without this method
	aux := struct {
		*plain
		Properties json.RawMessage `json:"properties"`
		Items      json.RawMessage `json:"items"`
	}{plain: (*plain)(o)}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	o.props, o.properties = orderedObject(aux.Properties)
	if len(aux.Items) > 0 && aux.Items[0] == '[' {
		return json.Unmarshal(aux.Items, &o.itemsArray)
	}
	if len(aux.Items) > 0 {
		o.items = new(orderTree)
		return json.Unmarshal(aux.Items, o.items)
	}
	return nil
}

// orderedObject returns the keys of a JSON object in document order, and
// the order tree of each value. It returns nils for anything else.
func orderedObject(raw json.RawMessage) ([]string, map[string]*orderTree) {
	if len(raw) == 0 {
		return nil, nil
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return nil, nil
	}
	var keys []string
	subs := map[string]*orderTree{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, nil
		}
		key, _ := tok.(string)
		sub := new(orderTree)
		if dec.Decode(sub) != nil {
			return nil, nil
		}
		if _, dup := subs[key]; !dup {
			keys = append(keys, key)
		}
		subs[key] = sub
	}
	return keys, subs
}

// apply sets PropertyOrder throughout s, which must have been decoded from
// the same document as o, wherever s does not have one yet.
func (o *orderTree) apply(s *jsonschema.Schema) {
	if s == nil || o == nil {
		return
	}
	if s.PropertyOrder == nil {
		s.PropertyOrder = o.props
	}
	applyNamed(o.properties, s.Properties)
	applyNamed(o.Defs, s.Defs)
	applyNamed(o.Definitions, s.Definitions)
	applyNamed(o.PatternProperties, s.PatternProperties)
	applyNamed(o.DependentSchemas, s.DependentSchemas)
	applyList(o.AllOf, s.AllOf)
	applyList(o.AnyOf, s.AnyOf)
	applyList(o.OneOf, s.OneOf)
	applyList(o.PrefixItems, s.PrefixItems)
	applyList(o.itemsArray, s.ItemsArray)
	o.items.apply(s.Items)
	o.AdditionalProperties.apply(s.AdditionalProperties)
	o.Not.apply(s.Not)
	o.If.apply(s.If)
	o.Then.apply(s.Then)
	o.Else.apply(s.Else)
	o.Contains.apply(s.Contains)
}

func applyNamed(order map[string]*orderTree, schemas map[string]*jsonschema.Schema) {
	for name, s := range schemas {
		order[name].apply(s)
	}
}

func applyList(order []*orderTree, schemas []*jsonschema.Schema) {
	for i, s := range schemas {
		if i < len(order) {
			order[i].apply(s)
		}
	}
}
