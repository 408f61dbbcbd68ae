package grpcexec_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// TestEndToEnd imports a server's tools into an index, finds one by
// search, and runs tools through a runner.
func TestEndToEnd(t *testing.T) {
	s := start(t)
	ctx := context.Background()
	e := newExecutor(t)
	spec := insecureSpec(s.Addr)
	spec.Namespace = "test"
	result, err := e.Import(ctx, spec)
	require.NoError(t, err)
	health := insecureSpec(s.Addr)
	health.Namespace = "ops"
	health.Services = []string{"grpc.health.v1.Health"}
	healthTools, err := e.Import(ctx, health)
	require.NoError(t, err)

	idx := toolindex.New()
	require.NoError(t, idx.RegisterMany(ctx, append(result.Registrations, healthTools.Registrations...)))
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendGRPC: e})
	runner := toolrun.New(reg, toolrun.WithIndex(idx), toolrun.WithRetryPolicy(toolrun.NoRetry))

	t.Run("search finds an imported tool", func(t *testing.T) {
		page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "echo request unchanged"})
		require.NoError(t, err)
		require.NotEmpty(t, page.Items)
		assert.Equal(t, "test:echo_service_echo", page.Items[0].ID)
	})
	t.Run("run with valid arguments", func(t *testing.T) {
		res, err := runner.Run(ctx, "test:echo_service_echo", map[string]any{"text": "hi", "n64": 5.0, "color": "RED"})
		require.NoError(t, err)
		require.NoError(t, res.Err())
		structured := res.Structured.(map[string]any)
		assert.Equal(t, "hi", structured["text"])
		assert.Equal(t, "5", structured["n64"])
		assert.Equal(t, "RED", structured["color"])
	})
	t.Run("input validation rejects bad arguments before the call", func(t *testing.T) {
		_, err := runner.Run(ctx, "test:echo_service_echo", map[string]any{"color": "BLUE", "unknown": 1.0})
		require.Error(t, err)
		require.ErrorIs(t, err, errors.ErrValidation)
		var te *errors.Error
		require.ErrorAs(t, err, &te)
		assert.Equal(t, toolrun.OpValidateInput, te.Op)
	})
	t.Run("a tool failure is a result", func(t *testing.T) {
		res, err := runner.Run(ctx, "test:echo_service_fail", nil)
		require.NoError(t, err)
		require.Error(t, res.Err())
		assert.Contains(t, res.Err().Error(), "UNKNOWN: boom")
	})
	t.Run("health check", func(t *testing.T) {
		res, err := runner.Run(ctx, "ops:health_check", map[string]any{})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"status": "SERVING"}, res.Structured)
	})
	t.Run("stream events from a server-streaming method", func(t *testing.T) {
		var chunks []any
		var done *toolrun.StreamEvent
		for ev := range runner.RunStream(ctx, "test:echo_service_count", map[string]any{"n": 2.0, "prefix": "x"}) {
			switch ev.Kind {
			case toolrun.StreamChunk:
				chunks = append(chunks, ev.Chunk)
			case toolrun.StreamDone:
				done = &ev
			}
		}
		require.NotNil(t, done)
		require.NoError(t, done.Err)
		assert.Equal(t, []any{
			map[string]any{"index": 0.0, "text": "xa"},
			map[string]any{"index": 1.0, "text": "xb"},
		}, chunks)
	})
	t.Run("a gathered stream is one array result", func(t *testing.T) {
		res, err := runner.Run(ctx, "test:echo_service_count", map[string]any{"n": 2.0})
		require.NoError(t, err)
		assert.Len(t, res.Structured, 2)
	})
}
