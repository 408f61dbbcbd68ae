package toolruntime_test

import (
	"context"
	"encoding/json"
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
// whole gateway protocol, without a process. A sequential one serves the
// guest's side as a WebAssembly guest does (gateway.GuestOptions.Sequential).
type pipeBackend struct{ sequential bool }

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
		var err error
		if b.sequential {
			err = serveSequential(guestCtx, toGuest, fromGuest)
		} else {
			err = runner.Run(guestCtx, toGuest, fromGuest, javascript.New(), javascript.NewTypeScript())
		}
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

// serveSequential is the guest's side with sequential reads.
func serveSequential(ctx context.Context, r io.Reader, w io.Writer) error {
	reg, err := toolcode.NewEngineRegistry(javascript.New(), javascript.NewTypeScript())
	if err != nil {
		return err
	}
	return gateway.Serve(ctx, r, w, func(ctx context.Context, ex gateway.Execution, tools toolcode.Tools) (json.RawMessage, error) {
		engine, err := reg.Get(ex.Language)
		if err != nil {
			return nil, err
		}
		return engine.Execute(ctx, toolcode.Program{Code: ex.Code, Tools: tools, Limits: ex.Limits, Report: func(toolcode.Isolation) {}})
	}, gateway.GuestOptions{Sequential: true})
}

func TestGatewayConformance(t *testing.T) {
	for name, b := range map[string]pipeBackend{"concurrent": {}, "sequential": {sequential: true}} {
		t.Run(name, func(t *testing.T) { conformance(t, b) })
	}
}

func conformance(t *testing.T, b pipeBackend) {
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, b))
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
