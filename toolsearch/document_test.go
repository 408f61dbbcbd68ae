package toolsearch

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolmodel"
)

func TestDocumentParameters(t *testing.T) {
	nested := `{"type": "object", "properties": {
		"repo": {"type": "string", "description": "Repository, as owner/name."},
		"labels": {"type": "array", "items": {"type": "object", "properties": {
			"name": {"description": "Label name."},
			"deep": {"type": "object", "properties": {"tooDeep": {"description": "Beyond the depth limit."}}}
		}}},
		"flag": true,
		"tuple": {"type": "array", "items": [{"type": "string"}]}
	}}`
	tests := []struct {
		name               string
		schema             any
		wantNames, wantDoc string
	}{
		{"Nested", json.RawMessage(nested), "flag labels deep name repo tuple", "Label name.\nRepository, as owner/name."},
		{"Map", map[string]any{"type": "object", "properties": map[string]any{"q": map[string]any{"description": "Query."}}}, "q", "Query."},
		{"JSONSchemaValue", &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{"city": {Description: "City name."}}}, "city", "City name."},
		{"NoProperties", json.RawMessage(`{"type": "object"}`), "", ""},
		{"Malformed", json.RawMessage(`{"properties": "not an object"}`), "", ""},
		{"Missing", nil, "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tool := toolmodel.Tool{Tool: mcp.Tool{Name: "x", InputSchema: tt.schema}}
			d := newDocument(&tool)
			assert.Equal(t, tt.wantNames, d.paramNames)
			assert.Equal(t, tt.wantDoc, d.paramDescription)
		})
	}
}

func TestDocumentFields(t *testing.T) {
	tool := toolmodel.Tool{
		Tool: mcp.Tool{
			Name: "create_issue", Title: "Create issue", Description: "Open a ticket.",
			Annotations: &mcp.ToolAnnotations{Title: "New issue"},
			InputSchema: map[string]any{"type": "object"},
		},
		Namespace: "github",
		Tags:      []string{"issues", "write"},
	}
	d := newDocument(&tool)
	assert.Equal(t, "github:create_issue", d.id)
	assert.Equal(t, "Create issue\nNew issue", d.title)
	assert.Equal(t, "issues write", d.tags)
	assert.Equal(t, map[string]any{
		nameField: "create_issue", namespaceField: "github", titleField: "Create issue\nNew issue",
		tagsField: "issues write", descriptionField: "Open a ticket.",
		namespaceKeyField: "github", nameKeyField: "create_issue", hashField: d.hash,
		// Empty fields are left out; the Searcher fills in the name's
		// pairs (see TestNamePairs).
	}, d.fields(true))
	assert.NotContains(t, d.fields(false), hashField, "only an on-disk index stores the hash")

	same := tool.Clone()
	same.Metadata = map[string]any{"not": "searched"}
	assert.Equal(t, d.hash, newDocument(&same).hash, "the hash covers the searched text only")
	changed := tool.Clone()
	changed.Description = "Open a bug."
	assert.NotEqual(t, d.hash, newDocument(&changed).hash)

	tool.Annotations.Title = "Create issue"
	assert.Equal(t, "Create issue", newDocument(&tool).title, "a repeated title counts once")
}

// FuzzDocumentSchema feeds arbitrary JSON as an input schema: reading the
// parameters never panics, and a schema that yields parameters is one
// that decodes.
func FuzzDocumentSchema(f *testing.F) {
	for _, seed := range []string{
		`{"type": "object"}`, `{"properties": {"a": {"description": "x", "items": {"properties": {"b": true}}}}}`,
		`{"properties": {"a": {"items": [1, 2]}}}`, `{"properties": null}`, `[]`, `true`, `{"properties": {"a": {"description": 3}}}`,
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, schema string) {
		tool := toolmodel.Tool{Tool: mcp.Tool{Name: "x", InputSchema: json.RawMessage(schema)}}
		d := newDocument(&tool)
		if d.paramNames != "" {
			assert.True(t, json.Valid([]byte(schema)))
		}
		assert.Equal(t, d.hash, newDocument(&tool).hash)
	})
}

func TestSplitLead(t *testing.T) {
	tests := []struct {
		name, desc, lead, details string
	}{
		{name: "OneParagraph", desc: "Read a file.\nIt may be large.", lead: "Read a file.\nIt may be large."},
		{name: "BlankLine", desc: "Fetch a URL.\n\nAlthough you did not have access, now you do.", lead: "Fetch a URL.", details: "Although you did not have access, now you do."},
		{name: "BlankLineOfSpaces", desc: "Fetch a URL now.\n  \t\nMore.", lead: "Fetch a URL now.", details: "More."},
		{name: "ListAfterIntro", desc: "Get the weather of a city.\nReturns:\n- temp (number): degrees\n- wind (number): speed", lead: "Get the weather of a city.\nReturns:", details: "- temp (number): degrees\n- wind (number): speed"},
		{name: "NumberedList", desc: "Steps to run the job below.\n1. build\n2) test", lead: "Steps to run the job below.", details: "1. build\n2) test"},
		{name: "ListFromTheStart", desc: "- first item of the list\n- second", lead: "- first item of the list", details: "- second"},
		{name: "ShortHeadingJoined", desc: "Weather API\n\nGet the forecast of a city.\n\nFields follow.", lead: "Weather API\n\nGet the forecast of a city.", details: "Fields follow."},
		{name: "NotAList", desc: "Version 2.0 of the tool is here.\n2.0 is better\n-x flag", lead: "Version 2.0 of the tool is here.\n2.0 is better\n-x flag"},
		{name: "Trimmed", desc: "\n\n  Create an issue in a repo.  \n\n\n  Details.  \n", lead: "Create an issue in a repo.", details: "Details."},
		{name: "Empty", desc: ""},
		{name: "CRLF", desc: "Create an issue in a repo.\r\n\r\nDetails here.", lead: "Create an issue in a repo.", details: "Details here."},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lead, details := splitLead(tt.desc)
			assert.Equal(t, tt.lead, lead)
			assert.Equal(t, tt.details, details)
		})
	}
}

// FuzzSplitLead checks that splitting a description loses no word and
// adds none, and that a description without a line break is all lead.
func FuzzSplitLead(f *testing.F) {
	for _, seed := range []string{"", "a", "Fetch a URL.\n\nMore.", "x\n- y\n- z", "1. a\n2. b", "\n\n\n", "a b c\n\xff\n\nd", "• one two three\n• four"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, desc string) {
		lead, details := splitLead(desc)
		assert.Equal(t, strings.Fields(desc), append(strings.Fields(lead), strings.Fields(details)...))
		if !strings.Contains(desc, "\n") {
			assert.Equal(t, strings.TrimSpace(desc), lead)
			assert.Empty(t, details)
		}
	})
}
