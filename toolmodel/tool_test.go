package toolmodel_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestParseToolID(t *testing.T) {
	tests := []struct {
		id            string
		wantNamespace string
		wantName      string
		wantErr       string
	}{
		{id: "create_issue", wantName: "create_issue"},
		{id: "github:create_issue", wantNamespace: "github", wantName: "create_issue"},
		{id: "a.b-c:x.y_z-1", wantNamespace: "a.b-c", wantName: "x.y_z-1"},
		{id: "", wantErr: "name: empty"},
		{id: ":x", wantErr: "namespace: empty"},
		{id: "ns:", wantErr: "name: empty"},
		{id: "a:b:c", wantErr: `name: byte ':' at offset 1`},
		{id: "has space", wantErr: `byte ' ' at offset 3`},
		{id: "café:thé", wantErr: `namespace: character 'é' at offset 3`},
		{id: "caf\xff:x", wantErr: `namespace: byte 0xff at offset 3`},
		{id: "ns:" + strings.Repeat("x", 129), wantErr: "129 bytes long, the limit is 128"},
		{id: "é", wantErr: "only ASCII letters"},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			ns, name, err := toolmodel.ParseToolID(tt.id)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.wantErr)
				assert.ErrorIs(t, err, errors.ErrInvalidArgument)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.wantNamespace, ns)
			assert.Equal(t, tt.wantName, name)
			assert.Equal(t, tt.id, toolmodel.ToolID(ns, name))
		})
	}
}

const fullToolJSON = `{
  "_meta": {"vendor.example/rank": 3},
  "annotations": {"title": "Create issue", "readOnlyHint": false, "destructiveHint": true, "idempotentHint": false},
  "description": "Create a new issue in a repository.",
  "inputSchema": {"type": "object", "properties": {"title": {"type": "string", "maxLength": 12345678901234567890}}, "required": ["title"]},
  "name": "create_issue",
  "outputSchema": {"type": "object", "properties": {"number": {"type": "integer"}}},
  "title": "Create an issue",
  "icons": [{"src": "https://example.com/i.png", "mimeType": "image/png"}],
  "namespace": "github",
  "version": "1.2.0",
  "tags": ["issues", "write"],
  "metadata": {"owner": "platform", "cost": {"tokens": 12}}
}`

func TestToolJSONRoundTripIsLossless(t *testing.T) {
	tool, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	require.NoError(t, err)
	assert.Equal(t, "github:create_issue", tool.ID())
	assert.Equal(t, "1.2.0", tool.Version)
	assert.Equal(t, []string{"issues", "write"}, tool.Tags)
	assert.Equal(t, "platform", tool.Metadata["owner"])
	require.NotNil(t, tool.Annotations)
	assert.Equal(t, "Create issue", tool.Annotations.Title)
	assert.IsType(t, json.RawMessage{}, tool.InputSchema)

	encoded, err := json.Marshal(tool)
	require.NoError(t, err)
	assert.JSONEq(t, fullToolJSON, string(encoded))
	// The large integer keeps every digit: schemas are not decoded into float64.
	assert.Contains(t, string(encoded), "12345678901234567890")

	again, err := toolmodel.DecodeTool(encoded)
	require.NoError(t, err)
	assert.Equal(t, tool, again)
}

func TestPlainMCPJSONIsATool(t *testing.T) {
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"now","inputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	assert.Equal(t, "now", tool.ID())
	assert.Empty(t, tool.Namespace)

	// And a tool written as plain MCP JSON drops only the extensions.
	full, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	require.NoError(t, err)
	plain, err := json.Marshal(full.MCP())
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, json.Unmarshal(plain, &fields))
	assert.NotContains(t, fields, "namespace")
	assert.NotContains(t, fields, "tags")
	assert.Equal(t, "create_issue", fields["name"])
	assert.Contains(t, fields, "annotations")
}

func TestDecodeToolErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"not json", `{`, "decode tool"},
		{"wrong type", `{"name": 3}`, "decode tool"},
		{"no schema", `{"name":"x"}`, "inputSchema: missing"},
		{"null schema", `{"name":"x","inputSchema":null}`, "inputSchema: missing"},
		{"schema not object", `{"name":"x","inputSchema":[1]}`, "inputSchema: not a JSON object"},
		{"schema type", `{"name":"x","inputSchema":{"type":"string"}}`, `type is "string", MCP requires "object"`},
		{"output schema", `{"name":"x","inputSchema":{},"outputSchema":"s"}`, "outputSchema: not a JSON object"},
		{"bad name and ns", `{"name":"a b","namespace":"c:d","inputSchema":{}}`, "are allowed; namespace: byte ':' at offset 1"},
		{"tags", `{"name":"x","inputSchema":{},"tags":["Two Words"]}`, `tags[0]: "Two Words" is not in normal form`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := toolmodel.DecodeTool([]byte(tt.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}

func TestNormalizeTags(t *testing.T) {
	assert.Equal(t, []string{"issue-tracker", "read-only", "write"},
		toolmodel.NormalizeTags([]string{" Write", "read  only", "", "Issue Tracker", "write", "  "}))
	assert.Nil(t, toolmodel.NormalizeTags([]string{" ", ""}))
}

func TestFromMCPAndEqual(t *testing.T) {
	sdkTool := &mcp.Tool{
		Name:        "read_file",
		Description: "Read a file.",
		InputSchema: map[string]any{
			"type":       "object",
			"properties": map[string]any{"path": map[string]any{"type": "string"}},
		},
	}
	tool, err := toolmodel.FromMCP(sdkTool, "fs")
	require.NoError(t, err)
	assert.Equal(t, "fs:read_file", tool.ID())

	// The result shares nothing with the SDK value.
	sdkTool.InputSchema.(map[string]any)["type"] = "string"
	require.NoError(t, tool.Validate())

	// Equal compares schemas by content whatever their representation.
	typed := tool
	typed.InputSchema = &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"path": {Type: "string"}}}
	assert.True(t, tool.Equal(typed))
	typed.Description = "Read a whole file."
	assert.False(t, tool.Equal(typed))

	_, err = toolmodel.FromMCP(&mcp.Tool{Name: "bad name", InputSchema: map[string]any{}}, "")
	assert.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func TestCloneIsDeep(t *testing.T) {
	tool, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	require.NoError(t, err)
	c := tool.Clone()
	require.True(t, c.Equal(tool))
	c.Tags[0] = "changed"
	c.Metadata["owner"] = "someone else"
	c.InputSchema.(json.RawMessage)[0] = ' '
	assert.Equal(t, "issues", tool.Tags[0])
	assert.Equal(t, "platform", tool.Metadata["owner"])
	assert.Equal(t, byte('{'), tool.InputSchema.(json.RawMessage)[0])
}

func TestCloneCopiesEveryRepresentation(t *testing.T) {
	yes := true
	tool := toolmodel.Tool{Tool: mcp.Tool{
		Name:        "x",
		InputSchema: map[string]any{"type": "object", "required": []any{"a"}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: &yes},
		Icons:       []mcp.Icon{{Source: "https://example.com/i.png", Sizes: []string{"48x48"}}},
	}, Metadata: map[string]any{"typed": struct{ N int }{N: 1}}}
	c := tool.Clone()
	c.InputSchema.(map[string]any)["required"].([]any)[0] = "b"
	*c.Annotations.DestructiveHint = false
	c.Icons[0].Sizes[0] = "any"
	assert.Equal(t, "a", tool.InputSchema.(map[string]any)["required"].([]any)[0])
	assert.True(t, *tool.Annotations.DestructiveHint)
	assert.Equal(t, "48x48", tool.Icons[0].Sizes[0])
	assert.JSONEq(t, `{"N":1}`, string(c.Metadata["typed"].(json.RawMessage)))
	assert.True(t, c.Equal(toolmodel.Tool{Tool: mcp.Tool{Name: "x", InputSchema: map[string]any{"type": "object", "required": []any{"b"}},
		Annotations: &mcp.ToolAnnotations{DestructiveHint: new(bool)}, Icons: []mcp.Icon{{Source: "https://example.com/i.png", Sizes: []string{"any"}}}},
		Metadata: map[string]any{"typed": map[string]any{"N": 1.0}}}))
}

func TestEqualComparesNumbersByValue(t *testing.T) {
	a, err := toolmodel.DecodeTool([]byte(`{"name":"x","inputSchema":{"type":"object","maxProperties":1.0,"huge":1e700}}`))
	require.NoError(t, err)
	b, err := toolmodel.DecodeTool([]byte(`{"name":"x","inputSchema":{"huge":1e700,"type":"object","maxProperties":1}}`))
	require.NoError(t, err)
	assert.True(t, a.Equal(b), "key order and number spelling do not matter")
	c, err := toolmodel.DecodeTool([]byte(`{"name":"x","inputSchema":{"huge":2e700,"type":"object","maxProperties":1}}`))
	require.NoError(t, err)
	assert.False(t, a.Equal(c), "numbers beyond float64 are compared as written")
}

// TestMetadataNumbersKeepEveryDigit checks that numbers in _meta and
// metadata that a float64 would round survive decoding, encoding, YAML,
// Clone and Equal, while those a float64 holds exactly stay float64.
func TestMetadataNumbersKeepEveryDigit(t *testing.T) {
	tests := []struct {
		name, number string
		want         any  // the decoded value
		yamlString   bool // YAML resolves the plain scalar as a string
	}{
		{name: "small integer", number: "3", want: 3.0},
		{name: "fraction", number: "1.5", want: 1.5},
		{name: "exponent", number: "1e3", want: 1000.0},
		{name: "largest exact integer", number: "9007199254740992", want: 9007199254740992.0},
		{name: "2^53 + 1", number: "9007199254740993", want: json.Number("9007199254740993")},
		{name: "negative 2^53 + 1", number: "-9007199254740993", want: json.Number("-9007199254740993")},
		{name: "beyond uint64", number: "123456789012345678901234567890", want: json.Number("123456789012345678901234567890")},
		{name: "more digits than a float64", number: "0.30000000000000001", want: json.Number("0.30000000000000001")},
		{name: "beyond float64's range", number: "1e400", want: json.Number("1e400"), yamlString: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc := `{"name":"x","inputSchema":{},"_meta":{"n":` + tt.number + `},"metadata":{"n":` + tt.number +
				`,"list":[` + tt.number + `],"nested":{"n":` + tt.number + `}}}`
			tool, err := toolmodel.DecodeTool([]byte(doc))
			require.NoError(t, err)
			assert.Equal(t, tt.want, tool.Meta["n"])
			assert.Equal(t, tt.want, tool.Metadata["n"])
			assert.Equal(t, []any{tt.want}, tool.Metadata["list"])
			assert.Equal(t, map[string]any{"n": tt.want}, tool.Metadata["nested"])

			encoded, err := json.Marshal(tool)
			require.NoError(t, err)
			if _, rounded := tt.want.(json.Number); rounded {
				assert.Equal(t, 4, strings.Count(string(encoded), tt.number), "every occurrence written as it was read: %s", encoded)
			}
			again, err := toolmodel.DecodeTool(encoded)
			require.NoError(t, err)
			assert.Equal(t, tool, again)

			if !tt.yamlString {
				var fromYAML toolmodel.Tool
				require.NoError(t, yaml.Unmarshal([]byte(doc), &fromYAML))
				assert.Equal(t, tool, fromYAML)
			}
			out, err := yaml.Marshal(tool)
			require.NoError(t, err)
			var backFromYAML toolmodel.Tool
			require.NoError(t, yaml.Unmarshal(out, &backFromYAML))
			assert.Equal(t, tool, backFromYAML, "%s", out)

			assert.Equal(t, tool, tool.Clone())
		})
	}
}

