package grpcexec_test

import (
	"context"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// A status the server answered with may follow the method's effect: the
// error is not marked as never sent. A server nobody listens at never
// received the call: its error is.
func TestFailuresBeforeTheRequestAreNotSent(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	ctx := context.Background()

	_, err := e.Execute(ctx, call(backend(s.Addr, "Status"), map[string]any{"code": float64(codes.Unavailable), "message": "busy"}))
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.False(t, toolrun.NotSent(err), "the server answered: %v", err)

	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	closed := l.Addr().String()
	require.NoError(t, l.Close())
	_, err = e.Execute(ctx, call(backend(closed, "Status"), nil))
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.True(t, toolrun.NotSent(err), "nobody listens: %v", err)

}

// Through the runner's default retry policy, a method answering
// UNAVAILABLE runs once unless its import says it is idempotent.
func TestRunnerRetriesOnlyIdempotentMethods(t *testing.T) {
	s := start(t)
	e := newExecutor(t)
	ctx := context.Background()
	res, err := e.Import(ctx, insecureSpec(s.Addr))
	require.NoError(t, err)
	idx := toolindex.New()
	require.NoError(t, idx.RegisterMany(ctx, res.Registrations))

	var attempts int
	policy := toolrun.DefaultRetryPolicy()
	policy.Initial = 0
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendGRPC: e}),
		toolrun.WithIndex(idx), toolrun.WithRetryPolicy(policy),
		toolrun.WithEventPublisher(toolrun.EventPublisherFunc(func(_ context.Context, ev toolrun.Event) {
			if ev.Kind == toolrun.EventResult {
				attempts = ev.Attempts
			}
		})))
	unavailable := map[string]any{"code": float64(codes.Unavailable), "message": "busy"}

	_, err = runner.Run(ctx, "echo_service_status", unavailable)
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.Equal(t, 1, attempts, "no idempotency_level: one attempt")

	runner = toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendGRPC: e}),
		toolrun.WithIndex(idx), toolrun.WithRetryPolicy(policy), toolrun.WithIdempotentTools("echo_service_status"),
		toolrun.WithEventPublisher(toolrun.EventPublisherFunc(func(_ context.Context, ev toolrun.Event) {
			if ev.Kind == toolrun.EventResult {
				attempts = ev.Attempts
			}
		})))
	_, err = runner.Run(ctx, "echo_service_status", unavailable)
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.Equal(t, 3, attempts, "declared idempotent: the policy's 3 attempts")
}

// Methods whose idempotency_level says they are safe to call again are
// imported with the matching annotations.
func TestImportAnnotatesIdempotentMethods(t *testing.T) {
	s := start(t)
	res, err := newExecutor(t).Import(context.Background(), insecureSpec(s.Addr))
	require.NoError(t, err)
	byName := map[string]toolindex.Registration{}
	for _, r := range res.Registrations {
		byName[r.Tool.Name] = r
	}
	now := byName["echo_service_now"].Tool.Annotations
	require.NotNil(t, now, "NO_SIDE_EFFECTS")
	assert.True(t, now.ReadOnlyHint)
	headers := byName["echo_service_headers"].Tool.Annotations
	require.NotNil(t, headers, "IDEMPOTENT")
	assert.True(t, headers.IdempotentHint)
	assert.False(t, headers.ReadOnlyHint)
	assert.Nil(t, byName["echo_service_echo"].Tool.Annotations, "no idempotency_level")

	for name, want := range map[string]bool{"echo_service_now": true, "echo_service_headers": true, "echo_service_echo": false} {
		r := byName[name]
		assert.Equal(t, want, toolrun.IsIdempotent(&toolrun.Call{Tool: r.Tool, Backend: r.Backend}), name)
	}
}
