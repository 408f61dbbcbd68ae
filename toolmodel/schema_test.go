package toolmodel_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// issueSchema is a realistic tool input schema: a nested object, ten
// properties, enums and patterns.
const issueSchema = `{
  "type": "object",
  "properties": {
    "owner": {"type": "string", "pattern": "^[A-Za-z0-9-]+$"},
    "repo": {"type": "string", "pattern": "^[A-Za-z0-9_.-]+$"},
    "title": {"type": "string", "minLength": 1, "maxLength": 256},
    "body": {"type": "string"},
    "labels": {"type": "array", "items": {"type": "string"}, "uniqueItems": true},
    "assignees": {"type": "array", "items": {"type": "string"}, "maxItems": 10},
    "priority": {"type": "string", "enum": ["low", "medium", "high", "urgent"]},
    "milestone": {"type": "integer", "minimum": 1},
    "draft": {"type": "boolean", "default": false},
    "metadata": {
      "type": "object",
      "properties": {
        "source": {"type": "string", "enum": ["web", "api", "cli"]},
        "estimate": {"type": "number", "minimum": 0}
      },
      "additionalProperties": false
    }
  },
  "required": ["owner", "repo", "title"],
  "additionalProperties": false
}`

func issueTool(t testing.TB) *toolmodel.Tool {
	t.Helper()
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"create_issue","namespace":"github","inputSchema":` + issueSchema + `}`))
	require.NoError(t, err)
	return &tool
}

func validIssueArgs() map[string]any {
	return map[string]any{
		"owner": "metatools-go", "repo": "metatools", "title": "Crash on start",
		"labels": []any{"bug"}, "priority": "high", "milestone": 3.0,
		"metadata": map[string]any{"source": "cli", "estimate": 1.5},
	}
}

func TestValidateInput(t *testing.T) {
	v := toolmodel.NewValidator()
	tool := issueTool(t)
	require.NoError(t, v.ValidateInput(tool, validIssueArgs()))
	require.NoError(t, v.ValidateInput(tool, json.RawMessage(`{"owner":"a","repo":"b","title":"c"}`)))

	bad := validIssueArgs()
	delete(bad, "title")
	bad["priority"] = "someday"
	bad["owner"] = "not valid!"
	bad["color"] = "red"
	err := v.ValidateInput(tool, bad)
	require.Error(t, err)
	require.ErrorIs(t, err, errors.ErrValidation)
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "validate_input", e.Op)
	assert.Equal(t, "github:create_issue", e.ToolID)
	// Every failing path is listed, in a stable order.
	for _, want := range []string{"/title: required property is missing", "/color: property is not allowed", "/owner: pattern", "/priority: enum"} {
		assert.Contains(t, err.Error(), want)
	}

	err = v.ValidateInput(tool, nil)
	require.ErrorIs(t, err, errors.ErrValidation, "nil arguments are the empty object")
	assert.Contains(t, err.Error(), "/owner: required property is missing")

	err = v.ValidateInput(tool, json.RawMessage(`{"owner":`))
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Contains(t, err.Error(), "instance is not JSON")
}

// TestValidationMessagesStayShort shows that a message names a value
// that failed without repeating all of it, and writes the bounds of
// numbers as decimals.
func TestValidationMessagesStayShort(t *testing.T) {
	v := toolmodel.NewValidator()
	tool := &toolmodel.Tool{Tool: mcp.Tool{Name: "eval", InputSchema: map[string]any{
		"type": "object",
		"properties": map[string]any{
			"expression": map[string]any{"type": "string", "maxLength": 4096},
			"limit":      map[string]any{"type": "integer", "minimum": 0, "maximum": 100},
			"step":       map[string]any{"type": "number", "multipleOf": 0.25},
		},
	}}}
	err := v.ValidateInput(tool, map[string]any{"expression": strings.Repeat("(", 200000), "limit": -1.0, "step": 0.3})
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Less(t, len(err.Error()), 400, err.Error())
	assert.Contains(t, err.Error(), `/expression: maxLength: "((((`)
	assert.Contains(t, err.Error(), `…" contains 200000 Unicode code points, more than 4096`)
	assert.Contains(t, err.Error(), "/limit: minimum: -1 is less than 0")
	assert.Contains(t, err.Error(), "/step: multipleOf: 0.3 is not a multiple of 0.25")

	err = v.ValidateInput(tool, map[string]any{"limit": 101.0})
	assert.ErrorContains(t, err, "/limit: maximum: 101 is greater than 100")
}

