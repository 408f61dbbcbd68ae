package toolmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"

	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
)

// A Tool and a ToolBackend have one form: their JSON. Their YAML form is
// the same document written as YAML, so that a tools file in YAML holds
// exactly what one in JSON would, and both decode to equal values. The
// conversion goes through JSON in both directions, so the JSON methods
// (schemas kept as compact raw JSON, durations as "1.5s", ...) are the
// only ones that define the fields.

var (
	_ yaml.Marshaler   = Tool{}
	_ yaml.Unmarshaler = (*Tool)(nil)
	_ yaml.Marshaler   = ToolBackend{}
	_ yaml.Unmarshaler = (*ToolBackend)(nil)
)

// MarshalYAML writes the tool as its JSON form in YAML: the same keys in
// the same order, numbers written as in the JSON (a schema's large
// integer keeps every digit).
func (t Tool) MarshalYAML() (any, error) {
	return yamlViaJSON(t)
}

// UnmarshalYAML reads a tool from YAML holding its JSON form (an MCP tool
// object with metatools' extension fields), as [Tool.UnmarshalJSON] does.
// Like it, it does not validate the tool: call [Tool.Validate].
func (t *Tool) UnmarshalYAML(node *yaml.Node) error {
	raw, err := yamlToJSON(node)
	if err != nil {
		return err
	}
	if err := t.UnmarshalJSON(raw); err != nil {
		return yamlError(node, err)
	}
	return nil
}

// MarshalYAML writes the backend as its JSON form in YAML.
func (b ToolBackend) MarshalYAML() (any, error) {
	return yamlViaJSON(b)
}

// UnmarshalYAML reads a backend from YAML holding its JSON form. Like
// JSON decoding, it does not validate the backend: call
// [ToolBackend.Validate].
func (b *ToolBackend) UnmarshalYAML(node *yaml.Node) error {
	raw, err := yamlToJSON(node)
	if err != nil {
		return err
	}
	type plain ToolBackend // the same fields, without the YAML methods
	var out plain
	if err := json.Unmarshal(raw, &out); err != nil {
		return yamlError(node, err)
	}
	*b = ToolBackend(out)
	return nil
}

// yamlViaJSON returns the YAML node of v's JSON form.
func yamlViaJSON(v any) (*yaml.Node, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	return jsonToYAML(dec)
}

// jsonToYAML reads one JSON value from dec and returns it as a YAML node,
// keeping the order of object members and the text of numbers.
func jsonToYAML(dec *json.Decoder) (*yaml.Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch x := tok.(type) {
	case json.Delim:
		node := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map"}
		end := json.Delim('}')
		if x == '[' {
			node.Kind, node.Tag, end = yaml.SequenceNode, "!!seq", ']'
		}
		for dec.More() {
			if node.Kind == yaml.MappingNode {
				key, err := dec.Token()
				if err != nil {
					return nil, err
				}
				node.Content = append(node.Content, &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: key.(string)})
			}
			child, err := jsonToYAML(dec)
			if err != nil {
				return nil, err
			}
			node.Content = append(node.Content, child)
		}
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		if tok != end {
			return nil, fmt.Errorf("unbalanced JSON: %v instead of %v", tok, end)
		}
		return node, nil
	case string:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: x}, nil
	case json.Number:
		tag := "!!float"
		if isIntegerText(string(x)) {
			tag = "!!int"
		}
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: string(x)}, nil
	case bool:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(x)}, nil
	case nil:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok)
}

// isIntegerText reports whether a JSON number is written without fraction
// or exponent, however large.
func isIntegerText(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c == '.' || c == 'e' || c == 'E' {
			return false
		}
	}
	return true
}

// maxYAMLNodes bounds the nodes a YAML document may expand to through its
// aliases, so that a small document cannot blow up into a huge value.
const maxYAMLNodes = 100_000

