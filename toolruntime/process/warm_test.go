package process_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest/probe"
)

// warmLimits are the sandbox limits of the pool tests.
var warmLimits = toolruntime.Limits{CPUTime: 10 * time.Second, Memory: 256 << 20, Processes: 32, FileSize: 1 << 20}

// warmExecutor returns an executor of language on b under limits.
func warmExecutor(t *testing.T, b *process.Backend, limits toolruntime.Limits, language string) *toolcode.Executor {
	t.Helper()
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b), toolruntime.WithLimits(limits))
	require.NoError(t, err)
	engine, err := rt.Engine(toolruntime.Standard, language)
	require.NoError(t, err)
	return toolcode.New(toolcodetest.NewFixture(t).Ops, toolcode.WithEngine(engine))
}

// runProbe runs a probe program and returns its outcomes, one per line.
func runProbe(t *testing.T, x *toolcode.Executor, code string) []probe.Outcome {
	t.Helper()
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: probe.Language, Code: code, Limits: toolcode.Limits{WallTime: 30 * time.Second}})
	require.NoError(t, err)
	var out []probe.Outcome
	require.NoError(t, json.Unmarshal(res.Value, &out), "%s", res.Value)
	return out
}

// childrenOfTest returns the live processes whose parent is the test's
// process: the processes a backend started (bubblewrap, or the runner).
func childrenOfTest(t *testing.T) map[int]bool {
	t.Helper()
	out := map[int]bool{}
	for _, p := range allProcs(t) {
		if p.ppid == os.Getpid() && p.state != "Z" {
			out[p.pid] = true
		}
	}
	return out
}

// TestWarmNoLeakBetweenExecutions runs, on processes started ahead, a
// program that leaves a file in its directory, an environment variable
// in its process and a global in its JavaScript runtime, then programs
// that look for them: none finds anything, since every execution gets a
// process of its own, started for it.
func TestWarmNoLeakBetweenExecutions(t *testing.T) {
	runner := toolruntimetest.BuildRunner(t, "", "")
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			b := newBackendOf(t, runner, append(mode.opts, process.WithSpares(2))...)
			probes := warmExecutor(t, b, warmLimits, probe.Language)
			js := warmExecutor(t, b, warmLimits, "javascript")
			ctx := t.Context()

			require.NoError(t, b.Warm(ctx, warmLimits))
			planted := runProbe(t, probes, "pid\nwrite planted.txt secret\nsetenv TOOLRUNTIME_PLANTED secret\nread planted.txt\nenv TOOLRUNTIME_PLANTED")
			for _, o := range planted {
				require.True(t, o.OK, "%s: %s", o.Op, o.Error)
			}
			require.Equal(t, "secret", planted[3].Value, "the first execution reads its own file")
			require.Equal(t, "secret", planted[4].Value, "and its own variable")

			require.NoError(t, b.Warm(ctx, warmLimits))
			res, err := js.Execute(ctx, toolcode.ExecuteParams{Code: `globalThis.planted = "secret"; Object.prototype.planted = "secret"; return 1`})
			require.NoError(t, err)
			assert.JSONEq(t, `1`, string(res.Value))

			for i := range 3 {
				require.NoError(t, b.Warm(ctx, warmLimits))
				looked := runProbe(t, probes, "pid\nread planted.txt\nenv TOOLRUNTIME_PLANTED\nread /tmp/planted.txt")
				assert.False(t, looked[1].OK, "execution %d found the file of another: %v", i, looked[1].Value)
				assert.False(t, looked[2].OK, "execution %d found the variable of another: %v", i, looked[2].Value)
				assert.False(t, looked[3].OK, "execution %d found the file of another in /tmp: %v", i, looked[3].Value)

				require.NoError(t, b.Warm(ctx, warmLimits))
				res, err := js.Execute(ctx, toolcode.ExecuteParams{Code: `return [typeof globalThis.planted, typeof ({}).planted]`})
				require.NoError(t, err)
				assert.JSONEq(t, `["undefined","undefined"]`, string(res.Value), "execution %d found the globals of another", i)
			}
		})
	}
}

// TestWarmKeyedByLimits shows that a process started ahead runs only
// programs under the limits it was started with: its rlimits are those of
// the execution that takes it.
func TestWarmKeyedByLimits(t *testing.T) {
	runner := toolruntimetest.BuildRunner(t, "", "")
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			b := newBackendOf(t, runner, mode.opts...)
			other := warmLimits
			other.FileSize = 3 << 20
			for _, l := range []toolruntime.Limits{warmLimits, other, warmLimits} {
				require.NoError(t, b.Warm(t.Context(), warmLimits))
				require.NoError(t, b.Warm(t.Context(), other))
				out := runProbe(t, warmExecutor(t, b, l, probe.Language), "pid\nread /proc/self/limits")
				require.True(t, out[1].OK, out[1].Error)
				want := fmt.Sprintf("Max file size %d %d bytes", l.FileSize, l.FileSize)
				assert.Contains(t, strings.Join(strings.Fields(out[1].Value.(string)), " "), want)
			}
		})
	}
}

