package process_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// runnerPath is the real runner, built once for the package's tests as a
// static binary (bubblewrap binds nothing else into the sandbox).
var runnerPath string

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

// runnerEnv passes the runner built by the parent to the test binary's
// children (the hostile suite runs each program in one).
const runnerEnv = "PROCESS_TEST_RUNNER"

func run(m *testing.M) int {
	if path := os.Getenv(runnerEnv); path != "" {
		runnerPath = path
		return m.Run()
	}
	dir, err := os.MkdirTemp("", "process-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// Under root, the backend runs the runner as nobody, who must reach it.
	if err := os.Chmod(dir, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	runnerPath = filepath.Join(dir, "toolruntime-runner")
	build := exec.Command("go", "build", "-o", runnerPath, "github.com/metatools-go/metatools/toolruntime/cmd/toolruntime-runner")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the runner: %v\n%s", err, out)
		return 1
	}
	if err := os.Setenv(runnerEnv, runnerPath); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	code := m.Run()
	toolruntimetest.RemoveRunners()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}
