package main

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// The end-to-end tests run third-party MCP software from the npm registry
// (server-everything, the MCP Inspector, the MCP conformance suite),
// pinned in toolserver/e2e/package-lock.json. `make test` installs it
// first; `go test` alone does not, so every test that needs it finds it
// through npmFile, which fails (never skips) with the command to run when
// it is missing.

// e2eModules is the folder of the installed npm packages, relative to
// this package.
const e2eModules = "../../e2e/node_modules"

// npmInstallHint is how to install the npm packages of the end-to-end
// tests.
const npmInstallHint = "run `make e2e-deps` (npm ci --prefix toolserver/e2e)"

// npmFile returns the absolute path of a file of the installed npm
// packages (elem under node_modules). The test fails with a message that
// says how to install them when the file is missing, or when node, which
// runs them, is not on the PATH.
func npmFile(t testing.TB, elem ...string) string {
	t.Helper()
	if _, err := exec.LookPath("node"); err != nil {
		require.FailNow(t, "this end-to-end test runs Node.js software and node is not on the PATH: install Node.js (20 or later, with npm), then "+npmInstallHint)
	}
	dir, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	path := filepath.Join(append([]string{dir}, elem...)...)
	if _, err := os.Stat(path); err != nil {
		what := filepath.Join(append([]string{"toolserver/e2e/node_modules"}, elem...)...) + " is missing"
		if !errors.Is(err, fs.ErrNotExist) {
			what = err.Error()
		}
		require.FailNow(t, fmt.Sprintf("the npm packages of the end-to-end tests are not installed (%s): %s", what, npmInstallHint))
	}
	return path
}

// everythingServer returns the entry point of the reference MCP server
// server-everything, to run with node.
func everythingServer(t testing.TB) string {
	t.Helper()
	return npmFile(t, "@modelcontextprotocol", "server-everything", "dist", "index.js")
}

// inspectorCommand returns the command-line entry of the MCP Inspector.
func inspectorCommand(t testing.TB) string {
	t.Helper()
	return npmFile(t, ".bin", "mcp-inspector")
}

// failureRecorder is a testing.TB that records the messages of a failure;
// its FailNow stops the caller by panicking with stopped, which
// failsWith recovers, as a test's FailNow stops its goroutine.
type failureRecorder struct {
	testing.TB
	messages []string
}

// stopped is the panic value of failureRecorder.FailNow.
type stopped struct{}

func (r *failureRecorder) Helper() {}

func (r *failureRecorder) Errorf(format string, args ...any) {
	r.messages = append(r.messages, fmt.Sprintf(format, args...))
}

func (r *failureRecorder) FailNow() { panic(stopped{}) }

// failsWith runs fn with a failureRecorder, and returns whether fn was
// stopped and the messages it failed with.
func failsWith(t *testing.T, fn func(testing.TB)) (wasStopped bool, messages []string) {
	rec := &failureRecorder{TB: t}
	defer func() {
		if v := recover(); v != nil {
			if _, ok := v.(stopped); !ok {
				panic(v)
			}
			wasStopped, messages = true, rec.messages
		}
	}()
	fn(rec)
	return false, rec.messages
}

// TestNPMFileSaysHowToInstall checks that a test whose npm package is not
// installed fails, naming the command that installs it.
func TestNPMFileSaysHowToInstall(t *testing.T) {
	wasStopped, messages := failsWith(t, func(tb testing.TB) {
		npmFile(tb, "@metatools-test", "not-a-package", "index.js")
	})
	assert.True(t, wasStopped, "npmFile stops the test when the file is missing")
	require.Len(t, messages, 1)
	assert.Contains(t, messages[0], "run `make e2e-deps` (npm ci --prefix toolserver/e2e)")
}
