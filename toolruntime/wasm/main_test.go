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

// buildRunner compiles cmd/toolruntime-runner for wasip1 into dir. Go's
// build cache makes it quick after the first time.
func buildRunner(dir string) (string, error) {
	out := filepath.Join(dir, "toolruntime-runner.wasm")
	cmd := exec.Command("go", "build", "-o", out, "../cmd/toolruntime-runner")
	cmd.Env = append(os.Environ(), "GOOS=wasip1", "GOARCH=wasm")
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
	fmt.Fprintf(os.Stderr, "wasm: built the runner in %v, compiled it in %v (cache %s), %s/%s\n",
		built.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), dir, runtime.GOOS, runtime.GOARCH)
	code := m.Run()
	if err := shared.Close(context.Background()); err != nil {
		fmt.Fprintln(os.Stderr, "close the backend:", err)
		return 1
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			return 1
		}
	}
	return code
}
