package toolruntime_test

import (
	"context"
	"encoding/json"
	"io"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
)

// BenchmarkGateway measures what the gateway costs: one tool call made
// through the protocol over pipes (the guest in a goroutine) against the
// same call on the Tools directly, and the start of one execution in
// process and over pipes.
func BenchmarkGateway(b *testing.B) {
	f := toolcodetest.NewFixture(b)
	args := map[string]any{"a": 1, "b": 2}

	// The host's Tools: the executor's own, captured from a program run
	// by an engine that hands them to the benchmark.
	b.Run("call/inprocess", func(b *testing.B) {
		withTools(b, f, func(tools toolcode.Tools) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := tools.Run(context.Background(), "math:add", args); err != nil {
					b.Fatal(err)
				}
			}
		})
	})
	b.Run("call/pipe", func(b *testing.B) {
		withTools(b, f, func(host toolcode.Tools) {
			toGuest, fromHost := io.Pipe()
			toHost, fromGuest := io.Pipe()
			done := make(chan error, 1)
			go func() {
				_, err := gateway.Host(context.Background(), toHost, fromHost, gateway.Execution{Language: "bench"}, host, 0)
				_ = fromHost.Close()
				done <- err
			}()
			err := gateway.Serve(context.Background(), toGuest, fromGuest, func(ctx context.Context, _ gateway.Execution, tools toolcode.Tools) (json.RawMessage, error) {
				b.ReportAllocs()
				for b.Loop() {
					if _, err := tools.Run(ctx, "math:add", args); err != nil {
						return nil, err
					}
				}
				return nil, nil
			}, gateway.GuestOptions{})
			_ = fromGuest.Close()
			require.NoError(b, err)
			require.NoError(b, <-done)
			_ = toGuest.Close()
		})
	})

	start := func(b *testing.B, backend toolruntime.Backend) {
		rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, backend))
		require.NoError(b, err)
		engine, err := rt.Engine(toolruntime.Dev, "javascript")
		require.NoError(b, err)
		x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
		b.ReportAllocs()
		for b.Loop() {
			if _, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: "return 1;"}); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("start/inprocess", func(b *testing.B) {
		backend, err := inprocess.New(javascript.New())
		require.NoError(b, err)
		start(b, backend)
	})
	b.Run("start/pipe", func(b *testing.B) { start(b, pipeBackend{}) })
}

// toolsEngine hands the Tools of its one execution to use.
type toolsEngine struct{ use func(toolcode.Tools) }

func (toolsEngine) Language() string { return "bench" }

func (e toolsEngine) Execute(_ context.Context, p toolcode.Program) (json.RawMessage, error) {
	e.use(p.Tools)
	return nil, nil
}

// withTools runs use with the Tools of one execution of an executor on f,
// with limits high enough for any number of calls.
func withTools(b *testing.B, f *toolcodetest.Fixture, use func(toolcode.Tools)) {
	b.Helper()
	x := toolcode.New(f.Ops, toolcode.WithEngine(toolsEngine{use: use}),
		toolcode.WithLimits(toolcode.Limits{ToolCalls: 1 << 30, OutputBytes: 1 << 30}))
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: "bench", Code: "-"})
	require.NoError(b, err)
}
