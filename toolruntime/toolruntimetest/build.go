package toolruntimetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
)

// builds caches the runner built per target for the test binary's life.
var builds sync.Map // "goos/goarch" -> *build

type build struct {
	once sync.Once
	path string
	err  error
	out  []byte
}

// BuildRunner builds the command proberunner (the runner with the
// JavaScript, TypeScript and probe engines) for goos and goarch (the
// host's when empty) and returns the path of the executable; it fails t
// when the build fails. The build runs once per target per test binary
// (the go command's cache makes later test binaries cheap too), into a
// temporary directory that outlives any one test: call [RemoveRunners]
// from TestMain after m.Run to remove it.
func BuildRunner(t testing.TB, goos, goarch string) string {
	t.Helper()
	if goos == "" {
		goos = runtime.GOOS
	}
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	v, _ := builds.LoadOrStore(goos+"/"+goarch, &build{})
	b := v.(*build)
	b.once.Do(func() {
		// Not t.TempDir: the executable serves every later test of the
		// binary; RemoveRunners removes it.
		dir, err := os.MkdirTemp("", "proberunner-") //nolint:usetesting // outlives the test, see above

		if err != nil {
			b.err = err
			return
		}
		// A backend may run the runner as another user (the process
		// backend does, under root): it must reach it.
		if err := os.Chmod(dir, 0o755); err != nil {
			b.err = err
			return
		}
		name := "proberunner"
		switch goos {
		case "wasip1", "js":
			name += ".wasm"
		case "windows":
			name += ".exe"
		}
		b.path = filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", b.path, "github.com/metatools-go/metatools/toolruntime/toolruntimetest/proberunner")
		cmd.Env = append(os.Environ(), "GOOS="+goos, "GOARCH="+goarch, "CGO_ENABLED=0")
		b.out, b.err = cmd.CombinedOutput()
	})
	if b.err != nil {
		t.Fatalf("build proberunner for %s/%s: %v\n%s", goos, goarch, b.err, b.out)
	}
	return b.path
}

// RemoveRunners removes the executables [BuildRunner] built. Call it from
// TestMain once the tests have run.
func RemoveRunners() {
	builds.Range(func(_, v any) bool {
		if b := v.(*build); b.path != "" {
			_ = os.RemoveAll(filepath.Dir(b.path))
		}
		return true
	})
}