func TestUnknownPropertiesNameTheAllowedOnes(t *testing.T) {
	v := toolmodel.NewValidator()
	closed := func(props string) string {
		return `{"type":"object","additionalProperties":false,"properties":{` + props + `}}`
	}
	many := make([]string, 25)
	for i := range many {
		many[i] = fmt.Sprintf(`"p%02d":{}`, i)
	}
	tests := []struct {
		name, schema string
		instance     map[string]any
		want         string
	}{
		{
			name:     "a misnamed property",
			schema:   closed(`"text":{},"find":{},"replacement":{}`),
			instance: map[string]any{"text": "a", "find": "b", "replace": "c"},
			want:     "/replace: property is not allowed (allowed: find, replacement, text)",
		},
		{
			name:     "the list once, at the first of several",
			schema:   closed(`"a":{}`),
			instance: map[string]any{"x": 1.0, "y": 1.0},
			want:     "/x: property is not allowed (allowed: a); /y: property is not allowed",
		},
		{
			name:     "nested",
			schema:   closed(`"opts":` + closed(`"depth":{}`)),
			instance: map[string]any{"opts": map[string]any{"deep": 1.0}},
			want:     "/opts/deep: property is not allowed (allowed: depth)",
		},
		{
			name:     "an object that allows none",
			schema:   `{"type":"object","additionalProperties":false,"required":["a"]}`,
			instance: map[string]any{"x": 1.0},
			want:     "/x: property is not allowed (the object allows none)",
		},
		{
			name:     "a long list is cut",
			schema:   closed(strings.Join(many, ",")),
			instance: map[string]any{"x": 1.0},
			want:     "(allowed: p00, p01, p02, p03, p04, p05, p06, p07, p08, p09, p10, p11, p12, p13, p14, p15, p16, p17, p18, p19 and 5 more)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tt.schema), tt.instance)
			require.ErrorIs(t, err, errors.ErrValidation)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestValidateOutput(t *testing.T) {
	v := toolmodel.NewValidator()
	tool := issueTool(t)
	require.NoError(t, v.ValidateOutput(tool, "anything goes without an output schema"))
	tool.OutputSchema = json.RawMessage(`{"type":"object","properties":{"number":{"type":"integer"}},"required":["number"]}`)
	require.NoError(t, v.ValidateOutput(tool, map[string]any{"number": 7.0}))
	err := v.ValidateOutput(tool, map[string]any{"number": "seven"})
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Contains(t, err.Error(), "validate_output")
}

func TestValidateDrafts(t *testing.T) {
	v := toolmodel.NewValidator()
	tests := []struct {
		name     string
		schema   string
		instance any
		wantErr  bool
	}{
		{"2020-12 prefixItems ok", `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}]}`, []any{"a", 1.0}, false},
		{"2020-12 prefixItems bad", `{"$schema":"https://json-schema.org/draft/2020-12/schema","prefixItems":[{"type":"string"}]}`, []any{1.0}, true},
		{"draft-07 items array ok", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, []any{"a", 1.0}, false},
		{"draft-07 items array bad", `{"$schema":"http://json-schema.org/draft-07/schema#","items":[{"type":"string"}]}`, []any{1.0}, true},
		{"draft-07 definitions", `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/definitions/n"}}}`, map[string]any{"x": "s"}, true},
		{"2020-12 $defs", `{"$defs":{"n":{"type":"integer"}},"properties":{"x":{"$ref":"#/$defs/n"}}}`, map[string]any{"x": 3.0}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tt.schema), tt.instance)
			if tt.wantErr {
				assert.ErrorIs(t, err, errors.ErrValidation)
			} else {
				assert.NoError(t, err)
			}
		})
	}
}

func TestExternalRefIsRefused(t *testing.T) {
	v := toolmodel.NewValidator()
	for _, ref := range []string{"https://example.com/schema.json", "http://169.254.169.254/latest", "file:///etc/passwd", "other.json"} {
		err := v.Validate(json.RawMessage(fmt.Sprintf(`{"properties":{"x":{"$ref":%q}}}`, ref)), map[string]any{})
		require.Error(t, err, ref)
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "refused")
	}
}

