package wasm_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/wasm"
)

// execute runs code under the hardened profile with the sandbox's limits
// l and the program's limits p, on backend b.
func execute(t *testing.T, b *wasm.Backend, l toolruntime.Limits, p toolcode.Limits, code string) (*toolcode.Result, error) {
	t.Helper()
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, b), toolruntime.WithLimits(l))
	require.NoError(t, err)
	engine, err := rt.Engine(toolruntime.Hardened, "javascript")
	require.NoError(t, err)
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
	return x.Execute(context.Background(), toolcode.ExecuteParams{Language: "javascript", Code: code, Limits: p})
}

// peakRSS returns the process's peak resident set size (VmHWM), in bytes.
func peakRSS(t *testing.T) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(status), "\n") {
		if rest, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			require.NoError(t, err)
			return kb << 10
		}
	}
	t.Fatal("no VmHWM in /proc/self/status")
	return 0
}

// newBackend returns a backend of the runner with the tests' cache
// directory, closed at the end of the test.
func newBackend(t *testing.T, opts ...wasm.Option) *wasm.Backend {
	t.Helper()
	dir, err := cacheDir()
	require.NoError(t, err)
	b, err := wasm.NewFromFile(modulePath, append([]wasm.Option{wasm.WithCacheDir(dir)}, opts...)...)
	require.NoError(t, err)
	t.Cleanup(func() { require.NoError(t, b.Close(context.Background())) })
	return b
}

func TestMemoryLimit(t *testing.T) {
	const limit = 64 << 20
	// A first execution under the cap makes its runtime (and spare), so
	// that the peak below is the program's.
	_, err := execute(t, shared, toolruntime.Limits{Memory: limit}, toolcode.Limits{}, `return 1`)
	require.NoError(t, err)
	before := peakRSS(t)
	// Half a GiB of distinct strings: far past the cap.
	res, err := execute(t, shared, toolruntime.Limits{Memory: limit}, toolcode.Limits{WallTime: time.Minute},
		`const a = []; for (let i = 0; i < 512; i++) { a.push(("x" + i).repeat(1 << 19)); } return a.length;`)
	require.Error(t, err)
	assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), "%v", err)
	assert.Equal(t, toolruntime.LimitMemory, toolcode.LimitOf(err), "%v", err)
	row, ok := toolruntime.LimitsEnforced(res.Isolation.Enforced).Get(toolruntime.LimitMemory)
	require.True(t, ok)
	assert.Equal(t, "67108864 bytes (1024 pages)", row.Value)
	assert.Equal(t, wasm.Mechanism, row.By)
	if grown := peakRSS(t) - before; grown > 0 {
		assert.Less(t, grown, int64(192<<20), "the host's peak RSS grew by %d MiB", grown>>20)
	}
}

func TestMemoryWithinLimit(t *testing.T) {
	res, err := execute(t, shared, toolruntime.Limits{}, toolcode.Limits{WallTime: time.Minute},
		`const a = []; for (let i = 0; i < 16; i++) { a.push(("x" + i).repeat(1 << 19)); } return a.length;`)
	require.NoError(t, err)
	assert.JSONEq(t, `16`, string(res.Value))
}

func TestMemoryCapBelowModule(t *testing.T) {
	_, err := execute(t, shared, toolruntime.Limits{Memory: 4 << 20}, toolcode.Limits{}, `return 1`)
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "memory cap of 64 pages")
}

func TestSpinStoppedAtDeadline(t *testing.T) {
	const wall = 300 * time.Millisecond
	for _, spares := range []int{0, 1} {
		t.Run("spares="+strconv.Itoa(spares), func(t *testing.T) {
			b := shared
			if spares == 0 {
				b = newBackend(t, wasm.WithSpares(0))
			}
			start := time.Now()
			_, err := execute(t, b, toolruntime.Limits{}, toolcode.Limits{WallTime: wall}, `while (true) {}`)
			late := time.Since(start) - wall
			require.Error(t, err)
			assert.Equal(t, errors.Timeout, errors.CodeOf(err), "%v", err)
			assert.Equal(t, toolcode.LimitWallTime, toolcode.LimitOf(err))
			if spares > 0 {
				// A cold instance may start after the deadline; a spare
				// has started already, and the loop stops at once.
				assert.Less(t, late, 100*time.Millisecond, "stopped %v after the deadline", late)
			}
		})
	}
}

