package trust_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/trust"
)

// canonicalReadFile is the canonical form of the item of
// TestFingerprintIsCanonical, byte for byte.
const canonicalReadFile = `{"kind":"tool","name":"read_file","description":"Read a file.","inputSchema":{"properties":{"path":{"maxLength":4096,"type":"string"}},"type":"object"}}`

func TestFingerprintIsCanonical(t *testing.T) {
	base := trust.Item{Upstream: "fs", Kind: trust.KindTool, Name: "read_file", Description: "Read a file.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string","maxLength":4096}}}`)}
	fp := trust.FingerprintOf(&base)
	assert.True(t, fp.Valid())
	assert.Len(t, fp.Short(), trust.ShortLen)

	same := base
	same.Upstream, same.Namespace = "fs2", "files" // not fingerprinted
	same.InputSchema = json.RawMessage(" {\"properties\": {\"path\": {\"maxLength\": 4096.0, \"type\": \"string\"}},\n \"type\": \"object\"}")
	assert.Equal(t, fp, trust.FingerprintOf(&same))

	changes := map[string]func(it *trust.Item){
		"kind":         func(it *trust.Item) { it.Kind = trust.KindPrompt },
		"name":         func(it *trust.Item) { it.Name = "read_files" },
		"title":        func(it *trust.Item) { it.Title = "Read" },
		"description":  func(it *trust.Item) { it.Description += " " },
		"schema":       func(it *trust.Item) { it.InputSchema = json.RawMessage(`{"type":"object"}`) },
		"output":       func(it *trust.Item) { it.OutputSchema = json.RawMessage(`{"type":"object"}`) },
		"annotations":  func(it *trust.Item) { it.Annotations = json.RawMessage(`{"readOnlyHint":true}`) },
		"arguments":    func(it *trust.Item) { it.Arguments = []trust.Argument{{Name: "x"}} },
		"uri template": func(it *trust.Item) { it.URITemplate = "file:///{path}" },
		"mime type":    func(it *trust.Item) { it.MIMEType = "text/plain" },
		"bad json":     func(it *trust.Item) { it.InputSchema = json.RawMessage(`{"type":`) },
	}
	for name, change := range changes {
		t.Run(name, func(t *testing.T) {
			it := base
			change(&it)
			assert.NotEqual(t, fp, trust.FingerprintOf(&it))
		})
	}
	// The fingerprint of this item is fixed: a change of the canonical
	// form would unpin every stored item.
	assert.Equal(t, canonicalReadFile, string(trust.Canonical(&base))) //nolint:testifylint // the exact bytes are the point: JSONEq would accept any spacing or key order
	assert.Equal(t, "8da8fe85fc86", fp.Short())
}

func TestItemsFromMCP(t *testing.T) {
	destructive := false
	tool := &mcp.Tool{Name: "add", Description: "Adds.", InputSchema: map[string]any{"type": "object"},
		Annotations: &mcp.ToolAnnotations{Title: "Add", ReadOnlyHint: true, DestructiveHint: &destructive}}
	it, err := trust.ToolItem("calc", tool)
	require.NoError(t, err)
	assert.Equal(t, "calc:add", it.ID())
	assert.Equal(t, "calc:add", it.ExposedName())
	assert.Equal(t, "Add", it.Title)
	assert.JSONEq(t, `{"readOnlyHint":true,"idempotentHint":false,"destructiveHint":false,"title":"Add"}`, string(it.Annotations))
	assert.JSONEq(t, `{"type":"object"}`, string(it.InputSchema))
	assert.Nil(t, it.OutputSchema)

	_, err = trust.ToolItem("calc", &mcp.Tool{Name: "bad", InputSchema: json.RawMessage(`{`)})
	require.Error(t, err)
	_, err = trust.ToolItem("calc", &mcp.Tool{Name: "bad", InputSchema: func() {}})
	require.Error(t, err)

	p := trust.PromptItem("docs", &mcp.Prompt{Name: "summarize", Arguments: []*mcp.PromptArgument{{Name: "text", Required: true}, nil}})
	assert.Equal(t, "prompt:docs:summarize", p.ID())
	assert.Equal(t, []trust.Argument{{Name: "text", Required: true}}, p.Arguments)

	rt := trust.ResourceTemplateItem("fs", &mcp.ResourceTemplate{Name: "file", URITemplate: "file:///{path}", MIMEType: "text/plain"})
	assert.Equal(t, "template:fs:file", rt.ID())
	assert.Equal(t, "file:///{path}", rt.URITemplate)
}

func TestParseID(t *testing.T) {
	tests := []struct {
		id                   string
		upstream, kind, name string
		bad                  bool
	}{
		{id: "github:create_issue", upstream: "github", kind: "tool", name: "create_issue"},
		{id: "prompt:docs:summarize", upstream: "docs", kind: "prompt", name: "summarize"},
		{id: "template:fs:file", upstream: "fs", kind: "template", name: "file"},
		{id: "prompt:x", upstream: "prompt", kind: "tool", name: "x"},
		{id: "fs:a/b", upstream: "fs", kind: "tool", name: "a/b"},
		{id: "nocolon", bad: true},
		{id: ":x", bad: true},
		{id: "x:", bad: true},
		{id: "prompt::x", bad: true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			up, kind, name, err := trust.ParseID(tt.id)
			if tt.bad {
				require.Error(t, err)
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, []string{tt.upstream, tt.kind, tt.name}, []string{up, string(kind), name})
			assert.Equal(t, tt.id, trust.MakeID(up, kind, name))
		})
	}
}
