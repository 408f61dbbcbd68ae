package mcpexec_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

type greetIn struct {
	Name string `json:"name"`
}

type greetOut struct {
	Greeting string `json:"greeting"`
}

// greeter returns an MCP server with one tool, greet.
func greeter() *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "greeter", Version: "v1"}, nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "greet", Description: "Greet someone."},
		func(ctx context.Context, req *mcp.CallToolRequest, in greetIn) (*mcp.CallToolResult, greetOut, error) {
			if req.Params.GetProgressToken() != nil {
				_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: 1, Total: 1, Message: "greeted"})
				// Once the client answered, it has handled the notification.
				_ = req.Session.Ping(ctx, nil)
			}
			return nil, greetOut{Greeting: "Hello, " + in.Name + "!"}, nil
		})
	return srv
}

// A manager runs the tools of MCP servers for a runner, and a Source of
// it keeps an index of their tools.
func Example() {
	ctx := context.Background()
	// A server in the same process; a command or a URL works the same:
	// mcpexec.ServerConfig{Command: "github-mcp", Args: []string{"stdio"}}.
	m, err := mcpexec.NewManager(mcpexec.WithServer("greeter", mcpexec.InMemory(greeter())))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	idx := toolindex.New(toolindex.WithSource(m.Source("greeter", "hello")))
	if err := idx.Refresh(ctx); err != nil {
		log.Fatal(err)
	}
	// Keep the index in step when the server's tools change.
	stop := m.AutoRefresh(idx)
	defer stop()

	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
		toolmodel.BackendMCP: m,
	}), toolrun.WithIndex(idx))
	res, err := runner.Run(ctx, "hello:greet", map[string]any{"name": "Ada"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Backend.Identity(), res.Structured)
	// Output: mcp:greeter map[greeting:Hello, Ada!]
}

// The manager is a toolrun.Executor: it can also be called directly, with
// a callback for the server's progress notifications.
func ExampleManager_Execute() {
	m, err := mcpexec.NewManager(mcpexec.WithServer("greeter", mcpexec.InMemory(greeter())))
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()

	out, err := m.Execute(context.Background(), &toolrun.Call{
		Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: "greet"}},
		Backend: mcpexec.Backend("greeter"),
		Args:    map[string]any{"name": "Grace"},
		OnProgress: func(p toolrun.Progress) {
			fmt.Printf("progress %v/%v: %s\n", p.Progress, p.Total, p.Message)
		},
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.IsError, out.Structured)
	// Output:
	// progress 1/1: greeted
	// false map[greeting:Hello, Grace!]
}

// Server configurations decode from the JSON of usual MCP client
// configurations, and refuse unknown fields.
func ExampleServerConfig() {
	var servers map[string]mcpexec.ServerConfig
	err := json.Unmarshal([]byte(`{
		"github": {"command": "github-mcp", "args": ["stdio"], "env": {"GITHUB_TOKEN": "..."}},
		"search": {"url": "https://search.example.com/mcp", "headers": {"Authorization": "Bearer ..."}}
	}`), &servers)
	if err != nil {
		log.Fatal(err)
	}
	var opts []mcpexec.Option
	for name, cfg := range servers {
		opts = append(opts, mcpexec.WithServer(name, cfg))
	}
	m, err := mcpexec.NewManager(opts...)
	if err != nil {
		log.Fatal(err)
	}
	defer m.Close()
	fmt.Println(m.Servers())

	err = json.Unmarshal([]byte(`{"comand": "typo"}`), new(mcpexec.ServerConfig))
	fmt.Println(err)
	// Output:
	// [github search]
	// MCP server configuration: json: unknown field "comand"
}
