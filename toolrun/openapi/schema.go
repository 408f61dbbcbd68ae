package openapi

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// direction says which way a schema's data goes: a request drops the
// properties marked readOnly, a response those marked writeOnly.
type direction int

const (
	request direction = iota
	response
)

// maxSteps bounds the schema nodes one conversion may produce while it
// inlines references. Past it, the converter stops inlining and puts every
// referenced schema in $defs once, which is linear in the document's size:
// a document whose references fan out (A has ten properties of type B,
// which has ten of type C, ...) would otherwise grow exponentially.
const maxSteps = 20000

// Errors that make a conversion start over with what it learnt.
var (
	errRecursive = errors.New("recursive reference found")
	errTooLarge  = errors.New("inlined schema too large")
)

// converter turns the schemas of one OpenAPI document into self-contained
// JSON Schemas (2020-12) for tool definitions. References inside the
// document are inlined, except recursive ones, which become references to
// a "$defs" entry of the tool's schema. OpenAPI 3.0's dialect is
// translated: nullable becomes a "null" type, boolean exclusiveMinimum and
// exclusiveMaximum become numbers, example becomes examples; OpenAPI-only
// keywords (discriminator, xml, externalDocs, extensions) are dropped.
//
// One converter serves one tool schema (the input or the output), so that
// all its parts share one "$defs".
type converter struct {
	doc  any  // the whole document as JSON, for resolving references
	v30  bool // OpenAPI 3.0: keywords beside a $ref are ignored
	dir  direction
	refs map[string]bool // references known to be recursive

	allDefs bool // put every reference in $defs instead of inlining
	steps   int
	defs    map[string]any    // $defs name -> converted schema
	names   map[string]string // reference -> $defs name
}

func newConverter(doc any, v30 bool, dir direction) *converter {
	return &converter{doc: doc, v30: v30, dir: dir, refs: map[string]bool{}}
}

// convertAll converts schemas, given as JSON (nil for none), and returns
// them in order with the "$defs" they share.
func (c *converter) convertAll(schemas []any) ([]any, map[string]any, error) {
	for {
		c.steps = 0
		c.defs, c.names = map[string]any{}, map[string]string{}
		out := make([]any, len(schemas))
		var err error
		for i, s := range schemas {
			if s == nil {
				continue
			}
			if out[i], err = c.walk(s, nil); err != nil {
				break
			}
		}
		switch {
		case err == nil:
			return out, c.defs, nil
		case errors.Is(err, errRecursive):
			// c.refs has grown: try again with it. This happens at most
			// once per reference of the document.
		case errors.Is(err, errTooLarge) && !c.allDefs:
			c.allDefs = true
		default:
			return nil, nil, err
		}
	}
}

// Keywords whose value is a schema, a list of schemas, or a map of them.
var (
	schemaKeys    = []string{"items", "additionalProperties", "not", "if", "then", "else", "contains", "propertyNames", "unevaluatedItems", "unevaluatedProperties", "additionalItems"}
	schemaListKey = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	schemaMapKeys = []string{"properties", "patternProperties", "dependentSchemas"}
	// droppedKeys are OpenAPI-only keywords and JSON Schema keywords that
	// would not mean the same once the schema is moved into a tool.
	droppedKeys = []string{"discriminator", "xml", "externalDocs", "$id", "$schema", "$anchor", "$dynamicAnchor", "$dynamicRef", "$defs", "definitions", "$comment", "nullable", "example"}
	// annotationKeys may sit beside a $ref in any version and describe the
	// use of the referenced schema rather than constrain it.
	annotationKeys = []string{"description", "title", "deprecated", "readOnly", "writeOnly", "default", "examples", "example"}
)

// walk converts one schema. stack holds the references being inlined.
func (c *converter) walk(node any, stack []string) (any, error) {
	c.steps++
	if c.steps > maxSteps && !c.allDefs {
		return nil, errTooLarge
	}
	switch s := node.(type) {
	case bool:
		return s, nil
	case map[string]any:
		if ref, ok := s["$ref"].(string); ok {
			return c.ref(ref, s, stack)
		}
		out, err := c.object(s, stack)
		if err != nil {
			return nil, err
		}
		return nullable(s, out), nil
	}
	return nil, fmt.Errorf("a schema must be an object or a boolean, not %s", toolmodel.JSONKindPhrase(node))
}

