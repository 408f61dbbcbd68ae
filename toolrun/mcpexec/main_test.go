package mcpexec_test

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

// testServer is the path of the testserver program, built once for all
// the tests.
var testServer string

func TestMain(m *testing.M) {
	flag.Parse()
	// A fuzzing worker process runs only its fuzz target, which needs no
	// test server: building one in each worker would take the time of a
	// short fuzzing run.
	if fuzzWorker := flag.Lookup("test.fuzzworker"); fuzzWorker != nil && fuzzWorker.Value.String() == "true" {
		goleak.VerifyTestMain(m)
		return
	}
	dir, err := os.MkdirTemp("", "mcpexec-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServer = filepath.Join(dir, "testserver")
	build := exec.Command("go", "build", "-o", testServer, "./internal/testserver")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build the test server:", err)
		_ = os.RemoveAll(dir)
		os.Exit(1)
	}
	goleak.VerifyTestMain(m, goleak.Cleanup(func(int) { _ = os.RemoveAll(dir) }))
}
