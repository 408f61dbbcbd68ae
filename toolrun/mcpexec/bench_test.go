package mcpexec_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// benchSchema is a realistic input schema: ten properties, a nested
// object, enums and patterns.
const benchSchema = `{
  "type":"object",
  "properties":{
    "owner":{"type":"string","pattern":"^[A-Za-z0-9-]+$"},
    "repo":{"type":"string"},
    "title":{"type":"string","minLength":1},
    "body":{"type":"string"},
    "labels":{"type":"array","items":{"type":"string"}},
    "priority":{"enum":["low","medium","high"]},
    "milestone":{"type":"integer","minimum":1},
    "draft":{"type":"boolean"},
    "assignee":{"type":"string"},
    "meta":{"type":"object","properties":{"source":{"enum":["web","cli"]}}}
  },
  "required":["owner","repo","title"]}`

func benchArgs() map[string]any {
	return map[string]any{"owner": "metatools-go", "repo": "metatools", "title": "Crash", "labels": []any{"bug"},
		"priority": "high", "milestone": 2.0, "meta": map[string]any{"source": "cli"}}
}

// benchServer is an in-memory MCP server with one tool, create_issue,
// which echoes its arguments.
func benchServer() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "bench"}, nil)
	srv.AddTool(&mcp.Tool{Name: "create_issue", InputSchema: json.RawMessage(benchSchema)},
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{StructuredContent: req.Params.Arguments}, nil
		})
	return srv
}

// BenchmarkRun/mcp runs an MCP tool through the whole pipeline of a
// runner; BenchmarkDirect/mcp calls the same server through a bare SDK
// session after the same cached validation. Their ratio is the cost of
// the runner and the executor.
func BenchmarkRun(b *testing.B) {
	b.Run("mcp", func(b *testing.B) {
		ctx := context.Background()
		m, err := mcpexec.NewManager(mcpexec.WithServer("bench", mcpexec.InMemory(benchServer())))
		if err != nil {
			b.Fatal(err)
		}
		defer m.Close()
		idx := toolindex.New()
		if err := m.RegisterTools(ctx, idx, "bench", "github"); err != nil {
			b.Fatal(err)
		}
		r := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendMCP: m}), toolrun.WithIndex(idx))
		args := benchArgs()
		b.ReportAllocs()
		for b.Loop() {
			if _, err := r.Run(ctx, "github:create_issue", args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkDirect(b *testing.B) {
	b.Run("mcp", func(b *testing.B) {
		ctx := context.Background()
		clientTransport, serverTransport := mcp.NewInMemoryTransports()
		if _, err := benchServer().Connect(ctx, serverTransport, nil); err != nil {
			b.Fatal(err)
		}
		sess, err := mcp.NewClient(&mcp.Implementation{Name: "bench"}, nil).Connect(ctx, clientTransport, nil)
		if err != nil {
			b.Fatal(err)
		}
		defer sess.Close()
		tool := toolmodel.Tool{Tool: mcp.Tool{Name: "create_issue", InputSchema: json.RawMessage(benchSchema)}, Namespace: "github"}
		v := toolmodel.NewValidator()
		args := benchArgs()
		b.ReportAllocs()
		for b.Loop() {
			if err := v.ValidateInput(&tool, args); err != nil {
				b.Fatal(err)
			}
			if _, err := sess.CallTool(ctx, &mcp.CallToolParams{Name: "create_issue", Arguments: args}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
