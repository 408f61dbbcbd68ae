package grpcexec_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}

// start starts a test server with reflection v1 and v1alpha.
func start(t testing.TB) *testservice.Server {
	t.Helper()
	return testservice.Start(t, testservice.Options{})
}

// newExecutor returns an executor closed when the test ends.
func newExecutor(t testing.TB, opts ...grpcexec.Option) *grpcexec.Executor {
	t.Helper()
	e := grpcexec.New(opts...)
	t.Cleanup(func() { require.NoError(t, e.Close()) })
	return e
}

// backend returns the backend of a method of the test service, without TLS.
func backend(addr, method string) toolmodel.ToolBackend {
	b := grpcexec.Backend(addr, testservice.Method(method))
	b.GRPC.TLS = &toolmodel.GRPCTLS{Insecure: true}
	return b
}

func call(b toolmodel.ToolBackend, args map[string]any) *toolrun.Call {
	return &toolrun.Call{Tool: toolmodel.Tool{Tool: mcp.Tool{Name: "t"}}, Backend: b, Args: args}
}
