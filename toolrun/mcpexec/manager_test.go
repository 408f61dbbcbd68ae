package mcpexec_test

import (
	"context"
	"fmt"
	"io"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
)

func TestNewManagerRejects(t *testing.T) {
	mem := mcpexec.InMemory(testtools.NewServer(testtools.Config{}))
	tests := []struct {
		name    string
		opts    []mcpexec.Option
		code    errors.Code
		message string
	}{
		{"invalid server name", []mcpexec.Option{mcpexec.WithServer("a b", mem)}, errors.InvalidArgument, `server name "a b"`},
		{"invalid configuration", []mcpexec.Option{mcpexec.WithServer("x", mcpexec.ServerConfig{})}, errors.InvalidArgument, "exactly one of command, url and transport"},
		{"duplicate name", []mcpexec.Option{mcpexec.WithServer("x", mem), mcpexec.WithServer("x", mem)}, errors.Conflict, `server "x" is already configured`},
		{"zero connect timeout", []mcpexec.Option{mcpexec.WithConnectTimeout(0)}, errors.InvalidArgument, "must be positive"},
		{"zero terminate timeout", []mcpexec.Option{mcpexec.WithTerminateTimeout(0)}, errors.InvalidArgument, "must be positive"},
		{"backoff maximum below initial", []mcpexec.Option{mcpexec.WithReconnectBackoff(time.Second, time.Millisecond)}, errors.InvalidArgument, "no less than the initial"},
		{"negative refresh delay", []mcpexec.Option{mcpexec.WithRefreshDelay(-1)}, errors.InvalidArgument, "refresh delay not negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := mcpexec.NewManager(tt.opts...)
			require.Error(t, err)
			assert.Nil(t, m)
			assert.Equal(t, tt.code, errors.CodeOf(err))
			require.ErrorContains(t, err, tt.message)
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, "mcpexec.NewManager", e.Op)
		})
	}
}

func TestAddAndRemoveServers(t *testing.T) {
	m := newManager(t)
	ctx := context.Background()
	assert.Empty(t, m.Servers())

	require.NoError(t, m.AddServer("b", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	require.NoError(t, m.AddServer("a", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	assert.Equal(t, []string{"a", "b"}, m.Servers())
	assert.Equal(t, errors.Conflict, errors.CodeOf(m.AddServer("a", mcpexec.InMemory(testtools.NewServer(testtools.Config{})))))
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(m.AddServer("c", mcpexec.ServerConfig{URL: "ftp://x"})))

	_, err := m.Execute(ctx, mcpCall("a", testtools.Echo, nil))
	require.NoError(t, err)
	require.NoError(t, m.RemoveServer("a"))
	assert.Equal(t, []string{"b"}, m.Servers())
	_, err = m.Execute(ctx, mcpCall("a", testtools.Echo, nil))
	assert.Equal(t, errors.NotFound, errors.CodeOf(err))
	assert.Equal(t, errors.NotFound, errors.CodeOf(m.RemoveServer("a")))
}

func TestClosedManager(t *testing.T) {
	m, err := mcpexec.NewManager(mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	require.NoError(t, err)
	ctx := context.Background()
	_, err = m.Execute(ctx, mcpCall("demo", testtools.Echo, nil))
	require.NoError(t, err)
	require.NoError(t, m.Close())
	require.NoError(t, m.Close(), "closing twice is harmless")

	_, err = m.Execute(ctx, mcpCall("demo", testtools.Echo, nil))
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
	assert.False(t, errors.IsRetryable(err), "a closed manager stays closed")
	_, err = m.ListTools(ctx, "demo")
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
	assert.Equal(t, errors.Unavailable, errors.CodeOf(m.AddServer("other", mcpexec.InMemory(testtools.NewServer(testtools.Config{})))))
	stop := m.AutoRefresh(toolindex.New())
	stop()
}

// failing returns a function that fails its first n calls.
func failing(n int) func() error {
	calls := 0
	return func() error {
		calls++
		if calls <= n {
			return fmt.Errorf("attempt %d refused", calls)
		}
		return nil
	}
}

func TestReconnectBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := newServerSessions(testtools.NewServer(testtools.Config{}))
		attempts := 0
		fail := failing(2)
		ss.fail = func() error { attempts++; return fail() }
		m := newManager(t, mcpexec.WithServer("demo", ss.config()), mcpexec.WithReconnectBackoff(100*time.Millisecond, 150*time.Millisecond))
		ctx := context.Background()
		execute := func() error {
			_, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, nil))
			return err
		}

		err := execute()
		require.Error(t, err)
		assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
		assert.True(t, errors.IsRetryable(err))
		require.ErrorContains(t, err, "attempt 1 refused")
		assert.Equal(t, 1, attempts)

		// During the backoff, calls fail at once and say how long to wait.
		time.Sleep(40 * time.Millisecond)
		err = execute()
		require.Error(t, err)
		assert.Equal(t, 1, attempts, "no attempt during the backoff")
		assert.True(t, errors.IsRetryable(err))
		require.ErrorContains(t, err, "attempt 1 refused")
		wait, ok := toolrun.RetryAfter(err)
		require.True(t, ok)
		assert.Equal(t, 60*time.Millisecond, wait)

		// The delay doubles, up to its maximum.
		time.Sleep(wait)
		require.ErrorContains(t, execute(), "attempt 2 refused")
		assert.Equal(t, 2, attempts)
		wait, ok = toolrun.RetryAfter(execute())
		require.True(t, ok)
		assert.Equal(t, 150*time.Millisecond, wait)

		time.Sleep(wait)
		require.NoError(t, execute())
		assert.Equal(t, 3, attempts)
	})
}

func TestRunnerRetriesAfterTheBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := context.Background()
		ss := newServerSessions(testtools.NewServer(testtools.Config{}))
		m := newManager(t, mcpexec.WithServer("demo", ss.config()))
		idx := toolindex.New()
		require.NoError(t, m.RegisterTools(ctx, idx, "demo", "demo"))
		ss.fail = failing(1)
		// The server goes away; the next connection attempt fails once.
		// The connection is dropped rather than the session closed, which
		// would wait for the requests in flight, the client's long-lived
		// ones included, and could wait for ever (see
		// TestServerGoneReconnects).
		<-ss.sessions
		require.NoError(t, (<-ss.conns).Close())
		synctest.Wait()

		runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendMCP: m}), toolrun.WithIndex(idx))
		start := time.Now()
		res, err := runner.Run(ctx, "demo:echo", map[string]any{"x": 1.0})
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"x": 1.0}, res.Structured)
		assert.Equal(t, 2, res.Attempts)
		assert.Equal(t, 100*time.Millisecond, time.Since(start), "the runner waited for the manager's backoff")
	})
}

func TestConnectTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// A server that reads requests and never answers.
		m := newManager(t, mcpexec.WithConnectTimeout(time.Second), mcpexec.WithServer("mute", mcpexec.ServerConfig{
			Transport: func(context.Context) (mcp.Transport, error) {
				silence, _ := io.Pipe()
				return &mcp.IOTransport{Reader: silence, Writer: discard{}}, nil
			},
		}))
		start := time.Now()
		_, err := m.Execute(context.Background(), mcpCall("mute", testtools.Echo, nil))
		require.Error(t, err)
		assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
		require.ErrorContains(t, err, "no answer within 1s")
		assert.Equal(t, time.Second, time.Since(start))
	})
}

// discard is a writer that accepts everything and can be closed.
type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) Close() error                { return nil }

func TestCallerGivingUpDoesNotAbortTheConnection(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := testtools.NewServer(testtools.Config{})
		release := make(chan struct{})
		connects := 0
		m := newManager(t, mcpexec.WithServer("slow", mcpexec.ServerConfig{
			Transport: func(ctx context.Context) (mcp.Transport, error) {
				connects++
				<-release
				return mcpexec.InMemory(srv).Transport(ctx)
			},
		}))
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancel()
		_, err := m.Execute(ctx, mcpCall("slow", testtools.Echo, nil))
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))

		close(release)
		synctest.Wait()
		_, err = m.Execute(context.Background(), mcpCall("slow", testtools.Echo, nil))
		require.NoError(t, err)
		assert.Equal(t, 1, connects, "the second call uses the session the first one started")
	})
}
