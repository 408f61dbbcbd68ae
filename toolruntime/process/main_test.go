package process_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// runnerPath is the real runner, built once for the package's tests as a
// static binary (bubblewrap binds nothing else into the sandbox).
var runnerPath string

// outOfProcess names the subtests of toolcodetest's suite that cannot
// hold for a backend out of process, whatever the backend: one runs the
// execution in a testing/synctest bubble, which a child process is outside
// of (synctest.Wait returns before the child has called anything); the
// other gives a program 100 ms, start-up included, to make a call, which
// is less than a runner process takes to start on a loaded machine. The
// behaviour they check (bounded concurrency, a deadline after a call) is
// covered by the suite's other subtests and by this package's escape tests.
const outOfProcess = "TestConformance/[^/]*/[^/]*/ParallelBoundedByConcurrency|TestConformance/[^/]*/[^/]*/Limit/WallTimeAfterCall"

func TestMain(m *testing.M) {
	flag.Parse()
	if f := flag.Lookup("test.skip"); f != nil && f.Value.String() == "" {
		_ = f.Value.Set(outOfProcess)
	}
	os.Exit(run(m))
}

func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "process-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	runnerPath = filepath.Join(dir, "toolruntime-runner")
	build := exec.Command("go", "build", "-o", runnerPath, "github.com/metatools-go/metatools/toolruntime/cmd/toolruntime-runner")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "build the runner: %v\n%s", err, out)
		return 1
	}
	code := m.Run()
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}
