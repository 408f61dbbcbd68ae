package wasm_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolruntime/wasm"
)

// modulePath is the runner compiled for wasip1 by TestMain.
var modulePath string

// shared is the backend most tests use: compiling the runner is the
// expensive part, done once per test binary (and once per machine with
// the cache directory).
var shared *wasm.Backend

// unspared is a backend that starts each instance when its execution
// comes, for the conformance suite, which counts the goroutines an
// execution leaves: a spare started ahead is one.
var unspared *wasm.Backend

// cacheDir returns the directory of wazero's compilation cache for the
// tests: under the user's cache, named by the version of wazero in go.mod
// (a test binary does not know its dependencies' versions, so wazero's own
// key would not tell two versions apart).
func cacheDir() (string, error) {
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	f, err := os.Open(filepath.Join("..", "go.mod"))
	if err != nil {
		return "", err
	}
	defer f.Close()
	version := ""
	s := bufio.NewScanner(f)
	for s.Scan() {
		fields := strings.Fields(s.Text())
		if len(fields) >= 2 && fields[0] == "github.com/tetratelabs/wazero" {
			version = fields[1]
		}
	}
	if version == "" {
		return "", fmt.Errorf("no wazero version in go.mod")
	}
	return filepath.Join(base, "metatools", "toolruntime-wasm-test", "wazero-"+version), nil
}

// buildRunner compiles the runner for wasip1 into dir: the probe runner of
// toolruntimetest, which is cmd/toolruntime-runner with the probe engine
// added, so that one module (the costly part is wazero compiling it)
// serves the backend's own tests and the conformance suite. Go's build
// cache makes the build quick after the first time.
//
// The compilation cache finds a module by the hash of its bytes, so the
// build leaves out what would change them without changing the program:
// the checkout's path (-trimpath), the commit (-buildvcs=false), and the
// workspace (GOWORK=off: go.work selects newer versions of some of the
// runner's dependencies than the module does, and other build
// information, so the runner is built as the module alone builds it). A
// new clone, a new commit that leaves the runner alone, `make test` and
// `make test-modules` all then reuse the machine code compiled once.
func buildRunner(dir string) (string, error) {
	out := filepath.Join(dir, "toolruntime-runner.wasm")
	cmd := exec.Command("go", "build", "-trimpath", "-buildvcs=false", "-o", out, "../toolruntimetest/proberunner")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm", "GOWORK=off")
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("go build the runner for wasip1: %w", err)
	}
	return out, nil
}

func TestMain(m *testing.M) { os.Exit(testMain(m)) }

func testMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "toolruntime-wasm-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	start := time.Now()
	if modulePath, err = buildRunner(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	built := time.Since(start)
	dir, err := cacheDir()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	start = time.Now()
	shared, err = wasm.NewFromFile(modulePath, wasm.WithCacheDir(dir), wasm.WithSpares(2))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if unspared, err = wasm.NewFromFile(modulePath, wasm.WithCacheDir(dir), wasm.WithSpares(0)); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "wasm: built the runner in %v, compiled it in %v (cache %s), %s/%s\n",
		built.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), dir, runtime.GOOS, runtime.GOARCH)
	code := m.Run()
	for _, b := range []*wasm.Backend{shared, unspared} {
		if err := b.Close(context.Background()); err != nil {
			fmt.Fprintln(os.Stderr, "close the backend:", err)
			return 1
		}
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}
