package kubernetes

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolruntime"
)

// execute runs a JavaScript program through b under a toolcode executor,
// on a fresh fixture with the runner options opts, which it stores in
// *fixture when fixture is not nil.
func execute(ctx context.Context, t testing.TB, b *Backend, code string, wall time.Duration, fixture **toolcodetest.Fixture, opts ...toolrun.Option) (*toolcode.Result, error) {
	t.Helper()
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, b))
	require.NoError(t, err)
	engine, err := rt.Engine(toolruntime.Dev, "javascript")
	require.NoError(t, err)
	f := toolcodetest.NewFixture(t, opts...)
	if fixture != nil {
		*fixture = f
	}
	x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
	return x.Execute(ctx, toolcode.ExecuteParams{Language: "javascript", Code: code, Limits: toolcode.Limits{WallTime: wall}, Timeout: wall})
}

func TestStreamRun(t *testing.T) {
	c := newCluster(t)
	for _, mode := range []struct {
		name string
		opts []Option
	}{{"default", nil}, {"spdy", []Option{WithSPDY()}}} {
		t.Run(mode.name, func(t *testing.T) {
			b := c.newBackend(t, mode.opts...)
			res, err := execute(context.Background(), t, b, `const r = await tools.math.add({a: 40, b: 2}); return r.sum;`, 20*time.Second, nil)
			require.NoError(t, err)
			assert.JSONEq(t, `42`, string(res.Value))
			assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace))
		})
	}
	// kubectl's way: WebSocket first; this kubelet, like every kubelet,
	// speaks no v5 WebSocket (the real API server translates it to SPDY),
	// so the upgrade fails and the executor falls back to SPDY.
	assert.Equal(t, []string{"websocket", "spdy/3.1", "spdy/3.1"}, c.attachUpgrades())
}

// TestStreamCleanup ends an execution in every way while its program
// waits in a tool call, and checks that its pod is deleted and its
// container process gone when Run returns.
func TestStreamCleanup(t *testing.T) {
	c := newCluster(t)
	cases := []struct {
		name   string
		code   string
		during func(f *toolcodetest.Fixture, cancel func())
		check  func(t *testing.T, err error)
	}{
		{
			name:   "success",
			code:   `await tools.util.gate({}); return 1`,
			during: func(f *toolcodetest.Fixture, _ func()) { f.Gate.Release() },
			check:  func(t *testing.T, err error) { assert.NoError(t, err) },
		},
		{
			name:   "program error",
			code:   `await tools.util.gate({}); throw new Error("boom")`,
			during: func(f *toolcodetest.Fixture, _ func()) { f.Gate.Release() },
			check: func(t *testing.T, err error) {
				require.Error(t, err)
				assert.Equal(t, errors.Execution, errors.CodeOf(err))
				assert.ErrorContains(t, err, "boom")
			},
		},
		{
			name:   "cancel",
			code:   `await tools.util.gate({}); return 1`,
			during: func(_ *toolcodetest.Fixture, cancel func()) { cancel() },
			check: func(t *testing.T, err error) {
				require.Error(t, err)
				assert.Equal(t, errors.Canceled, errors.CodeOf(err))
			},
		},
		{
			name: "runner killed",
			code: `await tools.util.gate({}); return 1`,
			during: func(f *toolcodetest.Fixture, _ func()) {
				// Called on a goroutine of its own: no require.
				if pids := c.running(); assert.Len(t, pids, 1) {
					assert.NoError(t, syscall.Kill(pids[0], syscall.SIGKILL))
				}
				f.Gate.Release()
			},
			check: func(t *testing.T, err error) {
				require.Error(t, err)
				assert.Equal(t, errors.Internal, errors.CodeOf(err))
				require.ErrorContains(t, err, "ended without answering")
				assert.ErrorContains(t, err, "exit status 137", "the pod's status says how the runner ended")
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			b := c.newBackend(t)
			var f *toolcodetest.Fixture
			var during []int
			_, err := execute(ctx, t, b, tc.code, 20*time.Second, &f, toolrun.WithPreCall(toolrun.PreCallFunc(func(context.Context, *toolrun.Call) error {
				during = c.running()
				go tc.during(f, cancel)
				return nil
			})))
			tc.check(t, err)
			assert.Len(t, during, 1, "the program ran in one container")
			assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace), "the pod is deleted")
			assert.Empty(t, c.running(), "no container runs")
		})
	}
}

// TestStreamImagePullFails checks that a pod whose image cannot be
// pulled fails the execution with code unavailable, and is deleted.
func TestStreamImagePullFails(t *testing.T) {
	c := newCluster(t)
	c.failPull("missing:1", "ErrImagePull")
	b := c.newBackend(t, WithImage("missing:1"))
	_, err := execute(context.Background(), t, b, `return 1`, 20*time.Second, nil)
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
	require.ErrorContains(t, err, "ErrImagePull")
	assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace))
}

// TestStreamAttachRefused checks that an attach the API server refuses
// fails the execution with the refusal, not as a runner that ended, and
// that the pod, whose runner still waits for its input, is deleted.
func TestStreamAttachRefused(t *testing.T) {
	c := newCluster(t)
	c.mu.Lock()
	c.refuseAttach = true
	c.mu.Unlock()
	b := c.newBackend(t, WithSPDY())
	_, err := execute(context.Background(), t, b, `return 1`, 20*time.Second, nil)
	require.Error(t, err)
	assert.Equal(t, errors.PermissionDenied, errors.CodeOf(err))
	require.ErrorContains(t, err, "attach to pod")
	assert.Contains(t, err.Error(), "forbidden")
	assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace))
	assert.Empty(t, c.running())
}

// TestStreamWarmPool runs an execution in a pod of the warm pool, which
// is replaced, and checks that Close deletes the replacement.
func TestStreamWarmPool(t *testing.T) {
	c := newCluster(t)
	b := c.newBackend(t, WithSPDY(), WithWarmPool(1))
	w := <-b.pool.ready
	b.pool.ready <- w
	_, err := b.waitRunning(context.Background(), w.name)
	require.NoError(t, err)

	res, err := execute(context.Background(), t, b, `return 2`, 20*time.Second, nil)
	require.NoError(t, err)
	assert.JSONEq(t, `2`, string(res.Value))
	next := <-b.pool.ready
	b.pool.ready <- next
	assert.NotEqual(t, w.name, next.name, "the pool replaced the pod it handed out")
	assert.Equal(t, []string{next.name}, podsLeft(t, c.Client, DefaultNamespace), "the pod of the execution is deleted")

	require.NoError(t, b.Close())
	assert.Empty(t, podsLeft(t, c.Client, DefaultNamespace), "Close deletes the pool's pod")
	assert.Empty(t, c.running(), "and its container")
}
