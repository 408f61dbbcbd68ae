package toolruntime_test

import (
	"context"
	"fmt"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
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

	// The dev profile runs programs in this process; the standard and
	// hardened profiles take the backends of the packages process and wasm.
	dev, err := inprocess.New(javascript.New())
	if err != nil {
		panic(err)
	}
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, dev))
	if err != nil {
		panic(err)
	}
	engine, err := rt.Engine(toolruntime.Dev, "javascript")
	if err != nil {
		panic(err)
	}
	ops, err := toolops.New(idx, nil, runner)
	if err != nil {
		panic(err)
	}
	x := toolcode.New(ops, toolcode.WithEngine(engine))
	res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `(await tools.math.add({a: 2, b: 3})).sum`})
	if err != nil {
		panic(err)
	}
	fmt.Println(string(res.Value), res.Isolation.Backend, res.Isolation.Profile)
	fmt.Print(toolruntime.LimitsEnforced(res.Isolation.Enforced))

	_, err = rt.Engine(toolruntime.Hardened, "javascript")
	fmt.Println(err)
	// Output:
	// 5 inprocess dev
	// wall_time=30s by engine
	// cpu_time not enforced
	// memory not enforced
	// processes not enforced
	// file_size not enforced
	// output_bytes=1048576 by gateway
	// tool_calls=100 by gateway
	// chain_steps=20 by gateway
	// concurrency=8 by gateway
	// no_host_environment not enforced
	// no_host_files not enforced
	// no_network not enforced
	// no backend serves security profile "hardened"
}
