package mcpexec_test

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

func TestServerConfigJSON(t *testing.T) {
	var cfg mcpexec.ServerConfig
	require.NoError(t, json.Unmarshal([]byte(`{
		"command": "github-mcp", "args": ["stdio", "--read-only"],
		"env": {"GITHUB_TOKEN": "t0ken"}, "dir": "/srv", "terminateTimeout": "250ms"}`), &cfg))
	assert.Equal(t, mcpexec.ServerConfig{
		Command: "github-mcp", Args: []string{"stdio", "--read-only"},
		Env: map[string]string{"GITHUB_TOKEN": "t0ken"}, Dir: "/srv",
		TerminateTimeout: toolmodel.Duration(250 * time.Millisecond),
	}, cfg)
	require.NoError(t, cfg.Validate())

	cfg = mcpexec.ServerConfig{}
	require.NoError(t, json.Unmarshal([]byte(`{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}`), &cfg))
	assert.Equal(t, mcpexec.ServerConfig{URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}}, cfg)
	require.NoError(t, cfg.Validate())

	out, err := json.Marshal(cfg)
	require.NoError(t, err)
	assert.JSONEq(t, `{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}`, string(out))
}

func TestServerConfigJSONRejects(t *testing.T) {
	tests := map[string]struct{ input, message string }{
		"unknown field": {`{"comand": "x"}`, `unknown field "comand"`},
		"wrong type":    {`{"args": "x"}`, "cannot unmarshal string"},
		"bad duration":  {`{"command": "x", "terminateTimeout": "soon"}`, `duration "soon"`},
		"not an object": {`["x"]`, "cannot unmarshal array"},
	}
	for name, tt := range tests {
		t.Run(name, func(t *testing.T) {
			var cfg mcpexec.ServerConfig
			err := json.Unmarshal([]byte(tt.input), &cfg)
			require.ErrorContains(t, err, "MCP server configuration")
			assert.ErrorContains(t, err, tt.message)
		})
	}
}

func TestServerConfigValidate(t *testing.T) {
	transport := func(context.Context) (mcp.Transport, error) { return nil, nil }
	tests := []struct {
		name    string
		cfg     mcpexec.ServerConfig
		problem string // empty when valid
	}{
		{"command", mcpexec.ServerConfig{Command: "srv", Args: []string{"-v"}, Env: map[string]string{"A": "1"}, Dir: "/tmp", Stderr: os.Stderr}, ""},
		{"url", mcpexec.ServerConfig{URL: "http://localhost:8080/mcp", Headers: map[string]string{"X-Key": "k"}, HTTPClient: http.DefaultClient}, ""},
		{"transport", mcpexec.ServerConfig{Transport: transport}, ""},
		{"nothing", mcpexec.ServerConfig{}, "exactly one of command, url and transport must be set, not 0"},
		{"two ways", mcpexec.ServerConfig{Command: "srv", URL: "http://localhost/mcp"}, "not 2"},
		{"args without a command", mcpexec.ServerConfig{URL: "http://localhost/mcp", Args: []string{"x"}}, "apply to a command only"},
		{"headers without a url", mcpexec.ServerConfig{Command: "srv", Headers: map[string]string{"A": "b"}}, "apply to a url only"},
		{"NUL in an argument", mcpexec.ServerConfig{Command: "srv", Args: []string{"a\x00b"}}, "NUL bytes"},
		{"bad env name", mcpexec.ServerConfig{Command: "srv", Env: map[string]string{"A=B": "1"}}, `env "A=B"`},
		{"negative timeout", mcpexec.ServerConfig{Command: "srv", TerminateTimeout: -1}, "terminateTimeout is negative"},
		{"relative url", mcpexec.ServerConfig{URL: "/mcp"}, "not an absolute http(s) URL"},
		{"other scheme", mcpexec.ServerConfig{URL: "ws://localhost/mcp"}, "not an absolute http(s) URL"},
		{"bad header name", mcpexec.ServerConfig{URL: "http://localhost/mcp", Headers: map[string]string{"Bad Name": "x"}}, `header "Bad Name"`},
		{"header value with a newline", mcpexec.ServerConfig{URL: "http://localhost/mcp", Headers: map[string]string{"X": "a\r\nInjected: 1"}}, `header "X"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			if tt.problem == "" {
				assert.NoError(t, err)
				return
			}
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.ErrorContains(t, err, tt.problem)
		})
	}
}

func TestServerConfigIsCopied(t *testing.T) {
	cfg := mcpexec.ServerConfig{Command: testServer, Env: map[string]string{"MCPEXEC_TEST_VALUE": "before"}}
	m := newManager(t, mcpexec.WithServer("demo", cfg))
	cfg.Env["MCPEXEC_TEST_VALUE"] = "after"
	out, err := m.Execute(context.Background(), mcpCall("demo", "env", map[string]any{"name": "MCPEXEC_TEST_VALUE"}))
	require.NoError(t, err)
	assert.Equal(t, "before", out.Structured.(map[string]any)["value"])
}

// FuzzServerConfig decodes and validates arbitrary input: neither may
// panic, and a configuration that decodes encodes to JSON that decodes to
// the same configuration (empty and absent maps alike).
func FuzzServerConfig(f *testing.F) {
	f.Add([]byte(`{"command": "srv", "args": ["a"], "env": {"K": "v"}, "dir": "/d", "terminateTimeout": "1s"}`))
	f.Add([]byte(`{"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}`))
	f.Add([]byte(`{"terminateTimeout": 1.5}`))
	f.Add([]byte(`{"url": "http://[::1]:80/%zz"}`))
	f.Add([]byte(`{}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		var cfg mcpexec.ServerConfig
		if json.Unmarshal(data, &cfg) != nil {
			return
		}
		if err := cfg.Validate(); err != nil {
			require.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		}
		out, err := json.Marshal(cfg)
		require.NoError(t, err)
		var again mcpexec.ServerConfig
		require.NoError(t, json.Unmarshal(out, &again), "%s", out)
		outAgain, err := json.Marshal(again)
		require.NoError(t, err)
		require.Equal(t, string(out), string(outAgain))
	})
}
