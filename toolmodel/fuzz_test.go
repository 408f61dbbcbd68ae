package toolmodel_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

func FuzzParseToolID(f *testing.F) {
	for _, seed := range []string{"x", "ns:x", ":", "a:b:c", "", "ns.sub-1:tool_2", "é:x"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, id string) {
		ns, name, err := toolmodel.ParseToolID(id)
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("ParseToolID(%q) error has code %s", id, errors.CodeOf(err))
			}
			return
		}
		if got := toolmodel.ToolID(ns, name); got != id {
			t.Fatalf("ToolID(ParseToolID(%q)) = %q", id, got)
		}
		if toolmodel.ValidateName(name) != nil || ns != "" && toolmodel.ValidateName(ns) != nil {
			t.Fatalf("ParseToolID(%q) accepted invalid parts %q, %q", id, ns, name)
		}
	})
}

// FuzzToolJSON checks the round-trip property: a tool that decodes
// re-encodes to JSON that decodes to an equal tool.
func FuzzToolJSON(f *testing.F) {
	f.Add([]byte(fullToolJSON))
	f.Add([]byte(`{"name":"x","inputSchema":{"type":"object"}}`))
	f.Add([]byte(`{"name":"x","inputSchema":{},"tags":["a"],"metadata":{"n":1e400}}`))
	f.Add([]byte(`{"name":"x","inputSchema":{},"annotations":{"title":"t"},"_meta":{"k":[1,"2"]}}`))
	// Numbers a float64 would round: the round trip must keep every digit.
	f.Add([]byte(`{"name":"x","inputSchema":{},"_meta":{"id":9007199254740993},"metadata":{"n":[-9007199254740993,0.30000000000000001,1e-400]}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		tool, err := toolmodel.DecodeTool(data)
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("DecodeTool error has code %s: %v", errors.CodeOf(err), err)
			}
			return
		}
		encoded, err := json.Marshal(tool)
		if err != nil {
			t.Fatalf("a decoded tool does not encode: %v", err)
		}
		again, err := toolmodel.DecodeTool(encoded)
		if err != nil {
			t.Fatalf("re-decoding %s: %v", encoded, err)
		}
		if !again.Equal(tool) {
			t.Fatalf("round trip changed the tool:\n%s\n%s", data, encoded)
		}
	})
}

// FuzzValidate validates arbitrary instances against arbitrary schemas,
// seeded with recursive ones ($ref to the root, between $defs, in items,
// additionalProperties and anyOf): never a panic nor a stack overflow, and
// every error is classified.
func FuzzValidate(f *testing.F) {
	f.Add([]byte(issueSchema), []byte(`{"owner":"a","repo":"b","title":"c"}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`), []byte(`[1]`))
	f.Add([]byte(`{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/a"}}}`), []byte(`1`))
	f.Add([]byte(`{"properties":{"x":{"$ref":"https://example.com"}}}`), []byte(`{}`))
	f.Add([]byte(`{"pattern":"(("}`), []byte(`"s"`))
	f.Add([]byte(`true`), []byte(`null`))
	// Recursive schemas, which must never overflow the stack.
	f.Add([]byte(`{"type":"object","properties":{"child":{"$ref":"#"}}}`), []byte(`{"child":1}`))
	f.Add([]byte(`{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"string"}}}`), []byte(`{"child":{"child":{"n":1}}}`))
	f.Add([]byte(`{"$defs":{"a":{"properties":{"b":{"$ref":"#/$defs/b"}}},"b":{"properties":{"a":{"$ref":"#/$defs/a"}},"required":["v"]}},"$ref":"#/$defs/a"}`), []byte(`{"b":{"a":{"b":{}}}}`))
	f.Add([]byte(`{"type":"object","properties":{"list":{"type":"array","items":{"$ref":"#"}}}}`), []byte(`{"list":[{"list":[1]}]}`))
	f.Add([]byte(`{"$defs":{"v":{"anyOf":[{"type":"string"},{"additionalProperties":{"$ref":"#/$defs/v"}}]}},"properties":{"t":{"$ref":"#/$defs/v"}}}`), []byte(`{"t":{"x":{"y":1}}}`))
	f.Add([]byte(`{"properties":{"enum":{"allOf":[{"$ref":"#/properties/enum"}]}}}`), []byte(`{"enum":1}`))
	f.Add([]byte(`{"ALLOF":[{"$REF":"#"}]}`), []byte(`1`))
	f.Add([]byte(`{"$id":"https://example.com/s","$defs":{"a":{"$id":"a.json","properties":{"x":{"$ref":"#"}}}},"properties":{"a":{"$ref":"a.json"}}}`), []byte(`{"a":{"x":{"x":1}}}`))
	f.Add([]byte(`{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"$id":"#x","properties":{"p":{"$ref":"#x"}}}},"properties":{"q":{"$ref":"#x"}}}`), []byte(`{"q":{"p":{"p":2}}}`))
	f.Add([]byte(`{"$dynamicAnchor":"n","properties":{"c":{"$dynamicRef":"#n"}},"type":"object"}`), []byte(`{"c":{"c":0}}`))
	// Property names that must be escaped in the paths of errors.
	f.Add([]byte(`{"properties":{"a/b":{"properties":{"~1":{"type":"string"}}}},"required":["~x"]}`), []byte(`{"a/b":{"~1":1}}`))
	v := toolmodel.NewValidator(toolmodel.WithCacheSize(64))
	f.Fuzz(func(t *testing.T, schema, instance []byte) {
		if !json.Valid(schema) {
			return
		}
		err := v.Validate(json.RawMessage(schema), json.RawMessage(instance))
		if err == nil {
			return
		}
		switch errors.CodeOf(err) {
		case errors.Validation, errors.InvalidArgument:
		default:
			t.Fatalf("Validate error has code %s: %v", errors.CodeOf(err), err)
		}
	})
}

// FuzzValidationPath checks that the path an error gives for a property
// is a JSON Pointer that reads back as the property's name, one reference
// token per level, whatever characters the name holds.
func FuzzValidationPath(f *testing.F) {
	for _, seed := range []string{"a", "a/b", "~", "~0", "~1", "~01", "/", "//", "", "a: b", "é"} {
		f.Add(seed)
	}
	v := toolmodel.NewValidator(toolmodel.WithCacheSize(64))
	f.Fuzz(func(t *testing.T, name string) {
		if !utf8.ValidString(name) {
			return // JSON would replace the invalid bytes: another name
		}
		// The property is required inside a property of the same name.
		schema, err := json.Marshal(map[string]any{"type": "object", "properties": map[string]any{
			name: map[string]any{"type": "object", "required": []string{name}},
		}})
		require.NoError(t, err)
		err = v.Validate(json.RawMessage(schema), map[string]any{name: map[string]any{}})
		require.ErrorIs(t, err, errors.ErrValidation)
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		path, ok := strings.CutSuffix(e.Err.Error(), ": required property is missing")
		require.True(t, ok, "unexpected message %q", e.Err)
		tokens := strings.Split(path, "/")
		require.Len(t, tokens, 3, "path %q of %q", path, name)
		assert.Empty(t, tokens[0], "path %q does not start with /", path)
		for _, tok := range tokens[1:] {
			got, ok := unescapeToken(tok)
			require.True(t, ok, "path %q has an invalid escape", path)
			assert.Equal(t, name, got, "path %q", path)
		}
	})
}

// unescapeToken decodes a JSON Pointer reference token as RFC 6901 says,
// refusing a "~" that is not followed by "0" or "1".
func unescapeToken(tok string) (string, bool) {
	var b strings.Builder
	for i := 0; i < len(tok); i++ {
		if tok[i] != '~' {
			b.WriteByte(tok[i])
			continue
		}
		if i++; i == len(tok) {
			return "", false
		}
		switch tok[i] {
		case '0':
			b.WriteByte('~')
		case '1':
			b.WriteByte('/')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// FuzzToolYAML checks that YAML decoding never panics, and that a tool
// decoded from YAML survives a YAML round trip and reads as the same tool
// from its JSON form.
func FuzzToolYAML(f *testing.F) {
	f.Add([]byte("name: x\ninputSchema: {type: object}\n"))
	f.Add([]byte("name: x\nnamespace: ns\ninputSchema: {}\ntags: [a, b]\nmetadata: {n: 1e400, big: 123456789012345678901234567890}\n"))
	f.Add([]byte("name: x\ninputSchema: {maximum: 0x1F, minimum: -1_000, const: .inf}\n"))
	f.Add([]byte("name: &n x\ntitle: *n\ninputSchema: {}\nannotations: {title: t, readOnlyHint: yes}\n_meta: {k: [1, \"2\", null, ~]}\n"))
	f.Add([]byte("a: &a [x, x]\nb: [*a, *a]\n<<: {c: 1}\n"))
	f.Add([]byte("name: x\ninputSchema: {}\nmetadata: {id: 9007199254740993, f: 0.30000000000000001}\n"))
	if raw, err := json.Marshal(mustDecode(f, fullToolJSON)); err == nil {
		f.Add(raw) // JSON is YAML
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var tool toolmodel.Tool
		if yaml.Unmarshal(data, &tool) != nil || tool.Validate() != nil {
			return
		}
		encoded, err := yaml.Marshal(tool)
		if err != nil {
			t.Fatalf("a decoded tool does not encode to YAML: %v", err)
		}
		var again toolmodel.Tool
		if err := yaml.Unmarshal(encoded, &again); err != nil {
			t.Fatalf("re-decoding %s: %v", encoded, err)
		}
		if !again.Equal(tool) {
			t.Fatalf("YAML round trip changed the tool:\n%s\n%s", data, encoded)
		}
		raw, err := json.Marshal(tool)
		if err != nil {
			t.Fatalf("a tool decoded from YAML does not encode to JSON: %v", err)
		}
		fromJSON, err := toolmodel.DecodeTool(raw)
		if err != nil || !fromJSON.Equal(tool) {
			t.Fatalf("the JSON form of a YAML tool reads differently (%v):\n%s", err, raw)
		}
	})
}

func mustDecode(f *testing.F, doc string) toolmodel.Tool {
	f.Helper()
	tool, err := toolmodel.DecodeTool([]byte(doc))
	if err != nil {
		f.Fatal(err)
	}
	return tool
}

// FuzzDurationJSON checks that a Duration decoded from JSON encodes back
// to itself, and that a number of seconds keeps its sign.
func FuzzDurationJSON(f *testing.F) {
	for _, seed := range []string{`"1.5s"`, `2.5`, `-3`, `1e10`, `9223372036.854775807`, `"-2562047h47m16.854775808s"`, `true`} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var d toolmodel.Duration
		if err := json.Unmarshal(data, &d); err != nil {
			return
		}
		out, err := json.Marshal(d)
		require.NoError(t, err)
		var back toolmodel.Duration
		require.NoError(t, json.Unmarshal(out, &back), "%s", out)
		require.Equal(t, d, back, "%s encodes to %s", data, out)
		var secs float64
		if json.Unmarshal(data, &secs) == nil {
			require.False(t, secs > 0 && d < 0 || secs < 0 && d > 0, "%s seconds decode to %v", data, time.Duration(d))
		}
	})
}
