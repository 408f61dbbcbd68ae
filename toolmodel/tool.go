package toolmodel

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// MaxNameLen is the longest allowed tool name or namespace.
const MaxNameLen = 128

// Tool is the definition of a tool: an MCP tool plus the fields metatools
// adds to organise large catalogues. It is plain data; it never holds the
// code or connection that executes the tool (see [ToolBackend]).
//
// Its JSON form is the MCP tool object with the extra fields "namespace",
// "version", "tags" and "metadata" beside the MCP ones, so any MCP tool JSON
// is a valid Tool, and a Tool survives a JSON round trip unchanged. (The
// go-sdk writes the annotation hints readOnlyHint and idempotentHint even
// when false, which MCP defines as their default: the meaning is unchanged.)
// Its YAML form is the same document ([Tool.MarshalYAML],
// [Tool.UnmarshalYAML]), so it survives a YAML round trip as well.
//
// When a Tool is decoded from JSON, its input and output schemas are kept as
// compact [json.RawMessage] values: no number loses precision, and
// validators cache them by content cheaply. In Meta and Metadata, a number
// is a float64, as encoding/json decodes it, unless a float64 would round
// it (an integer beyond 2^53, say): that one is a [json.Number], so that it
// encodes again as written. Code that builds tools may set
// the schemas to any value that marshals to a JSON Schema (a
// *jsonschema.Schema, a map[string]any, ...); use [DecodeSchema] to read a
// schema whatever its form.
type Tool struct {
	mcp.Tool

	// Namespace groups tools, typically by the server or API they come from.
	// It follows the same rules as a name and may be empty.
	Namespace string `json:"namespace,omitempty"`
	// Version is the tool's version, free-form (for example "1.2.0").
	Version string `json:"version,omitempty"`
	// Tags are search keywords; see [NormalizeTags].
	Tags []string `json:"tags,omitempty"`
	// Metadata holds any other JSON-serializable facts about the tool.
	Metadata map[string]any `json:"metadata,omitempty"`
}

// ID returns the tool's ID: "namespace:name", or the name alone when the
// namespace is empty.
func (t *Tool) ID() string { return ToolID(t.Namespace, t.Name) }

// ToolID returns the ID of the tool with the given namespace and name:
// "namespace:name", or name when namespace is empty.
func ToolID(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + ":" + name
}

// ParseToolID splits a tool ID into its namespace and name and checks both
// against the name rules ([ValidateName]). An ID without a colon has an
// empty namespace. Errors have code [errors.InvalidArgument].
func ParseToolID(id string) (namespace, name string, err error) {
	namespace, name, found := strings.Cut(id, ":")
	if !found {
		namespace, name = "", id
	}
	if found {
		if err := ValidateName(namespace); err != nil {
			return "", "", idError(id, fmt.Errorf("namespace: %w", err))
		}
	}
	if err := ValidateName(name); err != nil {
		return "", "", idError(id, fmt.Errorf("name: %w", err))
	}
	return namespace, name, nil
}

func idError(id string, err error) error {
	e := errors.E(errors.InvalidArgument, fmt.Errorf("tool ID %q: %w", id, err))
	e.Op = "toolmodel.ParseToolID"
	return e
}

// ValidateName reports whether s is a valid tool name or namespace: 1 to
// [MaxNameLen] bytes, each an ASCII letter, digit, '_', '.' or '-'. The
// error explains what is wrong.
func ValidateName(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	if len(s) > MaxNameLen {
		return fmt.Errorf("%d bytes long, the limit is %d", len(s), MaxNameLen)
	}
	for i := 0; i < len(s); i++ {
		if !nameByte(s[i]) {
			// A character beyond ASCII is named whole, not by its first
			// byte ("é", not "Ã").
			what := fmt.Sprintf("byte %q", s[i])
			if s[i] >= utf8.RuneSelf {
				what = fmt.Sprintf("byte %#x", s[i])
				if r, size := utf8.DecodeRuneInString(s[i:]); size > 1 {
					what = fmt.Sprintf("character %q", r)
				}
			}
			return fmt.Errorf("%s at offset %d: only ASCII letters, digits, '_', '.' and '-' are allowed", what, i)
		}
	}
	return nil
}

func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == '-'
}

