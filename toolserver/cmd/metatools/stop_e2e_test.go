package main

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// exitBound bounds the wait for a stopped server to exit: far below the
// drain delays of the tests that must not wait for them.
const exitBound = 30 * time.Second

// exited waits for s to exit, for at most exitBound, and returns its
// exit code (-1 for a death by signal).
func (s *served) exited(t *testing.T) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- s.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Logf("metatools: %v", err)
		}
		return s.cmd.ProcessState.ExitCode()
	case <-time.After(exitBound):
		_ = s.cmd.Process.Kill()
		t.Logf("metatools killed: %v", <-done)
		require.FailNow(t, "metatools did not exit in time", "log:\n%s", s.log)
		return -1
	}
}

// TestServeStopsWithoutWaitingForNothing stops `serve --http` as a person
// at a terminal does, and as a load balancer's platform does. The default
// drain delay is waited for only once something has asked /readyz; a
// delay that is set always is; and a second signal cuts the delay short.
// Each stop must end well within exitBound, far below the delays that are
// not to be waited for.
func TestServeStopsWithoutWaitingForNothing(t *testing.T) {
	tests := []struct {
		name   string
		args   []string
		probe  bool
		second os.Signal // nil: one signal only
		want   []string
	}{
		{
			name: "default delay, never probed: no wait",
			want: []string{
				"metatools: stopping: /readyz answers 503; no drain delay, as nothing has asked it",
				"metatools: every request finished",
				"metatools: SIGINT received, stopped",
			},
		},
		{
			name: "default delay, probed: a second Ctrl-C cuts it", probe: true, second: os.Interrupt,
			want: []string{
				"metatools: stopping: /readyz answers 503; serving on for 5s (drain delay; a second Ctrl-C or SIGTERM stops at once)",
				"metatools: SIGINT received again: drain delay cut short",
				"metatools: every request finished",
				"metatools: SIGINT received, stopped",
			},
		},
		{
			name: "a delay that is set applies unprobed", args: []string{"--drain-delay", "10m"}, second: syscall.SIGTERM,
			want: []string{
				"metatools: stopping: /readyz answers 503; serving on for 10m0s (drain delay",
				"metatools: SIGTERM received again: drain delay cut short",
				"metatools: SIGINT received, stopped",
			},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServed(t, nil, tt.args...)
			if tt.probe {
				status, _ := s.probe(t, readyzPath)
				require.Equal(t, http.StatusOK, status)
			}
			require.NoError(t, s.cmd.Process.Signal(os.Interrupt))
			s.await(t, tt.want[0])
			if tt.second != nil {
				require.NoError(t, s.cmd.Process.Signal(tt.second))
			}
			for _, line := range tt.want[1:] {
				s.await(t, line)
			}
			assert.Equal(t, 0, s.exited(t))
		})
	}
}

// TestSecondSignalCutsRunningRequests stops a server while a call waits
// on a slow web server, its shutdown timeout long: the first SIGTERM lets
// the call run, the second cuts it and the process exits 0 at once.
func TestSecondSignalCutsRunningRequests(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-release
		_, _ = io.WriteString(w, "too late")
	}))
	var releaseOnce sync.Once
	t.Cleanup(func() {
		releaseOnce.Do(func() { close(release) })
		web.Close()
	})
	cfg := writeFile(t, "metatools.yaml", "builtin:\n  httpAllow: [\"127.0.0.1:*\"]\nserver:\n  shutdownTimeout: 10m\n")
	s := startServed(t, nil, "--stateless", "--config", cfg, "--drain-delay", "0")
	cs := connectHTTP(t, s.endpoint, "")
	called := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "run_tool",
			Arguments: map[string]any{"id": "http:fetch", "args": map[string]any{"url": web.URL}}})
		called <- err
	}()
	select {
	case <-arrived:
	case <-time.After(eventBound):
		require.FailNow(t, "the slow call never reached the web server")
	}

	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	s.await(t, "metatools: no longer accepting; requests running: 1, given 10m0s to finish")
	require.NoError(t, s.cmd.Process.Signal(syscall.SIGTERM))
	s.await(t, "metatools: SIGTERM received again: stopped at once, requests cut: 1")
	s.await(t, "metatools: SIGTERM received, stopped")
	assert.Equal(t, 0, s.exited(t))
	select {
	case err := <-called:
		require.Error(t, err, "the call was cut")
	case <-time.After(eventBound):
		require.FailNow(t, "the cut call never returned")
	}
}
