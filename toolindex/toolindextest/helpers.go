package toolindextest

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// NewTool returns a tool whose input schema is an object with the given
// string parameters, valid when its namespace and name are. It saves tests
// of indexes and searchers from spelling out schemas.
func NewTool(namespace, name, description string, params ...string) toolmodel.Tool {
	props := map[string]any{}
	for _, p := range params {
		props[p] = map[string]any{"type": "string"}
	}
	// A map of strings always marshals.
	schema, _ := json.Marshal(map[string]any{"type": "object", "properties": props})
	t := toolmodel.Tool{Namespace: namespace}
	t.Name = name
	t.Description = description
	t.InputSchema = json.RawMessage(schema)
	return t
}

// LocalBackend returns a valid backend of kind local, of identity
// "local:<name>".
func LocalBackend(name string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: name}}
}

// MCPBackend returns a valid backend of kind mcp, of identity
// "mcp:<server>".
func MCPBackend(server string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: server}}
}

// HTTPBackend returns a valid backend of kind http, a GET of the API at
// baseURL, of identity "http:<baseURL>".
func HTTPBackend(baseURL string) toolmodel.ToolBackend {
	return toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: baseURL, Method: "GET", Path: "/"}}
}

func reg(t toolmodel.Tool, b toolmodel.ToolBackend) toolindex.Registration {
	return toolindex.Registration{Tool: t, Backend: b}
}

func hitIDs(hits []toolindex.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.ID
	}
	return ids
}

func summaryIDs(items []toolindex.Summary) []string {
	ids := make([]string, len(items))
	for i, s := range items {
		ids[i] = s.ID
	}
	return ids
}

// rankingError describes the first pair of hits out of order (score
// descending, then ID ascending), or returns "".
func rankingError(hits []toolindex.Hit) string {
	for i := 1; i < len(hits); i++ {
		a, b := hits[i-1], hits[i]
		if a.Score < b.Score || a.Score == b.Score && a.ID >= b.ID {
			return fmt.Sprintf("hits %d (%s %g) and %d (%s %g) are out of order", i-1, a.ID, a.Score, i, b.ID, b.Score)
		}
	}
	return ""
}

// words is a vocabulary for generated catalogues.
var words = []string{
	"create", "delete", "list", "update", "search", "read", "write", "send",
	"issue", "repository", "file", "message", "user", "invoice", "ticket",
	"weather", "calendar", "event", "email", "report",
}

// catalogue returns n distinct tools named from the vocabulary, in
// namespaces ns0..ns3, each described with three words.
func catalogue(n int) []toolmodel.Tool {
	tools := make([]toolmodel.Tool, n)
	for i := range tools {
		verb, noun := words[i%8], words[8+(i/8)%12]
		desc := strings.Join([]string{verb, "a", noun, words[(i*7)%len(words)]}, " ")
		tools[i] = NewTool(fmt.Sprintf("ns%d", i%4), fmt.Sprintf("%s_%s_%d", verb, noun, i), desc)
	}
	return tools
}
