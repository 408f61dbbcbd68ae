package mcpexec_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// logRecord is a log record, with its attributes as text.
type logRecord struct {
	level slog.Level
	msg   string
	attrs map[string]string
}

// captureHandler is a slog handler that keeps every record.
type captureHandler struct {
	mu      sync.Mutex
	records []logRecord
}

func (h *captureHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *captureHandler) Handle(_ context.Context, r slog.Record) error {
	rec := logRecord{level: r.Level, msg: r.Message, attrs: map[string]string{}}
	r.Attrs(func(a slog.Attr) bool {
		rec.attrs[a.Key] = a.Value.String()
		return true
	})
	h.mu.Lock()
	defer h.mu.Unlock()
	h.records = append(h.records, rec)
	return nil
}

func (h *captureHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *captureHandler) WithGroup(string) slog.Handler      { return h }

// find returns the records with the given message.
func (h *captureHandler) find(msg string) []logRecord {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []logRecord
	for _, r := range h.records {
		if r.msg == msg {
			out = append(out, r)
		}
	}
	return out
}

// lockedBuffer is a buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestStderrOfAServerThatFailsToStartIsInTheErrorAndTheLog(t *testing.T) {
	logs := &captureHandler{}
	m := newManager(t, mcpexec.WithServer("keyless", mcpexec.ServerConfig{
		Command: testServer, Args: []string{"-fail", "fatal: missing API key"},
	}), mcpexec.WithLogger(slog.New(logs)))

	_, err := m.ListTools(t.Context(), "keyless")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `connect to MCP server "keyless": `)
	assert.Contains(t, err.Error(), "; stderr: starting | config: loaded | fatal: missing API key",
		"the last lines, without colours or carriage returns, and the last line although it has no newline")
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))

	failed := logs.find("MCP server connection failed")
	require.Len(t, failed, 1)
	assert.Equal(t, slog.LevelWarn, failed[0].level)
	assert.Equal(t, "keyless", failed[0].attrs["server"])
	assert.Equal(t, "1", failed[0].attrs["attempt"])
	assert.Contains(t, failed[0].attrs["error"], "fatal: missing API key")
	assert.Empty(t, logs.find("MCP server exited"), "a process that never connected is reported by the failure alone")
}

func TestStderrIsRedactedEverywhereItGoes(t *testing.T) {
	logs := &captureHandler{}
	var stderr lockedBuffer
	const key = "sk-test-0123456789"
	m := newManager(t, mcpexec.WithServer("keyed", mcpexec.ServerConfig{
		Command: testServer, Env: map[string]string{"SERVICE_API_KEY": key},
		Args:   []string{"-fail", "fatal: key " + key + " rejected; sent Authorization: Bearer abc.def.ghi"},
		Stderr: &stderr, LogStderr: true,
	}), mcpexec.WithLogger(slog.New(logs)))

	_, err := m.ListTools(t.Context(), "keyed")
	require.Error(t, err)
	const redacted = "fatal: key *** rejected; sent Authorization: Bearer ***"
	assert.Contains(t, err.Error(), "| "+redacted, "the error quotes the line without the key the server was given, nor the credential it wrote")
	assert.Contains(t, stderr.String(), redacted+"\n", "the stream")
	logged := logs.find("MCP server stderr")
	require.NotEmpty(t, logged)
	assert.Equal(t, redacted, logged[len(logged)-1].attrs["line"], "the log")
	failed := logs.find("MCP server connection failed")
	require.Len(t, failed, 1)
	for _, text := range []string{err.Error(), stderr.String(), failed[0].attrs["error"], logged[len(logged)-1].attrs["line"]} {
		assert.NotContains(t, text, key)
		assert.NotContains(t, text, "abc.def.ghi")
	}
}

