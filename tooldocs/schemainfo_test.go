package tooldocs_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
)

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func enum(values ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(values))
	for i, v := range values {
		out[i] = raw(v)
	}
	return out
}

func TestDeriveSchemaInfo(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		want   *tooldocs.SchemaInfo
	}{
		{
			name:   "required first then document order",
			schema: `{"type":"object","properties":{"zeta":{"type":"string"},"body":{"type":"string"},"alpha":{"type":"integer"},"repo":{"type":"string"}},"required":["repo","zeta"]}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "zeta", Types: []string{"string"}, Required: true},
					{Name: "repo", Types: []string{"string"}, Required: true},
					{Name: "body", Types: []string{"string"}},
					{Name: "alpha", Types: []string{"integer"}},
				},
				Required: []string{"zeta", "repo"},
			},
		},
		{
			name:   "type arrays and nullable forms",
			schema: `{"type":"object","properties":{"a":{"type":["string","null"]},"b":{"anyOf":[{"type":"integer"},{"type":"null"}]},"c":{"type":"number","nullable":true},"d":{"oneOf":[{"type":"string"},{"type":"integer"},{"type":"string"}]}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "a", Types: []string{"string", "null"}},
					{Name: "b", Types: []string{"integer", "null"}},
					{Name: "c", Types: []string{"number", "null"}},
					{Name: "d", Types: []string{"string", "integer"}},
				},
			},
		},
		{
			name:   "descriptions defaults enums and formats",
			schema: `{"description":"Root.","properties":{"state":{"enum":["open","closed"],"default":"open","description":"Issue state."},"v":{"const":2},"when":{"type":"string","format":"date-time","deprecated":true},"pad":{"type":"object","default":{ "a" : [1, 2] }}}}`,
			want: &tooldocs.SchemaInfo{
				Types:       []string{"object"},
				Description: "Root.",
				Params: []tooldocs.Param{
					{Name: "state", Types: []string{"string"}, Description: "Issue state.", Default: raw(`"open"`), Enum: enum(`"open"`, `"closed"`)},
					{Name: "v", Types: []string{"integer"}, Enum: enum(`2`)},
					{Name: "when", Types: []string{"string"}, Format: "date-time", Deprecated: true},
					{Name: "pad", Types: []string{"object"}, Default: raw(`{"a":[1,2]}`)},
				},
			},
		},
		{
			name:   "types implied by other keywords",
			schema: `{"properties":{"o":{"required":["x"]},"a":{"minItems":1},"s":{"pattern":"^a"},"n":{"maximum":3},"e":{"enum":[1,"x",null,1.5]},"any":{"description":"Anything."}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "o", Types: []string{"object"}, Properties: []tooldocs.Param{{Name: "x", Required: true}}},
					{Name: "a", Types: []string{"array"}},
					{Name: "s", Types: []string{"string"}},
					{Name: "n", Types: []string{"number"}},
					{Name: "e", Types: []string{"integer", "string", "null", "number"}, Enum: enum(`1`, `"x"`, `null`, `1.5`)},
					{Name: "any", Description: "Anything."},
				},
			},
		},
		{
			name:   "nested properties stop one level down",
			schema: `{"type":"object","properties":{"user":{"type":"object","required":["login"],"properties":{"login":{"type":"string"},"profile":{"type":"object","properties":{"bio":{"type":"string"}}}}}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{{
					Name: "user", Types: []string{"object"},
					Properties: []tooldocs.Param{
						{Name: "login", Types: []string{"string"}, Required: true},
						{Name: "profile", Types: []string{"object"}},
					},
				}},
			},
		},
		{
			name:   "array items and arrays of objects",
			schema: `{"type":"object","properties":{"tags":{"type":"array","items":{"type":"string","enum":["a","b"]}},"rows":{"type":"array","items":{"type":"object","properties":{"id":{"type":"integer"}}}},"grid":{"type":"array","items":{"type":"array","items":{"type":"number"}}},"tuple":{"type":"array","items":[{"type":"string"}]}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "tags", Types: []string{"array"}, Items: &tooldocs.Param{Types: []string{"string"}, Enum: enum(`"a"`, `"b"`)}},
					{Name: "rows", Types: []string{"array"}, Items: &tooldocs.Param{
						Types:      []string{"object"},
						Properties: []tooldocs.Param{{Name: "id", Types: []string{"integer"}}},
					}},
					{Name: "grid", Types: []string{"array"}, Items: &tooldocs.Param{Types: []string{"array"}, Items: &tooldocs.Param{Types: []string{"number"}}}},
					{Name: "tuple", Types: []string{"array"}},
				},
			},
		},
		{
			name:   "2020-12 $defs reference with sibling description",
			schema: `{"$schema":"https://json-schema.org/draft/2020-12/schema","type":"object","properties":{"owner":{"$ref":"#/$defs/login","description":"Repository owner."},"who":{"$ref":"#/$defs/login"}},"$defs":{"login":{"type":"string","description":"A login.","default":"me"}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "owner", Types: []string{"string"}, Description: "Repository owner.", Default: raw(`"me"`)},
					{Name: "who", Types: []string{"string"}, Description: "A login.", Default: raw(`"me"`)},
				},
			},
		},
		{
			name:   "draft-07 definitions referenced at two levels",
			schema: `{"$schema":"http://json-schema.org/draft-07/schema#","type":"object","properties":{"body":{"$ref":"#/definitions/Pet"}},"required":["body"],"definitions":{"Pet":{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"category":{"$ref":"#/definitions/Category"}}},"Category":{"type":"object","properties":{"id":{"type":"integer"}}}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{{
					Name: "body", Types: []string{"object"}, Required: true,
					Properties: []tooldocs.Param{
						{Name: "name", Types: []string{"string"}, Required: true},
						{Name: "category", Types: []string{"object"}},
					},
				}},
				Required: []string{"body"},
			},
		},
		{
			name:   "reference to the root and escaped pointers",
			schema: `{"type":"object","properties":{"self":{"$ref":"#"},"odd":{"$ref":"#/$defs/a~1b"},"pct":{"$ref":"#/$defs/c%25d"},"deep":{"$ref":"#/properties/odd"},"missing":{"$ref":"#/$defs/nope","description":"Unresolved."},"remote":{"$ref":"https://example.com/s.json"}},"$defs":{"a/b":{"type":"boolean"},"c%d":{"type":"integer"}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "self", Types: []string{"object"}, Properties: []tooldocs.Param{
						{Name: "self", Types: []string{"object"}},
						{Name: "odd", Types: []string{"boolean"}},
						{Name: "pct", Types: []string{"integer"}},
						{Name: "deep", Types: []string{"boolean"}},
						{Name: "missing", Description: "Unresolved."},
						{Name: "remote"},
					}},
					{Name: "odd", Types: []string{"boolean"}},
					{Name: "pct", Types: []string{"integer"}},
					{Name: "deep", Types: []string{"boolean"}},
					{Name: "missing", Description: "Unresolved."},
					{Name: "remote"},
				},
			},
		},
		{
			name:   "reference cycles terminate",
			schema: `{"type":"object","properties":{"a":{"$ref":"#/$defs/A"},"list":{"$ref":"#/$defs/L"}},"$defs":{"A":{"$ref":"#/$defs/B"},"B":{"$ref":"#/$defs/A"},"L":{"type":"array","items":{"$ref":"#/$defs/L"}}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "a"},
					{Name: "list", Types: []string{"array"}, Items: &tooldocs.Param{
						Types: []string{"array"}, Items: &tooldocs.Param{
							Types: []string{"array"}, Items: &tooldocs.Param{Types: []string{"array"}},
						},
					}},
				},
			},
		},
		{
			name:   "allOf merges properties and required names",
			schema: `{"allOf":[{"$ref":"#/$defs/Base"},{"properties":{"extra":{"type":"boolean"}},"required":["extra"]}],"properties":{"own":{"type":"string"}},"$defs":{"Base":{"type":"object","properties":{"id":{"type":"integer"},"own":{"type":"number"}},"required":["id"]}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "id", Types: []string{"integer"}, Required: true},
					{Name: "extra", Types: []string{"boolean"}, Required: true},
					{Name: "own", Types: []string{"string"}},
				},
				Required: []string{"id", "extra"},
			},
		},
		{
			name:   "required names without a property schema",
			schema: `{"type":"object","required":["token"]}`,
			want: &tooldocs.SchemaInfo{
				Types:    []string{"object"},
				Params:   []tooldocs.Param{{Name: "token", Required: true}},
				Required: []string{"token"},
			},
		},
		{
			name:   "non-object root",
			schema: `{"type":"array","items":{"type":"string"},"description":"Names."}`,
			want:   &tooldocs.SchemaInfo{Types: []string{"array"}, Description: "Names."},
		},
		{
			name:   "boolean schema",
			schema: `true`,
			want:   &tooldocs.SchemaInfo{},
		},
		{
			name:   "duplicate keys keep their first position",
			schema: `{"properties":{"b":{"type":"string"},"a":{"type":"string"},"b":{"type":"integer"}}}`,
			want: &tooldocs.SchemaInfo{
				Types: []string{"object"},
				Params: []tooldocs.Param{
					{Name: "b", Types: []string{"integer"}},
					{Name: "a", Types: []string{"string"}},
				},
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tooldocs.DeriveSchemaInfo(raw(tt.schema))
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestDeriveSchemaInfoForms(t *testing.T) {
	t.Run("map input is ordered alphabetically", func(t *testing.T) {
		got, err := tooldocs.DeriveSchemaInfo(map[string]any{
			"type": "object",
			"properties": map[string]any{
				"b": map[string]any{"type": "string"},
				"a": map[string]any{"type": "string"},
			},
		})
		require.NoError(t, err)
		require.Len(t, got.Params, 2)
		assert.Equal(t, "a", got.Params[0].Name)
		assert.Equal(t, "b", got.Params[1].Name)
	})
	t.Run("jsonschema.Schema input keeps its PropertyOrder and is not modified", func(t *testing.T) {
		s := &jsonschema.Schema{
			Type: "object",
			Properties: map[string]*jsonschema.Schema{
				"a": {Type: "string"},
				"b": {Type: "integer"},
				"c": {Type: "boolean"},
			},
			PropertyOrder: []string{"c", "a"},
		}
		before := s.CloneSchemas()
		got, err := tooldocs.DeriveSchemaInfo(s)
		require.NoError(t, err)
		names := make([]string, 0, len(got.Params))
		for _, p := range got.Params {
			names = append(names, p.Name)
		}
		assert.Equal(t, []string{"c", "a", "b"}, names)
		assert.Equal(t, before, s)
	})
	t.Run("jsonschema.Schema from Go type inference", func(t *testing.T) {
		type args struct {
			Query string `json:"query" jsonschema:"what to look for"`
			Limit int    `json:"limit,omitempty"`
		}
		s, err := jsonschema.For[args](nil)
		require.NoError(t, err)
		got, err := tooldocs.DeriveSchemaInfo(s)
		require.NoError(t, err)
		assert.Equal(t, []tooldocs.Param{
			{Name: "query", Types: []string{"string"}, Required: true, Description: "what to look for"},
			{Name: "limit", Types: []string{"integer"}},
		}, got.Params)
	})
}

func TestDeriveSchemaInfoRejectsMalformedSchemas(t *testing.T) {
	tests := map[string]any{
		"not JSON":      raw(`{"type":`),
		"bad type":      raw(`{"type":5}`),
		"nil":           nil,
		"nil pointer":   (*jsonschema.Schema)(nil),
		"not a schema":  raw(`[1,2]`),
		"unmarshalable": map[string]any{"f": func() {}},
	}
	for name, schema := range tests {
		t.Run(name, func(t *testing.T) {
			_, err := tooldocs.DeriveSchemaInfo(schema)
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			assert.Contains(t, err.Error(), "tooldocs.DeriveSchemaInfo")
		})
	}
}

func TestSchemaInfoCloneIsDeep(t *testing.T) {
	info, err := tooldocs.DeriveSchemaInfo(raw(`{"properties":{"a":{"type":"array","default":[1],"items":{"enum":["x"]}},"o":{"properties":{"p":{"type":"string"}}}},"required":["a"]}`))
	require.NoError(t, err)
	c := info.Clone()
	require.Equal(t, info, c)
	c.Types[0] = "changed"
	c.Required[0] = "changed"
	c.Params[0].Types[0] = "changed"
	c.Params[0].Default[1] = '2'
	c.Params[0].Items.Enum[0][1] = 'y'
	c.Params[1].Properties[0].Name = "changed"
	assert.Equal(t, []string{"object"}, info.Types)
	assert.Equal(t, []string{"a"}, info.Required)
	assert.Equal(t, []string{"array"}, info.Params[0].Types)
	assert.JSONEq(t, `[1]`, string(info.Params[0].Default))
	assert.Equal(t, enum(`"x"`), info.Params[0].Items.Enum)
	assert.Equal(t, "p", info.Params[1].Properties[0].Name)
	assert.Nil(t, (*tooldocs.SchemaInfo)(nil).Clone())
}

// TestDeriveSchemaInfoResistsFanOut checks that references which fan out
// (each level referring to the next many times) cost linear work, and that
// nested properties are capped while every top-level parameter is kept.
func TestDeriveSchemaInfoResistsFanOut(t *testing.T) {
	t.Run("alternatives", func(t *testing.T) {
		defs := map[string]any{"d30": map[string]any{"type": "string"}}
		for i := range 30 {
			alts := make([]any, 10)
			for j := range alts {
				alts[j] = map[string]any{"$ref": fmt.Sprintf("#/$defs/d%d", i+1)}
			}
			defs[fmt.Sprintf("d%d", i)] = map[string]any{"anyOf": alts}
		}
		schema := map[string]any{"properties": map[string]any{"x": map[string]any{"$ref": "#/$defs/d0"}}, "$defs": defs}
		info, err := tooldocs.DeriveSchemaInfo(schema) // 10^30 paths: finishes only if linear
		require.NoError(t, err)
		assert.Equal(t, []string{"string"}, info.Params[0].Types)
	})
	t.Run("merged parts", func(t *testing.T) {
		parts := make([]any, 3000)
		for i := range parts {
			parts[i] = map[string]any{"description": fmt.Sprint(i)}
		}
		props := map[string]any{}
		for i := range 3000 {
			props[fmt.Sprintf("p%04d", i)] = map[string]any{"$ref": "#/$defs/merged"}
		}
		info, err := tooldocs.DeriveSchemaInfo(map[string]any{
			"properties": props,
			"$defs":      map[string]any{"merged": map[string]any{"type": "object", "allOf": parts}},
		})
		require.NoError(t, err)
		assert.Len(t, info.Params, 3000)
	})
	t.Run("nested properties", func(t *testing.T) {
		wide := map[string]any{}
		for i := range 100 {
			wide[fmt.Sprintf("f%03d", i)] = map[string]any{"type": "string"}
		}
		props := map[string]any{}
		for i := range 50 {
			props[fmt.Sprintf("p%02d", i)] = map[string]any{"$ref": "#/$defs/wide"}
		}
		info, err := tooldocs.DeriveSchemaInfo(map[string]any{
			"properties": props,
			"$defs":      map[string]any{"wide": map[string]any{"type": "object", "properties": wide}},
		})
		require.NoError(t, err)
		require.Len(t, info.Params, 50)
		nested := 0
		for _, p := range info.Params {
			nested += len(p.Properties)
		}
		assert.Equal(t, 1000, nested)
		assert.Len(t, info.Params[0].Properties, 100)
		assert.Empty(t, info.Params[49].Properties)
	})
}
