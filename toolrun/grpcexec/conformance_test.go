package grpcexec_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/toolruntest"
)

// The conformance targets: EchoStruct takes and returns a
// google.protobuf.Struct, so any JSON object comes back as it went;
// Fail's handler returns a plain Go error, which grpc-go sends as UNKNOWN
// "boom", a tool failure by default; Block waits for its context.
func TestExecutorConformance(t *testing.T) {
	s := start(t)
	target := func(name string) toolruntest.Target {
		return toolruntest.Target{
			Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, Namespace: "test"},
			Backend: backend(s.Addr, name),
		}
	}
	toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
		return toolruntest.Harness{
			Executor: newExecutor(t),
			Echo:     target("EchoStruct"),
			Fail:     target("Fail"),
			Block:    target("Block"),
		}
	})
}
