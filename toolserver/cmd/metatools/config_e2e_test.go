package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// emptyEnv is the environment of a new user's first run: nothing set,
// as with env -i.
var emptyEnv = []string{}

// TestExampleRunsAsPrinted runs what a new user runs first, in an empty
// environment: `metatools config example > f.yaml`, `metatools config
// validate f.yaml`, then `metatools serve --config f.yaml` over stdio,
// with a real MCP client that initializes, lists the tools and closes.
func TestExampleRunsAsPrinted(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "f.yaml")

	example := exec.Command(metatoolsBinary(t), "config", "example")
	example.Env = emptyEnv
	out, err := example.Output()
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, out, 0o600))

	validate := exec.Command(metatoolsBinary(t), "config", "validate", path)
	validate.Env = emptyEnv
	var stderr bytes.Buffer
	validate.Stderr = &stderr
	out, err = validate.Output()
	require.NoError(t, err, "config validate: %s", stderr.String())
	assert.Contains(t, string(out), path+": valid (0 MCP servers, 0 OpenAPI documents, 0 gRPC services, built-in tools on)")

	serve := exec.Command(metatoolsBinary(t), "serve", "--config", path)
	serve.Env = emptyEnv
	serve.Dir = dir
	serve.Stderr = &testWriter{t: t}
	client := mcp.NewClient(&mcp.Implementation{Name: "new-user", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: serve, TerminateDuration: 5 * time.Second}, nil)
	require.NoError(t, err, "serve speaks MCP over stdio")
	init := cs.InitializeResult()
	require.NotNil(t, init)
	assert.Equal(t, "metatools", init.ServerInfo.Name, "the default of ${METATOOLS_NAME:-metatools}")

	var names []string
	for tool, err := range cs.Tools(context.Background(), nil) {
		require.NoError(t, err)
		names = append(names, tool.Name)
	}
	assert.Contains(t, names, "search_tools")
	assert.Contains(t, names, "run_tool")
	assert.True(t, slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "time.") }),
		"the example's passthrough of time:* lists the time tools directly: %v", names)
	require.NoError(t, cs.Close())
}

// TestValidateAndServeAgree checks that `config validate` refuses every
// bad configuration of the config package's test data, and that `serve`
// refuses it before serving, both with exit code 2 and the same message
// at the same line.
func TestValidateAndServeAgree(t *testing.T) {
	t.Setenv("METATOOLS_TEST_UNSET_TOKEN", "")
	require.NoError(t, os.Unsetenv("METATOOLS_TEST_UNSET_TOKEN"))
	files, err := filepath.Glob(filepath.Join("..", "..", "config", "testdata", "problems", "*"))
	require.NoError(t, err)
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			golden, err := os.ReadFile(path + ".golden")
			require.NoError(t, err)
			// The golden messages name the file by its base name.
			want := strings.ReplaceAll(string(golden), filepath.Base(path)+":", path+":")

			code, stdout, stderr := cli(t, "", "config", "validate", path)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Equal(t, "metatools: "+want, stderr)

			code, stdout, stderr = cli(t, "", "serve", "--config", path)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Equal(t, "metatools: "+want, stderr)
		})
	}
	assert.GreaterOrEqual(t, n, 7)
}