// TestEqualSeesEveryDigit checks that Equal tells apart numbers a float64
// cannot, and still treats spellings of one number alike.
func TestEqualSeesEveryDigit(t *testing.T) {
	decode := func(doc string) toolmodel.Tool {
		t.Helper()
		tool, err := toolmodel.DecodeTool([]byte(doc))
		require.NoError(t, err)
		return tool
	}
	tests := []struct {
		name  string
		a, b  string
		equal bool
	}{
		{"integers beyond 2^53 in a schema", `{"const":9007199254740993}`, `{"const":9007199254740992}`, false},
		{"integers beyond 2^53 in metadata", `{},"metadata":{"n":9007199254740993}`, `{},"metadata":{"n":9007199254740992}`, false},
		{"long fractions", `{"const":0.30000000000000001}`, `{"const":0.3}`, false},
		{"one large integer spelled twice", `{"const":9007199254740993}`, `{"const":9007199254740993.0}`, true},
		{"one huge number spelled twice", `{"const":1e700}`, `{"const":10e699}`, true},
		{"one small number spelled twice", `{"const":1}`, `{"const":1.0e0}`, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := decode(`{"name":"x","inputSchema":` + tt.a + `}`)
			b := decode(`{"name":"x","inputSchema":` + tt.b + `}`)
			assert.Equal(t, tt.equal, a.Equal(b))
			assert.Equal(t, tt.equal, b.Equal(a))
		})
	}
}