// TestWarmProcessThatDiedIsNotUsed kills the process waiting in the pool:
// the next execution does not get it, and runs.
func TestWarmProcessThatDiedIsNotUsed(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			before := childrenOfTest(t)
			b := newBackend(t, mode.opts...)
			x, _ := executor(t, b, toolruntime.Standard, "javascript")
			require.NoError(t, b.Warm(t.Context(), toolruntime.DefaultLimits))
			killed := 0
			for pid := range childrenOfTest(t) {
				if !before[pid] {
					p, ok := readProc(pid)
					require.True(t, ok)
					require.NoError(t, syscall.Kill(pid, syscall.SIGKILL))
					// The kill is asynchronous: the pool sees the process
					// as dead once it has ended.
					require.True(t, endsWithin(p, 5*time.Second))
					killed++
				}
			}
			require.Equal(t, process.DefaultSpares, killed, "the pool's processes")
			res, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: `return 7`})
			require.NoError(t, err)
			assert.JSONEq(t, `7`, string(res.Value))
		})
	}
}

// TestWarmClose shows that Close stops the pool: no process and no
// goroutine of the backend is left, and it runs nothing afterwards.
func TestWarmClose(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			goroutines := goleak.IgnoreCurrent()
			before := childrenOfTest(t)
			b, err := process.New(runnerPath, append(mode.opts, process.WithSpares(2))...)
			require.NoError(t, err)
			x, _ := executor(t, b, toolruntime.Standard, "javascript")
			_, err = x.Execute(t.Context(), toolcode.ExecuteParams{Code: `return 1`})
			require.NoError(t, err)
			// Close while the pool fills, and again once it is closed.
			require.NoError(t, b.Close(t.Context()))
			require.NoError(t, b.Close(t.Context()))
			for pid := range childrenOfTest(t) {
				assert.True(t, before[pid], "process %d left after Close", pid)
			}
			goleak.VerifyNone(t, goroutines)

			_, err = x.Execute(t.Context(), toolcode.ExecuteParams{Code: `return 1`})
			require.Error(t, err)
			assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "%v", err)
			err = b.Warm(t.Context(), toolruntime.DefaultLimits)
			assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "%v", err)
		})
	}
}

// TestWarmOff starts every process when its execution comes: none is
// left waiting.
func TestWarmOff(t *testing.T) {
	before := childrenOfTest(t)
	b := newBackend(t, process.WithSpares(0), process.WithoutBubblewrap())
	x, _ := executor(t, b, toolruntime.Standard, "javascript")
	_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: `return 1`})
	require.NoError(t, err)
	require.NoError(t, b.Warm(t.Context(), toolruntime.DefaultLimits))
	for pid := range childrenOfTest(t) {
		assert.True(t, before[pid], "process %d waits with no pool", pid)
	}
	_, err = process.New(runnerPath, process.WithSpares(-1))
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}

// TestWarmTakesTheProcessBeingStarted shows that an execution coming while
// the pool is starting a process takes that one, rather than starting a
// second beside it: the runner is a script that records the pid of each
// process started, in order, and the start hook the pid of each
// execution.
func TestWarmTakesTheProcessBeingStarted(t *testing.T) {
	// The runner runs as the sandbox's user when the test runs as root:
	// it must reach the script and write its record.
	dir := t.TempDir()
	require.NoError(t, os.Chmod(filepath.Dir(dir), 0o755))
	require.NoError(t, os.Chmod(dir, 0o777))
	starts := filepath.Join(dir, "starts")
	require.NoError(t, os.WriteFile(starts, nil, 0o666))
	require.NoError(t, os.Chmod(starts, 0o666))
	script := filepath.Join(dir, "runner.sh")
	require.NoError(t, os.WriteFile(script, []byte(fmt.Sprintf("#!/bin/sh\necho $$ >> %s\nexec %s \"$@\"\n", starts, runnerPath)), 0o755))

	var taken []int
	b := newBackendOf(t, script, process.WithoutBubblewrap(), process.WithSpares(1), process.WithStartHook(func(pid int) { taken = append(taken, pid) }))
	x := warmExecutor(t, b, warmLimits, "javascript")
	for range 2 {
		// The first starts its process and leaves the pool filling; the
		// second comes while it fills.
		_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: `return 1`})
		require.NoError(t, err)
	}
	require.NoError(t, b.Warm(t.Context(), warmLimits))

	data, err := os.ReadFile(starts)
	require.NoError(t, err)
	var started []int
	for _, line := range strings.Fields(string(data)) {
		pid, err := strconv.Atoi(line)
		require.NoError(t, err)
		started = append(started, pid)
	}
	// New ran the runner once, to check that it starts.
	require.NotEmpty(t, started)
	started = started[1:]
	require.Len(t, taken, 2)
	require.Len(t, started, 3, "the first execution's process, the one the pool started for the second, and its replacement")
	assert.Equal(t, started[:2], taken, "the second execution ran in the process the pool was starting")
}
