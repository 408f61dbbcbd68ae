package toolserver_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// ExampleNew builds a server over a catalogue of two Go functions and
// uses it as an agent would, from an MCP client connected in memory: it
// searches the catalogue for a task, then runs the tool it found.
func ExampleNew() {
	ctx := context.Background()

	// The catalogue: tools in an index, their documentation derived from
	// it, and a runner that executes them as local Go functions.
	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	for _, def := range []struct {
		json string
		fn   toolrun.LocalFunc
	}{
		{
			`{"name": "add", "namespace": "math", "description": "Add two numbers.",
			  "inputSchema": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}, "required": ["a", "b"]}}`,
			func(_ context.Context, args map[string]any) (any, error) {
				a, _ := args["a"].(float64)
				b, _ := args["b"].(float64)
				return map[string]any{"sum": a + b}, nil
			},
		},
		{
			`{"name": "shout", "namespace": "text", "description": "Repeat a message in capitals.",
			  "inputSchema": {"type": "object", "properties": {"message": {"type": "string"}}}}`,
			func(_ context.Context, args map[string]any) (any, error) {
				message, _ := args["message"].(string)
				return strings.ToUpper(message) + "!", nil
			},
		},
	} {
		tool, err := toolmodel.DecodeTool([]byte(def.json))
		if err != nil {
			log.Fatal(err)
		}
		local.Register(tool.ID(), def.fn)
		if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}); err != nil {
			log.Fatal(err)
		}
	}
	docs := tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendLocal: local,
	}), toolrun.WithIndex(idx))

	ops, err := toolops.New(idx, docs, runner)
	if err != nil {
		log.Fatal(err)
	}
	srv, err := toolserver.New(ops)
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Close()

	// A client session over an in-memory transport; ServeStdio or
	// HTTPHandler serve real clients the same way.
	clientTransport, serverTransport := mcp.NewInMemoryTransports()
	serverSession, err := srv.MCPServer().Connect(ctx, serverTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer serverSession.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "example", Version: "1.0.0"}, nil)
	session, err := client.Connect(ctx, clientTransport, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer session.Close()

	found, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      toolserver.ToolSearch,
		Arguments: map[string]any{"query": "sum of two numbers", "limit": 1},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Print(textOf(found))

	ran, err := session.CallTool(ctx, &mcp.CallToolParams{
		Name:      toolserver.ToolRun,
		Arguments: map[string]any{"id": "math:add", "args": map[string]any{"a": 2, "b": 3}},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(textOf(ran))
	// Output:
	// math:add — Add two numbers.
	// {"sum":5}
}

// textOf returns the text contents of a tool result.
func textOf(res *mcp.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			out += t.Text
		}
	}
	return out
}