func TestCPUTimeLimit(t *testing.T) {
	res, err := execute(t, shared, toolruntime.Limits{CPUTime: 500 * time.Millisecond}, toolcode.Limits{WallTime: time.Minute}, `for (;;) {}`)
	require.Error(t, err)
	assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err), "%v", err)
	assert.Equal(t, toolruntime.LimitCPUTime, toolcode.LimitOf(err))
	row, ok := toolruntime.LimitsEnforced(res.Isolation.Enforced).Get(toolruntime.LimitCPUTime)
	require.True(t, ok)
	assert.Equal(t, "500ms", row.Value)
}

func TestEnforces(t *testing.T) {
	got := shared.Enforces(toolruntime.Limits{CPUTime: time.Second, Memory: 100<<20 + 5, Processes: 8, FileSize: 1 << 20})
	want := map[string]string{
		toolcode.LimitWallTime:         "",
		toolruntime.LimitCPUTime:       "1s",
		toolruntime.LimitMemory:        "104857600 bytes (1600 pages)",
		toolruntime.LimitProcesses:     "1",
		toolruntime.LimitFileSize:      "0",
		toolruntime.IsolateEnvironment: "",
		toolruntime.IsolateFiles:       "",
		toolruntime.IsolateNetwork:     "",
	}
	require.Len(t, got, len(want))
	for _, row := range got {
		v, ok := want[row.Name]
		require.True(t, ok, row.Name)
		assert.Equal(t, v, row.Value, row.Name)
		assert.Equal(t, wasm.Mechanism, row.By, row.Name)
	}
	// The gateway's rows are the runtime's to add.
	assert.Equal(t, []string{toolcode.LimitToolCalls, toolcode.LimitChainSteps, toolcode.LimitOutputBytes},
		got.Missing(toolruntime.Hardened.Requires()))
}

func TestIsolation(t *testing.T) {
	// The runner's engines have no I/O; what the module could reach is
	// WASI, given no directory, no environment and no argument but its
	// name.
	res, err := execute(t, shared, toolruntime.Limits{}, toolcode.Limits{},
		`return [typeof require, typeof process, typeof fetch, typeof XMLHttpRequest];`)
	require.NoError(t, err)
	assert.JSONEq(t, `["undefined","undefined","undefined","undefined"]`, string(res.Value))
	assert.Equal(t, "wasm", res.Isolation.Backend)
	assert.Equal(t, "hardened", res.Isolation.Profile)
	assert.Positive(t, res.Isolation.Startup, "instantiating the module takes time")
}

func TestNewRefusesBadModules(t *testing.T) {
	tests := []struct {
		name, want string
		module     []byte
	}{
		{"empty", "empty module", nil},
		{"garbage", "compile the module", []byte("not wasm at all")},
		// (module (import "env" "f" (func)))
		{"foreign import", "imports env.f", []byte{
			0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
			0x01, 0x04, 0x01, 0x60, 0x00, 0x00,
			0x02, 0x09, 0x01, 0x03, 'e', 'n', 'v', 0x01, 'f', 0x00, 0x00,
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := wasm.New(tt.module)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestOptions(t *testing.T) {
	for name, opt := range map[string]wasm.Option{
		"cache dir":    wasm.WithCacheDir(""),
		"stderr bytes": wasm.WithStderrBytes(0),
		"spares":       wasm.WithSpares(-1),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := wasm.New([]byte{0}, opt)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
	_, err := wasm.NewFromFile("/nonexistent/runner.wasm")
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}

func TestClosed(t *testing.T) {
	b := newBackend(t)
	require.NoError(t, b.Close(context.Background()))
	require.NoError(t, b.Close(context.Background()), "Close is idempotent")
	_, err := b.Run(context.Background(), toolruntime.Request{Language: "javascript", Code: "return 1", Limits: toolruntime.DefaultLimits})
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
}
