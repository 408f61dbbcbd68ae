package builtin_test

import (
	"context"
	"fmt"
	"time"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

// Serve the catalogue: build it, register it in an index and a local
// executor, and run its tools with a runner.
func Example() {
	ctx := context.Background()
	tools, err := builtin.Tools(builtin.WithClock(func() time.Time {
		return time.Date(2024, 3, 10, 14, 30, 0, 0, time.UTC)
	}))
	if err != nil {
		panic(err)
	}
	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	if err := builtin.Register(ctx, idx, local, tools); err != nil {
		panic(err)
	}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))

	res, err := runner.Run(ctx, "math:eval", map[string]any{"expression": "round(price * qty * 1.2, 2)", "variables": map[string]any{"price": 19.99, "qty": 3}})
	fmt.Println(res.Structured, err)

	res, err = runner.Run(ctx, "time:now", map[string]any{"timezone": "Europe/Paris", "format": "Monday 2 January 2006, 15:04"})
	fmt.Println(res.Structured.(map[string]any)["formatted"], err)

	res, err = runner.Run(ctx, "math:eval", map[string]any{"expression": "2 * (3 + 4))"})
	fmt.Println(res.Err(), err)
	// Output:
	// map[value:71.96] <nil>
	// Sunday 10 March 2024, 15:30 <nil>
	// execute: tool "math:eval" (backend local:builtin.math:eval): unexpected ')' at offset 11 <nil>
}

// The catalogue includes http:fetch only with an allow-list of hosts.
func ExampleWithHTTPAllowList() {
	tools, err := builtin.Tools(builtin.WithHTTPAllowList("api.github.com", "*.wikipedia.org"))
	if err != nil {
		panic(err)
	}
	for _, tool := range tools {
		if tool.ID() == "http:fetch" {
			fmt.Println(tool.Examples[0].Args["url"])
		}
	}
	// Output:
	// https://api.github.com/
}
