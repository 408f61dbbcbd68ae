package config_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

func TestProcessSettings(t *testing.T) {
	cfg, err := config.Parse([]byte(`
mcpServers:
  - name: a
    command: npx
    inheritEnv: [AWS_PROFILE, "GITHUB_*"]
    stderr: stream
    connectTimeout: 2m
  - {name: b, command: x, stderr: log}
  - {name: c, command: x, stderr: quiet}
  - {name: d, command: x, stderr: }
  - {name: e, url: "https://mcp.example.com/mcp", connectTimeout: 5s}
`))
	require.NoError(t, err)
	a := cfg.MCPServers[0]
	assert.Equal(t, []string{"AWS_PROFILE", "GITHUB_*"}, a.InheritEnv)
	assert.Equal(t, config.StderrStream, a.Stderr)
	assert.Equal(t, config.Duration(2*time.Minute), a.ConnectTimeout)
	assert.Equal(t, config.StderrLog, cfg.MCPServers[1].Stderr)
	assert.Equal(t, config.StderrQuiet, cfg.MCPServers[2].Stderr)
	assert.Equal(t, config.StderrDefault, cfg.MCPServers[3].Stderr)
	assert.Equal(t, config.Duration(5*time.Second), cfg.MCPServers[4].ConnectTimeout, "a URL server has its own bound too")
}

func TestProcessSettingErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"unknown stderr mode", "mcpServers: [{name: a, command: x, stderr: loud}]", `line 1: mcpServers[0].stderr: "loud" is not quiet, log or stream`},
		{"stderr as a list", "mcpServers: [{name: a, command: x, stderr: [log]}]", "line 1: mcpServers[0].stderr: expected a string, not a list"},
		{"negative connect timeout", "mcpServers: [{name: a, command: x, connectTimeout: -1s}]", "line 1: mcpServers[0].connectTimeout: must not be negative"},
		{"inheritEnv with =", "mcpServers: [{name: a, command: x, inheritEnv: ['A=B']}]", `mcpServers[0].inheritEnv[0]: "A=B": a variable name, or a prefix followed by *`},
		{"inheritEnv empty", "mcpServers: [{name: a, command: x, inheritEnv: ['']}]", `mcpServers[0].inheritEnv[0]: "":`},
		{"stderr of a URL server", "mcpServers: [{name: a, url: 'https://x.example/mcp', stderr: log}]", "mcpServers[0].stderr: applies to a server started by a command, not to one reached at a url"},
		{"inheritEnv of a URL server", "mcpServers: [{name: a, url: 'https://x.example/mcp', inheritEnv: [A]}]", "mcpServers[0].inheritEnv: applies to a server started by a command"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}