// object converts a schema object without $ref.
func (c *converter) object(s map[string]any, stack []string) (map[string]any, error) {
	out := make(map[string]any, len(s))
	for key, value := range s {
		var err error
		switch {
		case strings.HasPrefix(key, "x-"), slices.Contains(droppedKeys, key):
		case slices.Contains(schemaKeys, key):
			out[key], err = c.walk(value, stack)
		case slices.Contains(schemaListKey, key):
			out[key], err = c.list(value, stack)
		case slices.Contains(schemaMapKeys, key):
			out[key], err = c.mapOf(value, stack)
		default:
			out[key] = value
		}
		if err != nil {
			return nil, err
		}
	}
	translate(s, out)
	if props, ok := out["properties"].(map[string]any); ok {
		c.dropOneWay(out, props)
	}
	return out, nil
}

func (c *converter) list(value any, stack []string) ([]any, error) {
	items, ok := value.([]any)
	if !ok {
		return nil, fmt.Errorf("expected a list of schemas, not %s", toolmodel.JSONKindPhrase(value))
	}
	out := make([]any, len(items))
	for i, item := range items {
		var err error
		if out[i], err = c.walk(item, stack); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (c *converter) mapOf(value any, stack []string) (map[string]any, error) {
	m, ok := value.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("expected a map of schemas, not %s", toolmodel.JSONKindPhrase(value))
	}
	out := make(map[string]any, len(m))
	for name, item := range m {
		var err error
		if out[name], err = c.walk(item, stack); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// translate rewrites OpenAPI 3.0's variants of JSON Schema keywords in
// out, the converted copy of s. Documents that claim 3.1 but still use
// them get the same treatment, as their authors meant the same.
func translate(s, out map[string]any) {
	if s["nullable"] == true {
		switch t := out["type"].(type) {
		case string:
			out["type"] = []any{t, "null"}
		case []any:
			if !slices.Contains(t, any("null")) {
				out["type"] = append(slices.Clone(t), "null")
			}
		}
		if enum, ok := out["enum"].([]any); ok && !slices.Contains(enum, nil) {
			out["enum"] = append(slices.Clone(enum), nil)
		}
	}
	for _, bound := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		exclusive, ok := out[bound[0]].(bool)
		if !ok {
			continue
		}
		delete(out, bound[0])
		if limit, ok := out[bound[1]]; ok && exclusive {
			out[bound[0]] = limit
			delete(out, bound[1])
		}
	}
	if example, ok := s["example"]; ok {
		if _, has := out["examples"]; !has {
			out["examples"] = []any{example}
		}
	}
}

// nullable returns out, the converted copy of s, accepting null when s is
// nullable but has no "type" to add "null" to (translate did that) and a
// keyword that refuses null, such as OpenAPI 3.0's idiom
// {allOf: [{$ref: ...}], nullable: true}.
func nullable(s, out map[string]any) any {
	if s["nullable"] != true {
		return out
	}
	if _, typed := out["type"]; typed {
		return out
	}
	if all, ok := out["allOf"].([]any); ok && len(all) == 1 {
		rest := make(map[string]any, len(out))
		for k, v := range out {
			rest[k] = v
		}
		delete(rest, "allOf")
		if onlyAnnotations(rest) {
			// {allOf: [S], nullable: true} is the 3.0 way of saying
			// "S or null", which 3.1 says {anyOf: [S, {type: null}]}.
			rest["anyOf"] = []any{all[0], map[string]any{"type": "null"}}
			return rest
		}
	}
	for _, key := range []string{"allOf", "anyOf", "oneOf", "not", "const"} {
		if _, ok := out[key]; ok {
			return map[string]any{"anyOf": []any{out, map[string]any{"type": "null"}}}
		}
	}
	return out
}

// dropOneWay removes from an object schema the properties that do not go
// in its direction (readOnly ones from requests, writeOnly ones from
// responses), and their names from "required".
func (c *converter) dropOneWay(out, props map[string]any) {
	marker := "readOnly"
	if c.dir == response {
		marker = "writeOnly"
	}
	var dropped []string
	for name, p := range props {
		if ps, ok := p.(map[string]any); ok && ps[marker] == true {
			dropped = append(dropped, name)
		}
	}
	if len(dropped) == 0 {
		return
	}
	kept := make(map[string]any, len(props)-len(dropped))
	for name, p := range props {
		if !slices.Contains(dropped, name) {
			kept[name] = p
		}
	}
	out["properties"] = kept
	if req, ok := out["required"].([]any); ok {
		out["required"] = slices.DeleteFunc(slices.Clone(req), func(name any) bool {
			s, _ := name.(string)
			return slices.Contains(dropped, s)
		})
	}
}

// ref converts a schema with a $ref: the referenced schema inlined, or a
// reference to it in $defs when it is recursive, with the keywords beside
// the $ref applied.
func (c *converter) ref(ref string, s map[string]any, stack []string) (any, error) {
	siblings, err := c.siblings(s, stack)
	if err != nil {
		return nil, err
	}
	if c.allDefs || c.refs[ref] {
		name, err := c.define(ref)
		if err != nil {
			return nil, err
		}
		out := map[string]any{"$ref": "#/$defs/" + name}
		for k, v := range siblings {
			out[k] = v
		}
		return out, nil
	}
	if slices.Contains(stack, ref) {
		c.refs[ref] = true
		return nil, errRecursive
	}
	target, err := c.lookup(ref)
	if err != nil {
		return nil, err
	}
	resolved, err := c.walk(target, append(stack, ref))
	if err != nil || len(siblings) == 0 {
		return resolved, err
	}
	if m, ok := resolved.(map[string]any); ok && onlyAnnotations(siblings) {
		out := make(map[string]any, len(m)+len(siblings))
		for k, v := range m {
			out[k] = v
		}
		for k, v := range siblings {
			out[k] = v
		}
		return out, nil
	}
	out := map[string]any{"allOf": []any{resolved}}
	for k, v := range siblings {
		out[k] = v
	}
	return out, nil
}

// siblings converts the keywords beside a $ref: in OpenAPI 3.0 only the
// annotations, which help a reader even though the version ignores them,
// in 3.1 all of them.
func (c *converter) siblings(s map[string]any, stack []string) (map[string]any, error) {
	rest := make(map[string]any, len(s))
	for k, v := range s {
		if k != "$ref" && (!c.v30 || slices.Contains(annotationKeys, k)) {
			rest[k] = v
		}
	}
	if len(rest) == 0 {
		return nil, nil
	}
	return c.object(rest, stack)
}

func onlyAnnotations(m map[string]any) bool {
	for k := range m {
		if !slices.Contains(annotationKeys, k) {
			return false
		}
	}
	return true
}

// define makes sure the schema ref points to is in $defs and returns its
// name there.
func (c *converter) define(ref string) (string, error) {
	if name, ok := c.names[ref]; ok {
		return name, nil
	}
	name := defName(ref, c.defs)
	c.names[ref] = name
	c.defs[name] = true // reserves the name while the schema is converted
	target, err := c.lookup(ref)
	if err != nil {
		return "", err
	}
	def, err := c.walk(target, []string{ref})
	if err != nil {
		return "", err
	}
	c.defs[name] = def
	return name, nil
}

// defName returns a $defs name for ref, its last segment made a valid
// name, unique among defs.
func defName(ref string, defs map[string]any) string {
	base := sanitizeName(ref[strings.LastIndexByte(ref, '/')+1:])
	if base == "" {
		base = "schema"
	}
	name := base
	for i := 2; ; i++ {
		if _, taken := defs[name]; !taken {
			return name
		}
		name = base + "_" + strconv.Itoa(i)
	}
}

// lookup returns the JSON value a local reference ("#/components/...")
// points to in the document.
func (c *converter) lookup(ref string) (any, error) {
	fragment, ok := strings.CutPrefix(ref, "#")
	if !ok {
		return nil, fmt.Errorf("$ref %q is outside the document, which is not supported", ref)
	}
	fragment, err := url.PathUnescape(fragment)
	if err != nil || !strings.HasPrefix(fragment, "/") {
		return nil, fmt.Errorf("$ref %q is not a JSON pointer into the document", ref)
	}
	node := c.doc
	for _, token := range strings.Split(fragment[1:], "/") {
		token = strings.ReplaceAll(strings.ReplaceAll(token, "~1", "/"), "~0", "~")
		switch n := node.(type) {
		case map[string]any:
			node, ok = n[token]
		case []any:
			i, err := strconv.Atoi(token)
			ok = err == nil && i >= 0 && i < len(n)
			if ok {
				node = n[i]
			}
		default:
			ok = false
		}
		if !ok {
			return nil, fmt.Errorf("$ref %q points to nothing", ref)
		}
	}
	return node, nil
}

// rootOf returns a converted schema that is a mere reference to $defs as
// the definition it refers to, so that the top of a tool's schema shows
// its type and properties. Inner references still point to $defs.
func rootOf(schema any, defs map[string]any) any {
	m, ok := schema.(map[string]any)
	if !ok {
		return schema
	}
	ref, ok := m["$ref"].(string)
	name, isDef := strings.CutPrefix(ref, "#/$defs/")
	if !ok || !isDef {
		return schema
	}
	def, ok := defs[name].(map[string]any)
	if !ok {
		return schema
	}
	out := make(map[string]any, len(def)+len(m))
	for k, v := range def {
		out[k] = v
	}
	for k, v := range m {
		if k != "$ref" {
			out[k] = v
		}
	}
	return out
}
