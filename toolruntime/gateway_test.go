package toolruntime_test

import (
	"context"
	"io"
	"testing"

	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// pipeBackend runs the runner in a goroutine of the test, over pipes: the
// whole gateway protocol, without a process.
type pipeBackend struct{}

func (pipeBackend) Name() string { return "pipe" }

func (pipeBackend) Enforces(toolruntime.Limits) toolruntime.LimitsEnforced {
	return toolruntime.LimitsEnforced{toolruntime.Enforce(toolcode.LimitWallTime, nil, "host deadline")}
}

func (b pipeBackend) Run(ctx context.Context, req toolruntime.Request) (toolruntime.Result, error) {
	toGuest, fromHost := io.Pipe()
	toHost, fromGuest := io.Pipe()
	done := make(chan error, 1)
	// The guest stops when the host is done with it, as a process would be
	// killed.
	guestCtx, stopGuest := context.WithCancel(ctx)
	defer stopGuest()
	go func() {
		err := runner.Run(guestCtx, toGuest, fromGuest, javascript.New(), javascript.NewTypeScript())
		_ = fromGuest.Close()
		done <- err
	}()
	value, err := gateway.Host(ctx, toHost, fromHost, gateway.Execution{Language: req.Language, Code: req.Code, Limits: req.Program}, req.Tools, 0)
	stopGuest()
	_ = fromHost.Close()
	_ = toHost.Close()
	if guestErr := <-done; err == nil {
		err = guestErr
	}
	return toolruntime.Result{Value: value, Enforced: b.Enforces(req.Limits)}, err
}

func TestGatewayConformance(t *testing.T) {
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, pipeBackend{}))
	require.NoError(t, err)
	for _, lang := range []string{"javascript", "typescript"} {
		t.Run(lang, func(t *testing.T) {
			toolcodetest.RunEngine(t, func() toolcode.Engine {
				e, err := rt.Engine(toolruntime.Dev, lang)
				require.NoError(t, err)
				return e
			})
		})
	}
}
