package toolops_test

import (
	"context"
	"fmt"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// The operations over a catalogue whose policy denies the namespace
// "admin": every face built on them finds, describes and runs the other
// tools, and meets an admin tool as one that does not exist.
func Example() {
	type echoArgs struct {
		Text string `json:"text"`
	}
	ctx := context.Background()
	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	for _, ns := range []string{"text", "admin"} {
		tool, fn, err := toolrun.NewLocalTool("echo", "Echo a text back.", func(_ context.Context, in echoArgs) (string, error) {
			return in.Text, nil
		})
		if err != nil {
			panic(err)
		}
		tool.Namespace = ns
		local.Register(tool.ID(), fn)
		if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(tool.ID())}); err != nil {
			panic(err)
		}
	}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}),
		toolrun.WithIndex(idx), toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{"admin:*"}}))

	ops, err := toolops.New(idx, nil, runner)
	if err != nil {
		panic(err)
	}
	found, _ := ops.Search(ctx, toolops.SearchRequest{Query: "echo"})
	for _, t := range found.Tools {
		fmt.Println("found", t.ID)
	}
	names, _ := ops.Namespaces(ctx)
	fmt.Println("namespaces", names)
	res, _ := ops.Run(ctx, toolops.RunRequest{ID: "text:echo", Args: map[string]any{"text": "hi"}})
	fmt.Println("ran", res.Structured)
	_, err = ops.Run(ctx, toolops.RunRequest{ID: "admin:echo", Args: map[string]any{"text": "hi"}})
	fmt.Println(err)
	// Output:
	// found text:echo
	// namespaces [text]
	// ran hi
	// run: tool "admin:echo": no tool with this ID; search finds tools by what they do
}