// Validate reports whether t is a well-formed tool definition: a valid name
// and namespace, an input schema that is a JSON object whose "type", if
// set, is "object" (as MCP requires), an output schema that is a JSON object
// if set, and tags in normal form. Every problem found is listed in the
// error, which has code [errors.InvalidArgument].
func (t *Tool) Validate() error {
	var problems []string
	if err := ValidateName(t.Name); err != nil {
		problems = append(problems, "name: "+err.Error())
	}
	if t.Namespace != "" {
		if err := ValidateName(t.Namespace); err != nil {
			problems = append(problems, "namespace: "+err.Error())
		}
	}
	if t.InputSchema == nil {
		problems = append(problems, "inputSchema: missing")
	} else if err := checkObjectSchema(t.InputSchema, true); err != nil {
		problems = append(problems, "inputSchema: "+err.Error())
	}
	if t.OutputSchema != nil {
		if err := checkObjectSchema(t.OutputSchema, false); err != nil {
			problems = append(problems, "outputSchema: "+err.Error())
		}
	}
	for i, tag := range t.Tags {
		if norm := normalizeTag(tag); norm != tag || norm == "" {
			problems = append(problems, fmt.Sprintf("tags[%d]: %q is not in normal form (see NormalizeTags)", i, tag))
		}
	}
	if len(problems) == 0 {
		return nil
	}
	e := errors.Errorf(errors.InvalidArgument, "invalid tool definition: %s", strings.Join(problems, "; "))
	e.Op = "toolmodel.Validate"
	e.ToolID = t.ID()
	return e
}

