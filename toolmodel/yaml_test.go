package toolmodel_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// richBackends has one backend of every kind, with every setting.
func richBackends() []toolmodel.ToolBackend {
	return []toolmodel.ToolBackend{
		{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "github", ToolName: "create-issue"}},
		{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "crm", ToolName: "lookup"}},
		{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "math.add"}},
		{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{
			BaseURL: "https://api.example.com/v1", Method: "POST", Path: "/repos/{owner}/issues",
			QueryParams: []string{"dry_run"}, HeaderParams: []string{"X-Trace"}, BodyParam: "issue",
			BodyEncoding: toolmodel.BodyForm, Headers: map[string]string{"Accept": "application/json"},
			Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Secret: "CLIENT_SECRET", Username: "client-id",
				TokenURL: "https://auth.example.com/token", Scopes: []string{"repo", "read:org"}},
			Timeout: toolmodel.Duration(1500 * time.Millisecond),
		}},
		{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{
			Address: "localhost:50051", Method: "/pkg.Service/Method",
			TLS:      &toolmodel.GRPCTLS{Insecure: true, CAFile: "/etc/ca.pem", ServerName: "svc.local"},
			Metadata: map[string]string{"x-tenant": "acme"}, Timeout: toolmodel.Duration(2 * time.Second),
		}},
		{Kind: "nats", Config: map[string]string{"source": "nats://bus:4222", "subject": "tools.run"}},
	}
}

func richTool(t *testing.T) toolmodel.Tool {
	t.Helper()
	tool, err := toolmodel.DecodeTool([]byte(fullToolJSON))
	require.NoError(t, err)
	return tool
}

func TestToolAndBackendRoundTrips(t *testing.T) {
	codecs := map[string]struct {
		marshal   func(any) ([]byte, error)
		unmarshal func([]byte, any) error
	}{
		"json": {json.Marshal, json.Unmarshal},
		"yaml": {yaml.Marshal, yaml.Unmarshal},
	}
	for name, c := range codecs {
		t.Run(name+"/tool", func(t *testing.T) {
			tool := richTool(t)
			raw, err := c.marshal(tool)
			require.NoError(t, err)
			var again toolmodel.Tool
			require.NoError(t, c.unmarshal(raw, &again), "%s", raw)
			assert.True(t, again.Equal(tool), "round trip changed the tool:\n%s", raw)
			assert.Equal(t, tool, again, "the decoded tool is the one JSON decoding gives")
			require.NoError(t, again.Validate())
			assert.Contains(t, string(raw), "12345678901234567890", "a large integer keeps every digit")

			// A pointer and a tool inside another document work alike.
			raw, err = c.marshal(map[string]any{"tools": []*toolmodel.Tool{&tool}})
			require.NoError(t, err)
			var doc struct {
				Tools []toolmodel.Tool `json:"tools" yaml:"tools"`
			}
			require.NoError(t, c.unmarshal(raw, &doc))
			require.Len(t, doc.Tools, 1)
			assert.Equal(t, tool, doc.Tools[0])
		})
		t.Run(name+"/backends", func(t *testing.T) {
			for _, b := range richBackends() {
				require.NoError(t, b.Validate())
				raw, err := c.marshal(b)
				require.NoError(t, err)
				var again toolmodel.ToolBackend
				require.NoError(t, c.unmarshal(raw, &again), "%s", raw)
				assert.Equal(t, b, again, "%s", raw)
				assert.True(t, again.Equal(b))
			}
		})
	}
}

func TestToolYAMLReadsLikeJSON(t *testing.T) {
	const doc = `
name: create_issue
namespace: github
description: Create a new issue.
inputSchema:
  type: object
  properties:
    title: {type: string, maxLength: 80}
    labels: {type: array, items: {type: string}}
  required: [title]
annotations:
  readOnlyHint: false
  destructiveHint: true
tags: [issues, write]
metadata:
  cost: {tokens: 12, ratio: 0.5}
  "on": yes-please
`
	var tool toolmodel.Tool
	require.NoError(t, yaml.Unmarshal([]byte(doc), &tool))
	require.NoError(t, tool.Validate())
	assert.Equal(t, "github:create_issue", tool.ID())
	assert.JSONEq(t, `{"type":"object","properties":{"title":{"type":"string","maxLength":80},"labels":{"type":"array","items":{"type":"string"}}},"required":["title"]}`,
		string(tool.InputSchema.(json.RawMessage)))
	assert.Equal(t, map[string]any{"cost": map[string]any{"tokens": 12.0, "ratio": 0.5}, "on": "yes-please"}, tool.Metadata)
	require.NotNil(t, tool.Annotations)
	assert.True(t, *tool.Annotations.DestructiveHint)

	var backend toolmodel.ToolBackend
	require.NoError(t, yaml.Unmarshal([]byte("kind: http\nhttp: {baseUrl: 'https://x.example', method: GET, path: /a, timeout: 2s}\n"), &backend))
	require.NoError(t, backend.Validate())
	assert.Equal(t, toolmodel.Duration(2*time.Second), backend.HTTP.Timeout)
}

func TestToolYAMLErrors(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"not a mapping", "- a\n- b\n", "cannot unmarshal"},
		{"infinite number", "name: x\ninputSchema: {maximum: .inf}\n", "not a JSON value"},
		{"non-scalar key", "name: x\ninputSchema: {[a]: 1}\n", "key"},
		{"wrong field type", "name: [x]\ninputSchema: {}\n", "cannot unmarshal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tool toolmodel.Tool
			err := yaml.Unmarshal([]byte(tt.doc), &tool)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	var tool toolmodel.Tool
	bomb := "a: &a [x, x, x, x, x, x, x, x, x, x]\n"
	for i := range 12 {
		bomb += string(rune('b'+i)) + ": &" + string(rune('b'+i)) + " [*" + string(rune('a'+i)) + ", *" + string(rune('a'+i)) + ", *" + string(rune('a'+i)) + ", *" + string(rune('a'+i)) + "]\n"
	}
	err := yaml.Unmarshal([]byte("name: x\ninputSchema: {}\nmetadata:\n  "+strings.ReplaceAll(bomb, "\n", "\n  ")), &tool)
	require.Error(t, err, "aliases that expand without bound are refused")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}