func TestBadSchemas(t *testing.T) {
	v := toolmodel.NewValidator()
	for _, schema := range []any{nil, json.RawMessage(`{"type":12}`), json.RawMessage(`[`), make(chan int)} {
		err := v.Validate(schema, 1)
		require.Error(t, err)
		require.ErrorIs(t, err, errors.ErrInvalidArgument, "%v", schema)
	}
	err := v.ValidateInput(&toolmodel.Tool{}, nil)
	assert.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestSchemasCompileOnce(t *testing.T) {
	v := toolmodel.NewValidator()
	tool := issueTool(t)
	for range 5 {
		require.NoError(t, v.ValidateInput(tool, validIssueArgs()))
	}
	assert.Equal(t, 1, v.Len())

	// The same content in another form or another tool shares the entry.
	same := *tool
	same.InputSchema = append(json.RawMessage(nil), tool.InputSchema.(json.RawMessage)...)
	require.NoError(t, v.ValidateInput(&same, validIssueArgs()))
	assert.Equal(t, 1, v.Len())

	// A map schema is keyed by its content.
	m := map[string]any{"type": "object"}
	require.NoError(t, v.Validate(m, map[string]any{}))
	require.NoError(t, v.Validate(map[string]any{"type": "object"}, map[string]any{}))
	assert.Equal(t, 2, v.Len())

	// A *jsonschema.Schema is keyed by pointer.
	s := &jsonschema.Schema{Type: "string"}
	require.NoError(t, v.Validate(s, "x"))
	require.NoError(t, v.Validate(s, "y"))
	assert.Equal(t, 3, v.Len())
}

func TestCacheIsBounded(t *testing.T) {
	v := toolmodel.NewValidator(toolmodel.WithCacheSize(2))
	schema := func(n int) json.RawMessage { return json.RawMessage(fmt.Sprintf(`{"maximum":%d}`, n)) }
	require.NoError(t, v.Validate(schema(1), 0))
	require.NoError(t, v.Validate(schema(2), 0))
	require.NoError(t, v.Validate(schema(1), 0)) // 1 is now more recent than 2
	require.NoError(t, v.Validate(schema(3), 0)) // evicts 2
	assert.Equal(t, 2, v.Len())
	// Evicted or not, every schema still validates correctly.
	for n := 1; n <= 3; n++ {
		require.ErrorIs(t, v.Validate(schema(n), n+1), errors.ErrValidation)
		assert.NoError(t, v.Validate(schema(n), n))
	}
}

func TestValidatorConcurrentUse(t *testing.T) {
	v := toolmodel.NewValidator(toolmodel.WithCacheSize(8))
	tool := issueTool(t)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 50 {
				assert.NoError(t, v.ValidateInput(tool, validIssueArgs()))
				schema := json.RawMessage(fmt.Sprintf(`{"maximum":%d}`, (g*50+i)%20))
				assert.ErrorIs(t, v.Validate(schema, 100), errors.ErrValidation)
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, v.Len(), 8)
}

func TestReferenceLoopsAreRefused(t *testing.T) {
	v := toolmodel.NewValidator()
	loops := map[string]string{
		"self":             `{"$ref":"#"}`,
		"defs":             `{"$ref":"#/$defs/a","$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}}}`,
		"draft-07":         `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"a":{"anyOf":[{"$ref":"#/definitions/a"}]}},"$ref":"#/definitions/a"}`,
		"anchor":           `{"$defs":{"a":{"$anchor":"node","not":{"$ref":"#node"}}},"$ref":"#node"}`,
		"id":               `{"$id":"https://example.com/root","$defs":{"a":{"$id":"a.json","if":{"$ref":"a.json"}}},"$ref":"a.json"}`,
		"escaped":          `{"$defs":{"a/b":{"$ref":"#/$defs/a~1b"}},"$ref":"#/$defs/a~1b"}`,
		"dependentSchemas": `{"dependentSchemas":{"x":{"$ref":"#"}}}`,
	}
	for name, schema := range loops {
		t.Run(name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(schema), map[string]any{"x": 1.0})
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), "references loop")
		})
	}
	// Recursion that descends into the instance is fine.
	tree := `{"$defs":{"node":{"type":"object","properties":{"children":{"type":"array","items":{"$ref":"#/$defs/node"}}}}},"$ref":"#/$defs/node"}`
	require.NoError(t, v.Validate(json.RawMessage(tree), map[string]any{"children": []any{map[string]any{"children": []any{}}}}))
	assert.ErrorIs(t, v.Validate(json.RawMessage(tree), map[string]any{"children": []any{1.0}}), errors.ErrValidation)
}