// checkObjectSchema checks that schema marshals to a JSON object and, when
// mustBeObjectType, that its "type" is absent or "object".
func checkObjectSchema(schema any, mustBeObjectType bool) error {
	raw, err := SchemaJSON(schema)
	if err != nil {
		return err
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil || obj == nil {
		return errors.New("not a JSON object")
	}
	if typ, ok := obj["type"]; ok && mustBeObjectType && !bytes.Equal(typ, []byte(`"object"`)) {
		return fmt.Errorf("type is %s, MCP requires \"object\"", typ)
	}
	return nil
}

// NormalizeTags returns tags in normal form: trimmed, lower-cased, inner
// runs of spaces replaced by '-', empty tags dropped, duplicates removed,
// sorted. It returns nil when no tag remains.
func NormalizeTags(tags []string) []string {
	var out []string
	for _, tag := range tags {
		if norm := normalizeTag(tag); norm != "" {
			out = append(out, norm)
		}
	}
	sort.Strings(out)
	return slices.Compact(out)
}

func normalizeTag(tag string) string {
	return strings.Join(strings.Fields(strings.ToLower(tag)), "-")
}

// UnmarshalJSON decodes an MCP tool object with metatools' extension
// fields, keeping the schemas as compact [json.RawMessage]. Numbers in
// "_meta" and "metadata" are float64 where a float64 holds them exactly
// and [json.Number] otherwise, so that none is rounded.
func (t *Tool) UnmarshalJSON(data []byte) error {
	type plain Tool // the same fields without this method
	var aux struct {
		plain
		// These shadow mcp.Tool's fields, which decode to map[string]any.
		InputSchema  json.RawMessage `json:"inputSchema"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		// And these the maps whose numbers would be rounded to float64.
		Meta     json.RawMessage `json:"_meta,omitempty"`
		Metadata json.RawMessage `json:"metadata,omitempty"`
	}
	if err := json.Unmarshal(data, &aux); err != nil {
		return err
	}
	meta, err := decodeJSONObject(aux.Meta)
	if err != nil {
		return fmt.Errorf("_meta: %w", err)
	}
	metadata, err := decodeJSONObject(aux.Metadata)
	if err != nil {
		return fmt.Errorf("metadata: %w", err)
	}
	*t = Tool(aux.plain)
	t.InputSchema = compactSchema(aux.InputSchema)
	t.OutputSchema = compactSchema(aux.OutputSchema)
	t.Meta, t.Metadata = meta, metadata
	return nil
}

// compactSchema returns raw compacted, or nil for an absent or null schema.
func compactSchema(raw json.RawMessage) any {
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return raw // unreachable: the decoder has checked raw
	}
	return json.RawMessage(buf.Bytes())
}

// DecodeTool decodes one tool from its JSON form (an MCP tool object, with
// or without metatools' extension fields) and validates it. Errors have
// code [errors.InvalidArgument].
func DecodeTool(data []byte) (Tool, error) {
	var t Tool
	if err := json.Unmarshal(data, &t); err != nil {
		e := errors.Errorf(errors.InvalidArgument, "decode tool: %w", err)
		e.Op = "toolmodel.DecodeTool"
		return Tool{}, e
	}
	if err := t.Validate(); err != nil {
		return Tool{}, err
	}
	return t, nil
}

// FromMCP returns the Tool for an MCP tool (for example one listed by an
// MCP server) in the given namespace. The result shares nothing mutable
// with t: its schemas are converted to compact [json.RawMessage].
func FromMCP(t *mcp.Tool, namespace string) (Tool, error) {
	raw, err := json.Marshal(t)
	if err != nil {
		e := errors.Errorf(errors.InvalidArgument, "encode MCP tool %q: %w", t.Name, err)
		e.Op = "toolmodel.FromMCP"
		return Tool{}, e
	}
	out, err := DecodeTool(raw)
	if err != nil {
		return Tool{}, err
	}
	out.Namespace = namespace
	return out, nil
}

// MCP returns the tool as a plain MCP tool, without metatools' extension
// fields: what a classic MCP tools/list shows. The result shares its
// schemas and annotations with t.
func (t *Tool) MCP() *mcp.Tool {
	m := t.Tool
	return &m
}

// Clone returns a deep copy of t: changing the copy, its tags, metadata,
// annotations or schemas never changes t. Schemas and metadata values that
// are not plain JSON values (a *jsonschema.Schema, a struct) are copied
// through their JSON form, so the copy holds them as JSON values. Clone is
// cheap for tools decoded from JSON: their schemas are byte slices.
func (t Tool) Clone() Tool {
	c := t
	c.Meta = cloneJSONMap(t.Meta)
	c.Metadata = cloneJSONMap(t.Metadata)
	c.Tags = slices.Clone(t.Tags)
	c.InputSchema = CloneJSON(t.InputSchema)
	c.OutputSchema = CloneJSON(t.OutputSchema)
	if t.Annotations != nil {
		a := *t.Annotations
		a.DestructiveHint = cloneBool(a.DestructiveHint)
		a.OpenWorldHint = cloneBool(a.OpenWorldHint)
		c.Annotations = &a
	}
	if t.Icons != nil {
		c.Icons = slices.Clone(t.Icons)
		for i := range c.Icons {
			c.Icons[i].Sizes = slices.Clone(c.Icons[i].Sizes)
		}
	}
	return c
}

func cloneBool(b *bool) *bool {
	if b == nil {
		return nil
	}
	c := *b
	return &c
}

// cloneJSONMap deep-copies a JSON object.
func cloneJSONMap[M ~map[string]any](m M) M {
	if m == nil {
		return nil
	}
	c := make(M, len(m))
	for k, v := range m {
		c[k] = CloneJSON(v)
	}
	return c
}

// CloneJSON deep-copies a JSON value: a decoded one (maps, slices, strings,
// float64, bool, nil, json.Number) or raw JSON. Values of other types are
// copied through their JSON form; a value that does not marshal is kept
// as is.
func CloneJSON(v any) any {
	switch x := v.(type) {
	case nil, string, float64, bool, json.Number:
		return x
	case json.RawMessage:
		return slices.Clone(x)
	case map[string]any:
		return cloneJSONMap(x)
	case []any:
		c := make([]any, len(x))
		for i, e := range x {
			c[i] = CloneJSON(e)
		}
		return c
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	return json.RawMessage(raw)
}

// Equal reports whether t and u have the same JSON form, comparing schemas
// by content whatever their Go representation.
func (t Tool) Equal(u Tool) bool {
	a, errA := canonicalJSON(t)
	b, errB := canonicalJSON(u)
	return errA == nil && errB == nil && bytes.Equal(a, b)
}

// canonicalJSON returns v's JSON with object keys sorted at every level
// and numbers in one form (1.0 and 1 are the same number; so are 1e700
// and 10e699), with every digit of those a float64 would round.
func canonicalJSON(v any) ([]byte, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var generic any
	if err := dec.Decode(&generic); err != nil {
		return nil, err
	}
	return json.Marshal(replaceNumbers(generic, canonicalNumber))
}
