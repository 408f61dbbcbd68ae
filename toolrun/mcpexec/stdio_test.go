package mcpexec_test

import (
	"context"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// pid returns the process ID of the test server behind a server name.
func pid(t *testing.T, m *mcpexec.Manager, server string) int {
	t.Helper()
	out, err := m.Execute(context.Background(), mcpCall(server, "pid", nil))
	require.NoError(t, err)
	return int(out.Structured.(map[string]any)["pid"].(float64))
}

// alive reports whether a process exists.
func alive(pid int) bool {
	return syscall.Kill(pid, 0) == nil
}

func TestCommandSettings(t *testing.T) {
	dir := t.TempDir()
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{
		Command: testServer,
		Env:     map[string]string{"MCPEXEC_TEST_VALUE": "from the config"},
		Dir:     dir,
	}))
	out, err := m.Execute(context.Background(), mcpCall("demo", "env", map[string]any{"name": "MCPEXEC_TEST_VALUE"}))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"value": "from the config", "dir": dir}, out.Structured)

	// The rest of the environment is passed only when asked for.
	t.Setenv("MCPEXEC_TEST_INHERITED", "yes")
	require.NoError(t, m.RemoveServer("demo"))
	require.NoError(t, m.AddServer("demo", mcpexec.ServerConfig{Command: testServer}))
	out, err = m.Execute(context.Background(), mcpCall("demo", "env", map[string]any{"name": "MCPEXEC_TEST_INHERITED"}))
	require.NoError(t, err)
	assert.Empty(t, out.Structured.(map[string]any)["value"])
	require.NoError(t, m.RemoveServer("demo"))
	require.NoError(t, m.AddServer("demo", mcpexec.ServerConfig{Command: testServer, InheritEnv: []string{"MCPEXEC_TEST_INHERITED"}}))
	out, err = m.Execute(context.Background(), mcpCall("demo", "env", map[string]any{"name": "MCPEXEC_TEST_INHERITED"}))
	require.NoError(t, err)
	assert.Equal(t, "yes", out.Structured.(map[string]any)["value"])
}

func TestCrashedServerIsRestarted(t *testing.T) {
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{Command: testServer}))
	ctx := context.Background()
	before := pid(t, m, "demo")

	// The process exits in the middle of the call: the call may have had
	// effects, so it fails, as retryable.
	_, err := m.Execute(ctx, mcpCall("demo", "crash", nil))
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "error: %v", err)
	assert.True(t, errors.IsRetryable(err))

	// The next call starts a new process.
	after := pid(t, m, "demo")
	assert.NotEqual(t, before, after)

	require.NoError(t, m.Close())
	assert.False(t, alive(before), "the crashed process was reaped")
	assert.False(t, alive(after))
}

func TestCrashedServerThroughTheRunner(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{Command: testServer}))
	idx := toolindex.New()
	require.NoError(t, m.RegisterTools(ctx, idx, "demo", "demo"))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendMCP: m}),
		toolrun.WithIndex(idx), toolrun.WithRetryPolicy(toolrun.NoRetry))

	_, err := runner.Run(ctx, "demo:crash", nil)
	require.Error(t, err)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))

	res, err := runner.Run(ctx, "demo:echo", map[string]any{"after": "crash"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"after": "crash"}, res.Structured)
	assert.Equal(t, 1, res.Attempts, "the call found the dead session and was sent again on a new one")
}

func TestHangingToolTimesOut(t *testing.T) {
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{Command: testServer}),
		mcpexec.WithTerminateTimeout(200*time.Millisecond))
	server := pid(t, m, "demo")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := m.Execute(ctx, mcpCall("demo", "hang", nil))
	require.Error(t, err)
	assert.Equal(t, errors.Timeout, errors.CodeOf(err), "error: %v", err)

	// The hung call keeps the process from exiting when its input closes:
	// closing ends it with SIGTERM (or SIGKILL, on a machine so busy that
	// SIGTERM took longer than the grace period).
	err = m.Close()
	require.Error(t, err)
	assert.Regexp(t, "signal: (terminated|killed)", err.Error())
	assert.False(t, alive(server))
}

func TestCloseKillsAProcessThatIgnoresItsInput(t *testing.T) {
	m, err := mcpexec.NewManager(mcpexec.WithServer("demo", mcpexec.ServerConfig{
		Command: testServer, Args: []string{"-ignore-stdin-close"},
		TerminateTimeout: toolmodel.Duration(200 * time.Millisecond),
	}))
	require.NoError(t, err)
	server := pid(t, m, "demo")
	start := time.Now()
	err = m.Close()
	require.ErrorContains(t, err, "signal: killed", "SIGTERM is ignored: SIGKILL ends it")
	assert.Less(t, time.Since(start), 5*time.Second, "closing waits for the grace periods, not the default ones")
	assert.False(t, alive(server))
}