// TestRecursiveSchemas validates arguments against schemas that refer to
// themselves through properties, $defs and items: a valid argument
// passes, an invalid one fails with an error naming where, and nothing
// overflows the stack.
func TestRecursiveSchemas(t *testing.T) {
	tests := []struct {
		name           string
		schema         string
		valid, invalid any
		path           string
	}{
		{
			name:    "self reference",
			schema:  `{"type":"object","properties":{"child":{"$ref":"#"}}}`,
			valid:   map[string]any{"child": map[string]any{}},
			invalid: map[string]any{"child": 1.0},
			path:    "/child: type",
		},
		{
			name:    "self reference, nested",
			schema:  `{"type":"object","properties":{"child":{"$ref":"#"},"n":{"type":"string"}}}`,
			valid:   map[string]any{"child": map[string]any{"child": map[string]any{"n": "x"}}},
			invalid: map[string]any{"child": map[string]any{"child": map[string]any{"n": 1.0}}},
			path:    "/child/child/n: type",
		},
		{
			name: "$defs referring to each other",
			schema: `{"$defs":{"a":{"type":"object","properties":{"b":{"$ref":"#/$defs/b"}}},` +
				`"b":{"type":"object","properties":{"a":{"$ref":"#/$defs/a"},"v":{"type":"integer"}}}},` +
				`"type":"object","properties":{"a":{"$ref":"#/$defs/a"}}}`,
			valid:   map[string]any{"a": map[string]any{"b": map[string]any{"a": map[string]any{}, "v": 1.0}}},
			invalid: map[string]any{"a": map[string]any{"b": map[string]any{"a": map[string]any{"b": map[string]any{"v": "x"}}}}},
			path:    "/a/b/a/b/v: type",
		},
		{
			name:    "cycle inside items",
			schema:  `{"type":"object","properties":{"list":{"type":"array","items":{"$ref":"#"}}}}`,
			valid:   map[string]any{"list": []any{map[string]any{"list": []any{}}}},
			invalid: map[string]any{"list": []any{map[string]any{"list": []any{1.0}}}},
			path:    "/list/0/list/0: type",
		},
		{
			name: "anyOf and additionalProperties",
			schema: `{"$defs":{"v":{"anyOf":[{"type":"string"},{"type":"object","additionalProperties":{"$ref":"#/$defs/v"}}]}},` +
				`"type":"object","properties":{"tree":{"$ref":"#/$defs/v"}}}`,
			valid:   map[string]any{"tree": map[string]any{"x": map[string]any{"y": "z"}}},
			invalid: map[string]any{"tree": map[string]any{"x": map[string]any{"y": 1.0}}},
			path:    "/tree: anyOf",
		},
		{
			name:    "draft-07 definitions",
			schema:  `{"$schema":"http://json-schema.org/draft-07/schema#","definitions":{"n":{"type":"object","properties":{"next":{"$ref":"#/definitions/n"},"v":{"type":"boolean"}}}},"type":"object","properties":{"head":{"$ref":"#/definitions/n"}}}`,
			valid:   map[string]any{"head": map[string]any{"next": map[string]any{"v": true}}},
			invalid: map[string]any{"head": map[string]any{"next": map[string]any{"v": "yes"}}},
			path:    "/head/next/v: type",
		},
	}
	v := toolmodel.NewValidator()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool, err := toolmodel.DecodeTool([]byte(`{"name":"tree","inputSchema":` + tt.schema + `}`))
			require.NoError(t, err)
			require.NoError(t, v.ValidateInput(&tool, tt.valid))
			err = v.ValidateInput(&tool, tt.invalid)
			require.ErrorIs(t, err, errors.ErrValidation)
			assert.Contains(t, err.Error(), tt.path)
		})
	}
}

