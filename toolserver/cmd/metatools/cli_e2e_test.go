package main

import (
	"bufio"
	"debug/buildinfo"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBinaryVersionAgreesWithTheServer reads the version the go command
// stamped into the binary: --version prints it, and the server reports
// it to MCP clients.
func TestBinaryVersionAgreesWithTheServer(t *testing.T) {
	info, err := buildinfo.ReadFile(metatoolsBinary(t))
	require.NoError(t, err)
	out, err := exec.Command(metatoolsBinary(t), "--version").Output()
	require.NoError(t, err)
	fields := strings.Fields(string(out))
	require.Len(t, fields, 3, string(out))
	got := fields[1]
	if v := info.Main.Version; v != "" && v != "(devel)" {
		assert.Equal(t, v, got, "the version the go command stamped")
	} else {
		assert.Regexp(t, `^(devel|[0-9a-f]{1,12}(\+dirty)?)$`, got, "the revision built, or devel")
	}

	cs := connectStdio(t, nil)
	assert.Equal(t, got, cs.InitializeResult().ServerInfo.Version)
}

// TestRunShowsServerEverythingsImage runs server-everything's image tool
// from the command line: the image is announced, and saved with --out.
func TestRunShowsServerEverythingsImage(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(metatoolsBinary(t), "run", "--config", everythingConfig(t), "--out", dir, "everything:get-tiny-image")
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err)
	saved := filepath.Join(dir, "get-tiny-image-1.png")
	assert.Regexp(t, `(?m)^\[image image/png, \d+\.\d KiB\] saved to `+regexp.QuoteMeta(saved)+`$`, string(out))
	data, err := os.ReadFile(saved)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(data), "\x89PNG\r\n\x1a\n"), "a PNG file")
}

// TestServeStopsCleanlyOnSignals stops a serving metatools as Ctrl-C and
// service managers do: it says why it stopped and exits 0.
func TestServeStopsCleanlyOnSignals(t *testing.T) {
	tests := []struct {
		name   string
		signal os.Signal
		want   string
	}{
		{"SIGINT", os.Interrupt, "metatools: SIGINT received, stopped"},
		{"SIGTERM", syscall.SIGTERM, "metatools: SIGTERM received, stopped"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := exec.Command(metatoolsBinary(t), "serve", "--http", "127.0.0.1:0", "--drain-delay", "0")
			stderr, err := cmd.StderrPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			t.Cleanup(func() { _ = cmd.Process.Kill() })
			sc := bufio.NewScanner(stderr)
			listening := false
			for !listening && sc.Scan() {
				listening = strings.Contains(sc.Text(), "serving MCP at http://127.0.0.1:")
			}
			require.True(t, listening, "the server announced its address")

			require.NoError(t, cmd.Process.Signal(tt.signal))
			var rest []string
			for sc.Scan() {
				rest = append(rest, sc.Text())
			}
			require.NoError(t, cmd.Wait(), "exit status 0; stderr: %q", rest)
			assert.Equal(t, 0, cmd.ProcessState.ExitCode())
			assert.Contains(t, rest, tt.want)
		})
	}
}

// TestServeStdioStopsCleanlyOnSIGINT stops metatools serving over stdio,
// its input still open, with Ctrl-C.
func TestServeStdioStopsCleanlyOnSIGINT(t *testing.T) {
	p := startRawStdio(t)
	p.initialize(t)
	require.NoError(t, p.cmd.Process.Signal(os.Interrupt))
	require.NoError(t, p.cmd.Wait(), "exit status 0")
}

// TestServeLogLevel runs a client session against `serve --log-level`:
// at info, the default, the session's start is logged; at warn nothing
// is. A level that is none is a usage error.
func TestServeLogLevel(t *testing.T) {
	for _, tt := range []struct {
		args     []string
		wantInfo bool
	}{
		{nil, true},
		{[]string{"--log-level", "info"}, true},
		{[]string{"--log-level", "warn"}, false},
		{[]string{"--log-level", "ERROR"}, false},
	} {
		t.Run(strings.Join(append([]string{"level"}, tt.args...), " "), func(t *testing.T) {
			var stderr strings.Builder
			cmd := exec.Command(metatoolsBinary(t), append([]string{"serve"}, tt.args...)...)
			cmd.Stderr = &stderr
			client := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "1"}, nil)
			cs, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd, TerminateDuration: 2 * time.Second}, nil)
			require.NoError(t, err)
			_, err = cs.ListTools(t.Context(), nil)
			require.NoError(t, err)
			require.NoError(t, cs.Close())
			// Close waited for the process: its standard error is whole.
			assert.Equal(t, tt.wantInfo, strings.Contains(stderr.String(), "level=INFO"), stderr.String())
		})
	}
	code, _, stderr := cli(t, "", "serve", "--log-level", "loud")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `invalid value "loud" for flag -log-level`)
}
