package toolrun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/toolruntest"
)

func TestLocalExecutorConformance(t *testing.T) {
	toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
		f := newFixture(t)
		target := func(id string) toolruntest.Target {
			tool, backends, err := f.index.GetAll(context.Background(), id)
			require.NoError(t, err)
			return toolruntest.Target{Tool: tool, Backend: backends[0]}
		}
		return toolruntest.Harness{Executor: f.local, Echo: target("demo:echo"), Fail: target("demo:fail"), Block: target("demo:block")}
	})
}

func TestProviderExecutorConformance(t *testing.T) {
	toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
		f := newFixture(t)
		provider := toolrun.NewProviderExecutor()
		// The provider delegates to the local functions, by tool name.
		provider.Register("demo", toolrun.ProviderFunc(func(ctx context.Context, name string, call *toolrun.Call) (toolrun.Output, error) {
			c := *call
			c.Backend = toolrun.LocalBackendFor("demo:" + name)
			return f.local.Execute(ctx, &c)
		}))
		target := func(name string) toolruntest.Target {
			tool, _, err := f.index.GetAll(context.Background(), "demo:"+name)
			require.NoError(t, err)
			return toolruntest.Target{Tool: tool, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "demo"}}}
		}
		return toolruntest.Harness{Executor: provider, Echo: target("echo"), Fail: target("fail"), Block: target("block")}
	})
}
