package tooldocs

import (
	"encoding/json"
	"math"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/toolmodel"
)

// decodeLenient decodes a schema as decodeOrdered does and, when that
// fails because keywords have values of the wrong JSON type (draft-04's
// boolean exclusiveMinimum, draft-03's boolean required, a string where a
// number belongs), decodes it again without them: one malformed keyword
// should not cost a whole tool its documentation. It fails only when the
// schema is not a JSON object or boolean at all.
func decodeLenient(schema any) (*jsonschema.Schema, error) {
	s, err := decodeOrdered(schema)
	if err == nil {
		return s, nil
	}
	raw, rerr := toolmodel.SchemaJSON(schema)
	if rerr != nil {
		return nil, err
	}
	var tree any
	if json.Unmarshal(raw, &tree) != nil {
		return nil, err
	}
	repaired, merr := json.Marshal(repairSchema(tree, 0))
	if merr != nil {
		return nil, err
	}
	s, derr := toolmodel.DecodeSchema(json.RawMessage(repaired))
	if derr != nil {
		return nil, err
	}
	var order orderTree
	if json.Unmarshal(raw, &order) == nil {
		order.apply(s)
	}
	return s, nil
}

// The keywords repairSchema checks, by the shape of their value.
var (
	schemaKeywords = []string{
		"additionalProperties", "not", "if", "then", "else", "contains", "additionalItems",
		"propertyNames", "unevaluatedItems", "unevaluatedProperties", "contentSchema",
	}
	schemaMapKeywords  = []string{"properties", "$defs", "definitions", "patternProperties", "dependentSchemas"}
	schemaListKeywords = []string{"allOf", "anyOf", "oneOf", "prefixItems"}
	numberKeywords     = []string{"minimum", "maximum", "multipleOf"}
	countKeywords      = []string{
		"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "minContains", "maxContains",
	}
	stringKeywords = []string{
		"$id", "$schema", "$ref", "$comment", "$anchor", "$dynamicAnchor", "$dynamicRef",
		"title", "description", "pattern", "format", "contentEncoding", "contentMediaType",
	}
	boolKeywords = []string{"deprecated", "readOnly", "writeOnly", "uniqueItems"}
)

// repairSchema returns a decoded JSON schema with the keywords whose values
// have the wrong shape removed, recursively; draft-04's boolean
// exclusiveMinimum and exclusiveMaximum become the numeric form.
func repairSchema(v any, depth int) any {
	m, ok := v.(map[string]any)
	if !ok || depth > maxTSDepth {
		if _, isBool := v.(bool); isBool {
			return v
		}
		return map[string]any{}
	}
	for _, bound := range [][2]string{{"exclusiveMinimum", "minimum"}, {"exclusiveMaximum", "maximum"}} {
		switch x := m[bound[0]].(type) {
		case float64, nil:
		case bool:
			delete(m, bound[0])
			if n, isNum := m[bound[1]].(float64); x && isNum {
				m[bound[0]] = n
				delete(m, bound[1])
			}
		default:
			delete(m, bound[0])
		}
	}
	for _, k := range numberKeywords {
		if _, isNum := m[k].(float64); !isNum {
			delete(m, k)
		}
	}
	for _, k := range countKeywords {
		if n, isNum := m[k].(float64); !isNum || n != math.Trunc(n) || n < 0 || n > math.MaxInt32 {
			delete(m, k)
		}
	}
	for _, k := range stringKeywords {
		if _, isStr := m[k].(string); !isStr {
			delete(m, k)
		}
	}
	for _, k := range boolKeywords {
		if _, isBool := m[k].(bool); !isBool {
			delete(m, k)
		}
	}
	if !stringList(m["required"]) {
		delete(m, "required")
	}
	for _, k := range []string{"enum", "examples"} {
		if _, isList := m[k].([]any); !isList {
			delete(m, k)
		}
	}
	switch t := m["type"].(type) {
	case string:
	case []any:
		if !stringList(t) {
			delete(m, "type")
		}
	default:
		delete(m, "type")
	}
	for _, k := range schemaKeywords {
		if sub, present := m[k]; present {
			m[k] = repairSchema(sub, depth+1)
		}
	}
	if items, present := m["items"]; present {
		if list, isList := items.([]any); isList {
			for i := range list {
				list[i] = repairSchema(list[i], depth+1)
			}
		} else {
			m["items"] = repairSchema(items, depth+1)
		}
	}
	for _, k := range schemaMapKeywords {
		sub, isMap := m[k].(map[string]any)
		if !isMap {
			delete(m, k)
			continue
		}
		for name, s := range sub {
			sub[name] = repairSchema(s, depth+1)
		}
	}
	for _, k := range schemaListKeywords {
		list, isList := m[k].([]any)
		if !isList {
			delete(m, k)
			continue
		}
		for i := range list {
			list[i] = repairSchema(list[i], depth+1)
		}
	}
	if deps, isMap := m["dependencies"].(map[string]any); isMap {
		for name, d := range deps {
			if !stringList(d) {
				deps[name] = repairSchema(d, depth+1)
			}
		}
	} else {
		delete(m, "dependencies")
	}
	if req, isMap := m["dependentRequired"].(map[string]any); isMap {
		for name, d := range req {
			if !stringList(d) {
				delete(req, name)
			}
		}
	} else {
		delete(m, "dependentRequired")
	}
	if voc, isMap := m["$vocabulary"].(map[string]any); isMap {
		for name, b := range voc {
			if _, isBool := b.(bool); !isBool {
				delete(voc, name)
			}
		}
	} else {
		delete(m, "$vocabulary")
	}
	return m
}

// stringList reports whether v is a JSON array of strings, or absent.
func stringList(v any) bool {
	if v == nil {
		return true
	}
	list, ok := v.([]any)
	if !ok {
		return false
	}
	for _, e := range list {
		if _, isStr := e.(string); !isStr {
			return false
		}
	}
	return true
}