func TestURLServerErrorsHideItsSecrets(t *testing.T) {
	const key, token = "xk-0123456789", "q-secret-4242"
	srv := mcp.NewServer(&mcp.Implementation{Name: "keyed", Version: "v1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "whoami", InputSchema: json.RawMessage(`{"type":"object"}`)},
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "the key " + key + " is revoked"}
		})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close)
	logs := &captureHandler{}
	m := newManager(t,
		mcpexec.WithServer("keyed", mcpexec.ServerConfig{URL: h.URL + "?token=" + token, Headers: map[string]string{"X-API-Key": key}}),
		mcpexec.WithServer("down", mcpexec.ServerConfig{URL: "http://127.0.0.1:1/mcp?token=" + token}),
		mcpexec.WithLogger(slog.New(logs)))

	_, err := m.Execute(t.Context(), mcpCall("keyed", "whoami", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the key *** is revoked", "what the server says, without the key it was given")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))

	_, err = m.ListTools(t.Context(), "down")
	require.Error(t, err)
	assert.Contains(t, err.Error(), `/mcp?***"`, "the URL the HTTP client quotes, without its query")
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
	failed := logs.find("MCP server connection failed")
	require.Len(t, failed, 1)
	for _, text := range []string{err.Error(), failed[0].attrs["error"]} {
		assert.NotContains(t, text, token)
	}
	_, err = m.ListTools(t.Context(), "down")
	require.Error(t, err)
	assert.NotContains(t, err.Error(), token, "nor the error of a call in the backoff")
}

func TestStderrIsStreamedAndLoggedLineByLine(t *testing.T) {
	logs := &captureHandler{}
	var stderr lockedBuffer
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{
		Command: testServer, Stderr: &stderr, LogStderr: true,
	}), mcpexec.WithLogger(slog.New(logs)))

	_, err := m.Execute(t.Context(), mcpCall("demo", "crash", nil))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "; stderr: testserver: crashing on request", "a call cut short by a crash quotes the last lines")

	assert.Equal(t, "testserver: crashing on request\n", stderr.String())
	lines := logs.find("MCP server stderr")
	require.Len(t, lines, 1)
	assert.Equal(t, slog.LevelInfo, lines[0].level)
	assert.Equal(t, map[string]string{"server": "demo", "line": "testserver: crashing on request"}, lines[0].attrs)
}

func TestACrashAndTheRestartAreLogged(t *testing.T) {
	logs := &captureHandler{}
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{Command: testServer}),
		mcpexec.WithLogger(slog.New(logs)))
	before := pid(t, m, "demo")
	assert.Empty(t, logs.find("restarting MCP server"), "the first start is no restart")

	_, err := m.Execute(t.Context(), mcpCall("demo", "crash", nil))
	require.Error(t, err)
	exited := logs.find("MCP server exited")
	require.Len(t, exited, 1)
	assert.Equal(t, slog.LevelWarn, exited[0].level)
	assert.Equal(t, "demo", exited[0].attrs["server"])
	assert.Equal(t, "exit status 3", exited[0].attrs["status"])
	assert.Equal(t, "testserver: crashing on request", exited[0].attrs["stderr"])

	after := pid(t, m, "demo")
	assert.NotEqual(t, before, after)
	restarts := logs.find("restarting MCP server")
	require.Len(t, restarts, 1)
	assert.Equal(t, slog.LevelWarn, restarts[0].level)
	assert.Equal(t, "demo", restarts[0].attrs["server"])
	assert.Equal(t, "1", restarts[0].attrs["attempt"])
	assert.Equal(t, "the process exited (exit status 3); stderr: testserver: crashing on request", restarts[0].attrs["cause"])

	// Closing the manager ends the process on purpose: no crash.
	require.NoError(t, m.Close())
	assert.Len(t, logs.find("MCP server exited"), 1)
}

func TestFailedRestartsAreLoggedWithTheirAttempt(t *testing.T) {
	logs := &captureHandler{}
	m := newManager(t, mcpexec.WithServer("keyless", mcpexec.ServerConfig{
		Command: testServer, Args: []string{"-fail", "fatal: missing API key"},
	}), mcpexec.WithLogger(slog.New(logs)), mcpexec.WithReconnectBackoff(time.Nanosecond, time.Nanosecond))

	for range 2 {
		_, err := m.ListTools(t.Context(), "keyless")
		require.Error(t, err)
	}
	restarts := logs.find("restarting MCP server")
	require.Len(t, restarts, 1)
	assert.Equal(t, "2", restarts[0].attrs["attempt"])
	assert.Contains(t, restarts[0].attrs["cause"], "fatal: missing API key")
	failed := logs.find("MCP server connection failed")
	require.Len(t, failed, 2)
	assert.Equal(t, "2", failed[1].attrs["attempt"])
}

