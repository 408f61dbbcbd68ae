package mcpexec_test

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
	"github.com/metatools-go/metatools/toolrun/toolruntest"
)

func TestConformance(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
				m := newManager(t, mcpexec.WithServer("demo", tr.config(t)))
				target := func(name string) toolruntest.Target {
					return toolruntest.Target{
						Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, Namespace: "demo"},
						Backend: mcpexec.Backend("demo"),
					}
				}
				return toolruntest.Harness{Executor: m, Echo: target(testtools.Echo), Fail: target(testtools.Fail), Block: target(testtools.Block)}
			})
		})
	}
}