// yamlToJSON returns the JSON text of a YAML node. Mapping keys must be
// scalars; numbers must be finite; aliases are followed within
// [maxYAMLNodes]; merge keys ("<<") are refused. Errors have code
// [errors.InvalidArgument] and name the line of the offending node.
func yamlToJSON(node *yaml.Node) ([]byte, error) {
	var buf bytes.Buffer
	budget := maxYAMLNodes
	if err := writeYAMLAsJSON(&buf, node, &budget, 0); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// maxYAMLDepth bounds the nesting of a YAML document.
const maxYAMLDepth = 1000

func writeYAMLAsJSON(buf *bytes.Buffer, node *yaml.Node, budget *int, depth int) error {
	*budget--
	if *budget < 0 {
		return yamlError(node, fmt.Errorf("the document expands to more than %d values", maxYAMLNodes))
	}
	if depth > maxYAMLDepth {
		return yamlError(node, fmt.Errorf("the document nests more than %d levels deep", maxYAMLDepth))
	}
	switch node.Kind {
	case yaml.DocumentNode:
		if len(node.Content) == 0 {
			buf.WriteString("null")
			return nil
		}
		return writeYAMLAsJSON(buf, node.Content[0], budget, depth+1)
	case yaml.AliasNode:
		if node.Alias == nil {
			return yamlError(node, fmt.Errorf("alias %q has no anchor", node.Value))
		}
		return writeYAMLAsJSON(buf, node.Alias, budget, depth+1)
	case yaml.SequenceNode:
		buf.WriteByte('[')
		for i, child := range node.Content {
			if i > 0 {
				buf.WriteByte(',')
			}
			if err := writeYAMLAsJSON(buf, child, budget, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte(']')
		return nil
	case yaml.MappingNode:
		buf.WriteByte('{')
		seen := make(map[string]bool, len(node.Content)/2)
		for i := 0; i+1 < len(node.Content); i += 2 {
			keyNode, value := node.Content[i], node.Content[i+1]
			if keyNode.Kind == yaml.AliasNode && keyNode.Alias != nil {
				keyNode = keyNode.Alias
			}
			if keyNode.Kind != yaml.ScalarNode {
				return yamlError(keyNode, errors.New("a mapping key must be a scalar"))
			}
			if keyNode.ShortTag() == "!!merge" {
				return yamlError(keyNode, errors.New("merge keys (<<) are not supported"))
			}
			if seen[keyNode.Value] {
				return yamlError(keyNode, fmt.Errorf("mapping key %q appears twice", keyNode.Value))
			}
			seen[keyNode.Value] = true
			if i > 0 {
				buf.WriteByte(',')
			}
			key, _ := json.Marshal(keyNode.Value) // a string always encodes
			buf.Write(key)
			buf.WriteByte(':')
			if err := writeYAMLAsJSON(buf, value, budget, depth+1); err != nil {
				return err
			}
		}
		buf.WriteByte('}')
		return nil
	case yaml.ScalarNode:
		return writeScalar(buf, node)
	}
	return yamlError(node, fmt.Errorf("unknown YAML node kind %d", node.Kind))
}

// writeScalar writes a YAML scalar as the JSON value it resolves to.
func writeScalar(buf *bytes.Buffer, node *yaml.Node) error {
	switch node.ShortTag() {
	case "!!null":
		buf.WriteString("null")
		return nil
	case "!!bool":
		var b bool
		if err := node.Decode(&b); err != nil {
			return yamlError(node, err)
		}
		buf.WriteString(strconv.FormatBool(b))
		return nil
	case "!!int", "!!float":
		return writeNumber(buf, node)
	case "!!str":
		s, _ := json.Marshal(node.Value) // a string always encodes
		buf.Write(s)
		return nil
	}
	// Other tags (!!binary, !!timestamp, custom ones) have no JSON type of
	// their own: their decoded value goes through its JSON form.
	var v any
	if err := node.Decode(&v); err != nil {
		return yamlError(node, err)
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return yamlError(node, fmt.Errorf("%q is not a JSON value: %w", node.Value, err))
	}
	buf.Write(raw)
	return nil
}

// writeNumber writes a YAML number as JSON: a decimal integer or float is
// written as it is (keeping every digit), other forms (0x1F, 1_000, +5)
// as the value YAML gives them; infinities and NaN are refused.
func writeNumber(buf *bytes.Buffer, node *yaml.Node) error {
	if json.Valid([]byte(node.Value)) {
		var n json.Number
		if json.Unmarshal([]byte(node.Value), &n) == nil {
			buf.WriteString(node.Value)
			return nil
		}
	}
	var v any
	if err := node.Decode(&v); err != nil {
		return yamlError(node, err)
	}
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return yamlError(node, fmt.Errorf("%s is not a JSON value", node.Value))
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return yamlError(node, fmt.Errorf("%s is not a JSON value: %w", node.Value, err))
	}
	buf.Write(raw)
	return nil
}

// yamlError returns err as an invalid-argument error naming the node's
// line and column.
func yamlError(node *yaml.Node, err error) error {
	e := errors.Errorf(errors.InvalidArgument, "yaml line %d column %d: %w", node.Line, node.Column, err)
	e.Op = "toolmodel.UnmarshalYAML"
	return e
}
