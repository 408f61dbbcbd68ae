package grpcexec_test

import (
	"context"
	"fmt"
	"log"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// Import the methods of a gRPC server as tools, register them in an
// index, and run one through a runner.
func Example() {
	// A gRPC server with server reflection on a loopback port.
	srv, err := testservice.New(testservice.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()
	ctx := context.Background()

	exec := grpcexec.New()
	defer exec.Close()
	result, err := exec.Import(ctx, grpcexec.ImportSpec{
		Address:   srv.Addr,
		TLS:       &toolmodel.GRPCTLS{Insecure: true}, // allowed for loopback addresses only
		Namespace: "demo",
	})
	if err != nil {
		log.Fatal(err)
	}
	for _, reg := range result.Registrations {
		fmt.Println(reg.Tool.ID(), "→", reg.Backend.GRPC.Method)
	}

	idx := toolindex.New()
	if err := idx.RegisterMany(ctx, result.Registrations); err != nil {
		log.Fatal(err)
	}
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendGRPC: exec})
	runner := toolrun.New(reg, toolrun.WithIndex(idx))
	res, err := runner.Run(ctx, "demo:echo_service_echo", map[string]any{"text": "hello", "n64": 7, "color": "GREEN"})
	if err != nil {
		log.Fatal(err)
	}
	out := res.Structured.(map[string]any)
	fmt.Printf("text=%v n64=%q color=%v\n", out["text"], out["n64"], out["color"])
	// Output:
	// demo:echo_service_echo → /metatools.test.v1.EchoService/Echo
	// demo:echo_service_echo_struct → /metatools.test.v1.EchoService/EchoStruct
	// demo:echo_service_fail → /metatools.test.v1.EchoService/Fail
	// demo:echo_service_status → /metatools.test.v1.EchoService/Status
	// demo:echo_service_block → /metatools.test.v1.EchoService/Block
	// demo:echo_service_count → /metatools.test.v1.EchoService/Count
	// demo:echo_service_headers → /metatools.test.v1.EchoService/Headers
	// demo:echo_service_now → /metatools.test.v1.EchoService/Now
	// text=hello n64="7" color=GREEN
}

// Call a method directly, with a backend built by hand: here the health
// check of grpc-go's health service.
func ExampleExecutor_Execute() {
	srv, err := testservice.New(testservice.Options{})
	if err != nil {
		log.Fatal(err)
	}
	defer srv.Stop()

	exec := grpcexec.New()
	defer exec.Close()
	backend := grpcexec.Backend(srv.Addr, "/grpc.health.v1.Health/Check")
	backend.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
	out, err := exec.Execute(context.Background(), &toolrun.Call{Backend: backend, Args: map[string]any{"service": ""}})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(out.Structured)
	// Output:
	// map[status:SERVING]
}

func ExampleDefaultToolName() {
	fmt.Println(grpcexec.DefaultToolName("grpc.health.v1.Health", "Check"))
	fmt.Println(grpcexec.DefaultToolName("shop.v1.OrderService", "GetHTTPStatus"))
	// Output:
	// health_check
	// order_service_get_http_status
}
