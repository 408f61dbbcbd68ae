package toolindex_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// exampleTool returns a tool with an empty object input schema.
func exampleTool(namespace, name, description string) toolmodel.Tool {
	t := toolmodel.Tool{Namespace: namespace}
	t.Name = name
	t.Description = description
	t.InputSchema = json.RawMessage(`{"type":"object"}`)
	return t
}

// Register tools served by an MCP server, search them, and get the one
// to run with its backend.
func Example() {
	ctx := context.Background()
	idx := toolindex.New()

	github := toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "github"}}
	err := idx.RegisterMany(ctx, []toolindex.Registration{
		{Tool: exampleTool("github", "create_issue", "Open a new issue in a repository."), Backend: github},
		{Tool: exampleTool("github", "list_pull_requests", "List the pull requests of a repository."), Backend: github},
		{Tool: exampleTool("github", "merge_pull_request", "Merge a pull request."), Backend: github},
	})
	if err != nil {
		panic(err)
	}

	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "merge pull requests", Limit: 2})
	if err != nil {
		panic(err)
	}
	for _, s := range page.Items {
		fmt.Printf("%s: %s\n", s.ID, s.Description)
	}

	tool, backends, err := idx.GetAll(ctx, page.Items[0].ID)
	if err != nil {
		panic(err)
	}
	fmt.Println("run", tool.Name, "on", backends[0].Identity())
	// Output:
	// github:merge_pull_request: Merge a pull request.
	// github:list_pull_requests: List the pull requests of a repository.
	// run merge_pull_request on mcp:github
}

// Page through a listing with cursors.
func ExampleMemoryIndex_List() {
	ctx := context.Background()
	idx := toolindex.New()
	local := toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "math"}}
	for _, name := range []string{"add", "subtract", "multiply", "divide", "modulo"} {
		if err := idx.Register(ctx, toolindex.Registration{Tool: exampleTool("math", name, "Arithmetic."), Backend: local}); err != nil {
			panic(err)
		}
	}

	req := toolindex.ListRequest{Namespace: "math", Limit: 2}
	for {
		page, err := idx.List(ctx, req)
		if err != nil {
			panic(err)
		}
		for _, s := range page.Items {
			fmt.Print(s.Name, " ")
		}
		fmt.Println("|")
		if page.NextCursor == "" {
			break
		}
		req.Cursor = page.NextCursor
	}
	// Output:
	// add divide |
	// modulo multiply |
	// subtract |
}

// Follow changes to the index.
func ExampleMemoryIndex_OnChange() {
	ctx := context.Background()
	idx := toolindex.New()
	unsubscribe := idx.OnChange(func(ev toolindex.ChangeEvent) {
		fmt.Printf("v%d %s %s %s\n", ev.Version, ev.Kind, ev.ToolID, ev.Backend)
	})
	defer unsubscribe()

	echo := exampleTool("", "echo", "Say it back.")
	local := toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "echo"}}
	remote := toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "echoes"}}
	for _, r := range []toolindex.Registration{{Tool: echo, Backend: local}, {Tool: echo, Backend: local}, {Tool: echo, Backend: remote}} {
		if err := idx.Register(ctx, r); err != nil {
			panic(err)
		}
	}
	if _, err := idx.UnregisterBackend(ctx, "local:echo"); err != nil {
		panic(err)
	}
	if _, err := idx.UnregisterBackend(ctx, "mcp:echoes"); err != nil {
		panic(err)
	}
	// Output:
	// v1 registered echo local:echo
	// v2 backend_added echo mcp:echoes
	// v3 backend_removed echo local:echo
	// v4 removed echo mcp:echoes
}