func TestConnectTimeoutErrorNamesTheSetting(t *testing.T) {
	cases := []struct {
		name     string
		opts     []mcpexec.Option
		own      time.Duration
		contains string
	}{
		{
			name:     "manager's bound, default names",
			opts:     []mcpexec.Option{mcpexec.WithConnectTimeout(200 * time.Millisecond)},
			contains: "no answer within 200ms; raise mcpexec.WithConnectTimeout, or set the server's ServerConfig.ConnectTimeout",
		},
		{
			name: "manager's bound, the program's names",
			opts: []mcpexec.Option{mcpexec.WithConnectTimeout(200 * time.Millisecond),
				mcpexec.WithConnectTimeoutSettings("limits.connectTimeout", "connectTimeout")},
			contains: "no answer within 200ms; raise limits.connectTimeout, or set the server's connectTimeout",
		},
		{
			name:     "the server's own bound",
			opts:     []mcpexec.Option{mcpexec.WithConnectTimeoutSettings("limits.connectTimeout", "connectTimeout")},
			own:      200 * time.Millisecond,
			contains: "no answer within 200ms; raise the server's connectTimeout",
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			// The server reads its input and never answers.
			opts := append([]mcpexec.Option{mcpexec.WithServer("mute", mcpexec.ServerConfig{
				Command: testServer, Args: []string{"-mute"}, ConnectTimeout: toolmodel.Duration(tc.own),
			})}, tc.opts...)
			m := newManager(t, opts...)
			_, err := m.ListTools(t.Context(), "mute")
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.contains)
			assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
		})
	}
}

// environ returns the environment of a new process of a server.
func environ(t *testing.T, cfg mcpexec.ServerConfig) map[string]string {
	t.Helper()
	m := newManager(t, mcpexec.WithServer("env", cfg))
	out, err := m.Execute(t.Context(), mcpCall("env", "environ", nil))
	require.NoError(t, err)
	env := map[string]string{}
	for _, kv := range out.Structured.(map[string]any)["environ"].([]any) {
		name, value, _ := strings.Cut(kv.(string), "=")
		env[name] = value
	}
	return env
}

func TestCommandServersGetAMinimalEnvironment(t *testing.T) {
	t.Setenv("METATOOLS_TOKEN", "secret of the server")
	t.Setenv("MCPEXEC_TEST_PASSED", "asked for")
	t.Setenv("MCPEXEC_TEST_PREFIXED", "asked for by prefix")
	t.Setenv("LC_MCPEXEC_TEST", "a locale category")
	t.Setenv("HTTPS_PROXY", "http://proxy.example:3128")

	env := environ(t, mcpexec.ServerConfig{
		Command:    testServer,
		Env:        map[string]string{"CONFIGURED": "from the config", "HTTPS_PROXY": "http://other.example:3128"},
		InheritEnv: []string{"MCPEXEC_TEST_PASSED", "MCPEXEC_TEST_PRE*", "ABSENT_VARIABLE"},
	})
	assert.NotContains(t, env, "METATOOLS_TOKEN", "the server's own secrets stay with it")
	assert.Equal(t, os.Getenv("PATH"), env["PATH"])
	assert.Equal(t, "from the config", env["CONFIGURED"])
	assert.Equal(t, "http://other.example:3128", env["HTTPS_PROXY"], "the configuration wins")
	assert.Equal(t, "asked for", env["MCPEXEC_TEST_PASSED"])
	assert.Equal(t, "asked for by prefix", env["MCPEXEC_TEST_PREFIXED"])
	assert.Equal(t, "a locale category", env["LC_MCPEXEC_TEST"])
	assert.NotContains(t, env, "ABSENT_VARIABLE")

	everything := environ(t, mcpexec.ServerConfig{Command: testServer, InheritEnv: []string{"*"}})
	assert.Equal(t, "secret of the server", everything["METATOOLS_TOKEN"], "* passes the whole environment, when asked for")
}

// TestToolFailuresHideTheSecretsOfTheServer checks that a tool's error
// result, which reaches a model, comes without the secrets the server is
// given, as its errors do: in its text and its structured content.
func TestToolFailuresHideTheSecretsOfTheServer(t *testing.T) {
	const key = "sk-test-0123456789"
	m := newManager(t, mcpexec.WithServer("keyed", mcpexec.ServerConfig{
		Command: testServer, Env: map[string]string{"SERVICE_API_KEY": key},
	}))
	out, err := m.Execute(t.Context(), mcpCall("keyed", "reject", map[string]any{"name": "SERVICE_API_KEY"}))
	require.NoError(t, err, "a tool's failure is its output")
	require.True(t, out.IsError)
	require.Len(t, out.Content, 1)
	text, ok := out.Content[0].(*mcp.TextContent)
	require.True(t, ok)
	assert.Equal(t, "key *** rejected", text.Text)
	assert.Equal(t, map[string]any{"error": "key *** rejected"}, out.Structured)
}
