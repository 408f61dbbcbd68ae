package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// startEverythingHTTP starts server-everything in its streamable HTTP
// mode on a free loopback port and returns its endpoint once it listens.
// The process is killed when the test ends.
func startEverythingHTTP(t *testing.T) string {
	t.Helper()
	// The server takes its port from PORT and cannot report a port the
	// system chose, so a free one is found first; another process may take
	// it in between, which the server reports and a new port is tried.
	var lastErr error
	for range 3 {
		port := freePort(t)
		endpoint, err := tryEverythingHTTP(t, port)
		if err == nil {
			return endpoint
		}
		lastErr = err
	}
	require.NoError(t, lastErr, "start server-everything over streamable HTTP")
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	port := ln.Addr().(*net.TCPAddr).Port
	require.NoError(t, ln.Close())
	return port
}

func tryEverythingHTTP(t *testing.T, port int) (string, error) {
	cmd := exec.Command("node", everythingServer(t), "streamableHttp")
	cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	cmd.Stdout = io.Discard // a line per request
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	exited := make(chan struct{})
	// The server announces on its standard error that it listens, or why
	// it cannot; the rest of that output goes to the test's log.
	listening := make(chan bool, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		announced := false
		for sc.Scan() {
			line := sc.Text()
			if !announced && strings.Contains(line, "listening on port") {
				announced = true
				listening <- true
			}
			t.Log("server-everything:", line)
		}
		if !announced {
			listening <- false
		}
		close(exited)
	}()
	stop := func() {
		_ = cmd.Process.Kill()
		<-exited
		_ = cmd.Wait()
	}
	select {
	case ok := <-listening:
		if !ok {
			stop()
			return "", fmt.Errorf("server-everything exited before listening on port %d", port)
		}
	case <-time.After(30 * time.Second):
		stop()
		return "", fmt.Errorf("server-everything did not listen on port %d within 30s", port)
	}
	t.Cleanup(stop)
	return fmt.Sprintf("http://127.0.0.1:%d/mcp", port), nil
}

// writeFile writes a file of the test's temporary directory.
func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// searchIDs returns the IDs search_tools finds for a query in a namespace.
func searchIDs(t *testing.T, out map[string]any) []string {
	t.Helper()
	tools, ok := out["tools"].([]any)
	require.True(t, ok, "search_tools returns a list of tools: %v", out)
	var ids []string
	for _, tool := range tools {
		ids = append(ids, tool.(map[string]any)["id"].(string))
	}
	return ids
}

// TestURLUpstreamEverything serves server-everything, reached over
// streamable HTTP at a url, through `metatools serve`.
func TestURLUpstreamEverything(t *testing.T) {
	endpoint := startEverythingHTTP(t)
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("mcpServers:\n  - name: remote\n    url: %q\n", endpoint))
	cs := connectStdio(t, nil, "--config", cfg)
	waitForUpstreams(t, cs)

	res, out := callTool(t, cs, "search_tools", map[string]any{"query": "echo back a message", "limit": 5})
	require.False(t, res.IsError, resultText(res))
	assert.Contains(t, searchIDs(t, out), "remote:echo")

	res, out = callTool(t, cs, "run_tool", map[string]any{"id": "remote:echo", "args": map[string]any{"message": "hello over http"}})
	require.False(t, res.IsError, resultText(res))
	assert.Equal(t, "mcp:remote", out["backend"])
	assert.Contains(t, resultText(res), "Echo: hello over http", "the upstream's own answer comes back")
}

// TestClaudeDesktopConfig serves a Claude Desktop configuration file as
// it is: one server started as a command, one reached at a url.
func TestClaudeDesktopConfig(t *testing.T) {
	endpoint := startEverythingHTTP(t)
	host := map[string]any{"mcpServers": map[string]any{
		"local":  map[string]any{"command": "node", "args": []string{everythingServer(t), "stdio"}, "alwaysAllow": []string{"echo"}},
		"remote": map[string]any{"url": endpoint, "disabledTools": []string{"get-sum"}},
		"unused": map[string]any{"command": "/nonexistent/server", "disabled": true},
	}}
	data, err := json.MarshalIndent(host, "", "  ")
	require.NoError(t, err)
	cs := connectStdio(t, nil, "--config", writeFile(t, "claude_desktop_config.json", string(data)))
	waitForUpstreams(t, cs)

	// Both servers' tools are in the catalogue, namespaced by their keys.
	res, out := callTool(t, cs, "search_tools", map[string]any{"query": "echo back a message", "limit": 10})
	require.False(t, res.IsError, resultText(res))
	ids := searchIDs(t, out)
	assert.Contains(t, ids, "local:echo")
	assert.Contains(t, ids, "remote:echo")
	_, out = callTool(t, cs, "list_namespaces", nil)
	raw, err := json.Marshal(out)
	require.NoError(t, err)
	assert.Contains(t, string(raw), `"local"`)
	assert.Contains(t, string(raw), `"remote"`)
	assert.NotContains(t, string(raw), `"unused"`, "a disabled server is left out")

	tools := len(everythingTools(t))
	for _, ns := range []string{"local", "remote"} {
		t.Run(ns, func(t *testing.T) {
			_, out := callTool(t, cs, "search_tools", map[string]any{"query": "", "namespace": ns, "limit": 50})
			ids := searchIDs(t, out)
			res, out := callTool(t, cs, "run_tool", map[string]any{"id": ns + ":get-sum", "args": map[string]any{"a": 19, "b": 23}})
			if ns == "remote" {
				// The host's file disables get-sum of remote: it neither
				// shows nor runs.
				assert.Len(t, ids, tools-1, "every tool of the server but the disabled one is listed")
				assert.NotContains(t, ids, "remote:get-sum")
				require.True(t, res.IsError)
				assert.Contains(t, resultText(res), "[not_found]")
			} else {
				assert.Len(t, ids, tools, "every tool of the server is listed")
				require.False(t, res.IsError, resultText(res))
				assert.Equal(t, "mcp:"+ns, out["backend"])
				assert.Contains(t, resultText(res), "42")
			}
			res, _ = callTool(t, cs, "run_tool", map[string]any{"id": ns + ":echo", "args": map[string]any{"message": "via " + ns}})
			require.False(t, res.IsError, resultText(res))
			assert.Contains(t, resultText(res), "Echo: via "+ns)
		})
	}
}