// TestSchemasThatWouldOverflow covers schemas and instances that would
// make jsonschema-go recurse without end or beyond any stack: they are
// refused with a clear error.
func TestSchemasThatWouldOverflow(t *testing.T) {
	v := toolmodel.NewValidator()
	loops := map[string]string{
		"key matched without regard to case": `{"ALLOF":[{"$REF":"#"}]}`,
		"property named like a keyword":      `{"properties":{"enum":{"allOf":[{"$ref":"#/properties/enum"}]}}}`,
		"draft-07 $id as anchor":             `{"$schema":"http://json-schema.org/draft-07/schema#","allOf":[{"$ref":"#"}],"definitions":{"a":{"$id":"#x"}}}`,
	}
	for name, schema := range loops {
		t.Run(name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(schema), map[string]any{"enum": 1.0})
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), "references loop")
		})
	}

	t.Run("long reference chain", func(t *testing.T) {
		defs := map[string]any{}
		for i := range 5000 {
			defs[fmt.Sprintf("d%d", i)] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
		}
		defs["d5000"] = map[string]any{"type": "string"}
		err := v.Validate(map[string]any{"$ref": "#/$defs/d0", "$defs": defs}, 1.0)
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		assert.Contains(t, err.Error(), "references chain")
	})

	t.Run("deep instance", func(t *testing.T) {
		schema := json.RawMessage(`{"type":"object","properties":{"a":{"allOf":[{"$ref":"#"}]}}}`)
		var deep any = map[string]any{}
		for range 5000 {
			deep = map[string]any{"a": deep}
		}
		err := v.Validate(schema, deep)
		require.ErrorIs(t, err, errors.ErrValidation)
		assert.Contains(t, err.Error(), "levels deep")
		// A deep value the schema does not descend into is fine.
		assert.NoError(t, v.Validate(json.RawMessage(`{"type":"object"}`), deep))
	})
}

// TestErrorPathsEscapePropertyNames checks that the path of a failing
// value is a JSON Pointer: a "/" or "~" in a property name is escaped, so
// that "/a~1b" names the property "a/b" and never a property "b" inside
// "a".
func TestErrorPathsEscapePropertyNames(t *testing.T) {
	tests := []struct {
		name     string
		schema   string
		instance any
		want     string
	}{
		{
			name:     "slash in a property",
			schema:   `{"type":"object","properties":{"a/b":{"type":"string"}}}`,
			instance: map[string]any{"a/b": 1.0},
			want:     "/a~1b: type",
		},
		{
			name:     "tilde in a property",
			schema:   `{"type":"object","properties":{"~x":{"type":"string"}}}`,
			instance: map[string]any{"~x": 1.0},
			want:     "/~0x: type",
		},
		{
			name:     "an escape written literally",
			schema:   `{"type":"object","properties":{"~1":{"type":"string"}}}`,
			instance: map[string]any{"~1": 1.0},
			want:     "/~01: type",
		},
		{
			name:     "missing required property",
			schema:   `{"type":"object","required":["a/b"]}`,
			instance: map[string]any{},
			want:     "/a~1b: required property is missing",
		},
		{
			name:     "property not allowed",
			schema:   `{"type":"object","properties":{"x":{}},"additionalProperties":false}`,
			instance: map[string]any{"c/~d": 1.0},
			want:     "/c~1~0d: property is not allowed",
		},
		{
			name:     "nested, and in items",
			schema:   `{"type":"object","properties":{"a/b":{"type":"object","properties":{"~":{"type":"array","items":{"type":"string"}}}}}}`,
			instance: map[string]any{"a/b": map[string]any{"~": []any{"ok", 1.0}}},
			want:     "/a~1b/~0/1: type",
		},
		{
			name:     "empty property name",
			schema:   `{"type":"object","properties":{"":{"type":"string"}}}`,
			instance: map[string]any{"": 1.0},
			want:     "/: type",
		},
	}
	v := toolmodel.NewValidator()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := v.Validate(json.RawMessage(tt.schema), tt.instance)
			require.ErrorIs(t, err, errors.ErrValidation)
			assert.Contains(t, err.Error(), tt.want)
		})
	}

	t.Run("value nested too deeply", func(t *testing.T) {
		var deep any = map[string]any{}
		for range 1000 {
			deep = map[string]any{"a/b": deep}
		}
		err := v.Validate(json.RawMessage(`{"type":"object","additionalProperties":{"allOf":[{"$ref":"#"}]}}`), deep)
		require.ErrorIs(t, err, errors.ErrValidation)
		assert.Contains(t, err.Error(), "/a~1b/a~1b/")
	})
}
