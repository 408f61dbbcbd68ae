package toolcode_test

import (
	"context"
	"fmt"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

func Example() {
	type addArgs struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type sum struct {
		Sum float64 `json:"sum"`
	}
	tool, fn, err := toolrun.NewLocalTool("add", "Add two numbers.", func(_ context.Context, in addArgs) (sum, error) {
		return sum{Sum: in.A + in.B}, nil
	})
	if err != nil {
		panic(err)
	}
	tool.Namespace = "math"
	local := toolrun.NewLocalExecutor()
	local.Register("add", fn)
	idx := toolindex.New()
	ctx := context.Background()
	if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("add")}); err != nil {
		panic(err)
	}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))

	ops, err := toolops.New(idx, nil, runner)
	if err != nil {
		panic(err)
	}
	x := toolcode.New(ops,
		toolcode.WithEngine(javascript.New()),           // "javascript", the default language
		toolcode.WithEngine(javascript.NewTypeScript())) // "typescript": types erased by esbuild, not checked
	res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `
		const sums = await Promise.all([1, 2, 3].map((n) => tools.math.add({a: n, b: 10})));
		console.log("calls:", sums.length);
		return sums.map((s) => s.sum).filter((s) => s > 11);`})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value))
	fmt.Println(res.Logs)
	fmt.Println(len(res.Trace), res.Trace[0].ToolID, res.Trace[0].Backend)

	res, err = x.Execute(ctx, toolcode.ExecuteParams{Language: javascript.LanguageTypeScript, Code: `
		const r: {sum: number} = await tools.math.add({a: 20, b: 22});
		return r.sum;`})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Language, string(res.Value))

	_, err = x.Execute(ctx, toolcode.ExecuteParams{
		Code:   `for (let i = 0; i < 5; i++) await tools.math.add({a: i, b: i});`,
		Limits: toolcode.Limits{ToolCalls: 3},
	})
	fmt.Println(err)
	// Output:
	// [12,13]
	// [calls: 3]
	// 3 math:add local:add
	// typescript 42
	// toolcode.limit: tool_calls limit reached (3)
}
