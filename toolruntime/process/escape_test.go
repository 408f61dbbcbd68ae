package process_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
)

// proc is what the tests read of a process in /proc.
type proc struct {
	pid, ppid, pgid int
	state           string
	comm            string
}

// readProc reads /proc/<pid>/stat; ok is false when the process is gone.
func readProc(pid int) (proc, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return proc{}, false
	}
	s := string(b)
	open, closing := strings.IndexByte(s, '('), strings.LastIndexByte(s, ')')
	if open < 0 || closing < open {
		return proc{}, false
	}
	f := strings.Fields(s[closing+1:])
	if len(f) < 3 {
		return proc{}, false
	}
	p := proc{pid: pid, state: f[0], comm: s[open+1 : closing]}
	p.ppid, _ = strconv.Atoi(f[1])
	p.pgid, _ = strconv.Atoi(f[2])
	return p, true
}

// allProcs lists the processes of the machine.
func allProcs(t *testing.T) []proc {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	require.NoError(t, err)
	var out []proc
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			if p, ok := readProc(pid); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

// tree returns top and its descendants.
func tree(t *testing.T, top int) []proc {
	t.Helper()
	procs := allProcs(t)
	in := map[int]bool{top: true}
	var out []proc
	for changed := true; changed; {
		changed = false
		for _, p := range procs {
			if !in[p.pid] && in[p.ppid] {
				in[p.pid], changed = true, true
			}
		}
	}
	for _, p := range procs {
		if in[p.pid] {
			out = append(out, p)
		}
	}
	return out
}

// alive reports whether p still runs (a zombie has ended).
func alive(p proc) bool {
	now, ok := readProc(p.pid)
	return ok && now.comm == p.comm && now.state != "Z" && now.state != "X"
}

// endsWithin reports whether p has ended, or ends within d: the backend
// kills on every path, but the executor may return before the backend's
// Run has finished killing (it stops waiting for an engine shortly after
// the deadline). It waits on a pidfd, which becomes readable when the
// process exits.
func endsWithin(p proc, d time.Duration) bool {
	if !alive(p) {
		return true
	}
	fd, err := unix.PidfdOpen(p.pid, 0)
	if err != nil {
		return !alive(p)
	}
	defer unix.Close(fd)
	fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
	for {
		n, err := unix.Poll(fds, int(d.Milliseconds()))
		if err == unix.EINTR {
			continue
		}
		return (err == nil && n > 0) || !alive(p)
	}
}

// blocked runs code, which must call util:gate, on a fresh backend, and
// calls during with the processes of the execution while the program
// waits in that call (the host's pre-call hook runs while the guest waits
// for the answer). It returns the processes seen and the execution's
// error.
func blocked(t *testing.T, opts []process.Option, code string, limits toolcode.Limits, during func(ctx context.Context, f *toolcodetest.Fixture, procs []proc)) ([]proc, error) {
	t.Helper()
	var (
		mu  sync.Mutex
		top int
	)
	b := newBackend(t, append(opts, process.WithStartHook(func(pid int) {
		mu.Lock()
		top = pid
		mu.Unlock()
	}))...)
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
	require.NoError(t, err)
	e, err := rt.Engine(toolruntime.Standard, "javascript")
	require.NoError(t, err)
	var seen []proc
	var f *toolcodetest.Fixture
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f = toolcodetest.NewFixture(t, toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, call *toolrun.Call) error {
		if call.ToolID() != "util:gate" {
			return nil
		}
		mu.Lock()
		pid := top
		mu.Unlock()
		seen = tree(t, pid)
		during(ctx, f, seen)
		return nil
	})))
	x := toolcode.New(f.Ops, toolcode.WithEngine(e))
	_, err = x.Execute(ctx, toolcode.ExecuteParams{Code: code, Language: "javascript", Limits: limits})
	require.NotEmpty(t, seen, "the program reached the gate")
	return seen, err
}

// runnerOf returns the runner's process among procs.
func runnerOf(t *testing.T, procs []proc) proc {
	t.Helper()
	for _, p := range procs {
		if strings.HasPrefix(p.comm, "toolruntime-run") {
			return p
		}
	}
	require.Failf(t, "no runner", "processes: %v", procs)
	return proc{}
}

func TestEscapeEnvironment(t *testing.T) {
	const secret = "s3cr3t-planted-in-the-host"
	t.Setenv("TOOLRUNTIME_PLANTED_SECRET", secret)
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			procs, err := blocked(t, mode.opts, `await tools.util.gate({}); return 1`, toolcode.Limits{},
				func(_ context.Context, f *toolcodetest.Fixture, procs []proc) {
					for _, p := range procs {
						env, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/environ")
						if err != nil {
							t.Errorf("read the environment of %s (%d): %v", p.comm, p.pid, err)
							continue
						}
						assert.NotContains(t, string(env), secret, "environment of %s (%d)", p.comm, p.pid)
						for _, kv := range strings.Split(strings.TrimRight(string(env), "\x00"), "\x00") {
							if kv == "" {
								continue
							}
							// bubblewrap sets PWD to the sandbox's /tmp.
							if kv == "PWD=/tmp" {
								continue
							}
							name, _, _ := strings.Cut(kv, "=")
							assert.Contains(t, []string{"GOTRACEBACK", "GOMEMLIMIT"}, name, "a variable of %s (%d) the backend did not set", p.comm, p.pid)
						}
					}
					f.Gate.Release()
				})
			require.NoError(t, err)
			runnerOf(t, procs)
		})
	}
}

// TestEscapeNothingLeftRunning ends an execution in every way while its
// program waits in a tool call, and checks that no process of it is left:
// none of the processes seen, none in its process group.
func TestEscapeNothingLeftRunning(t *testing.T) {
	cases := []struct {
		name   string
		wall   time.Duration
		during func(ctx context.Context, f *toolcodetest.Fixture, runner proc, cancel func())
		check  func(t *testing.T, err error, elapsed time.Duration)
	}{
		{
			name:   "success",
			during: func(_ context.Context, f *toolcodetest.Fixture, _ proc, _ func()) { f.Gate.Release() },
			check:  func(t *testing.T, err error, _ time.Duration) { assert.NoError(t, err) },
		},
		{
			name: "timeout",
			wall: 500 * time.Millisecond,
			check: func(t *testing.T, err error, elapsed time.Duration) {
				require.Error(t, err)
				assert.Equal(t, errors.Timeout, errors.CodeOf(err))
				assert.Equal(t, toolcode.LimitWallTime, toolcode.LimitOf(err))
				assert.Less(t, elapsed-500*time.Millisecond, 100*time.Millisecond, "stopped %v after the deadline", elapsed-500*time.Millisecond)
			},
		},
		{
			name:   "cancel",
			during: func(_ context.Context, _ *toolcodetest.Fixture, _ proc, cancel func()) { cancel() },
			check: func(t *testing.T, err error, _ time.Duration) {
				require.Error(t, err)
				assert.Equal(t, errors.Canceled, errors.CodeOf(err))
			},
		},
		{
			name: "kill",
			during: func(_ context.Context, _ *toolcodetest.Fixture, runner proc, _ func()) {
				assert.NoError(t, syscall.Kill(runner.pid, syscall.SIGKILL))
			},
			check: func(t *testing.T, err error, _ time.Duration) {
				require.Error(t, err)
				assert.Equal(t, errors.Internal, errors.CodeOf(err))
				assert.Contains(t, err.Error(), "ended without answering")
			},
		},
	}
	for _, mode := range modes {
		for _, c := range cases {
			t.Run(mode.name+"/"+c.name, func(t *testing.T) {
				ctx, cancel := context.WithCancel(context.Background())
				defer cancel()
				var top int
				var seen []proc
				var dir string
				b := newBackend(t, append(mode.opts, process.WithStartHook(func(pid int) { top = pid }))...)
				rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
				require.NoError(t, err)
				e, err := rt.Engine(toolruntime.Standard, "javascript")
				require.NoError(t, err)
				var f *toolcodetest.Fixture
				f = toolcodetest.NewFixture(t, toolrun.WithPreCall(toolrun.PreCallFunc(func(context.Context, *toolrun.Call) error {
					seen = tree(t, top)
					dir = cwdOf(seen)
					if c.during != nil {
						c.during(ctx, f, runnerOf(t, seen), cancel)
					}
					return nil
				})))
				x := toolcode.New(f.Ops, toolcode.WithEngine(e))
				start := time.Now()
				_, err = x.Execute(ctx, toolcode.ExecuteParams{Code: `await tools.util.gate({}); return 1`, Language: "javascript", Limits: toolcode.Limits{WallTime: c.wall}})
				elapsed := time.Since(start)
				c.check(t, err, elapsed)
				require.NotEmpty(t, seen, "the program reached the gate")
				for _, p := range seen {
					assert.True(t, endsWithin(p, 5*time.Second), "process %s (%d) still runs", p.comm, p.pid)
				}
				for _, p := range allProcs(t) {
					if p.pgid == top && p.state != "Z" {
						assert.Failf(t, "left in the process group", "%s (%d)", p.comm, p.pid)
					}
				}
				if mode.name == "plain" {
					// The directory is removed in the background, which
					// Close waits for.
					closeCtx, cancelClose := context.WithTimeout(context.Background(), 10*time.Second)
					defer cancelClose()
					require.NoError(t, b.Close(closeCtx))
					require.True(t, strings.HasPrefix(dir, filepath.Join(os.TempDir(), "toolruntime-")), "the runner works in a private directory, not %q", dir)
					assert.NoDirExists(t, dir, "the private directory was removed")
				}
			})
		}
	}
}

// cwdOf returns the runner's working directory, as the host sees it
// (under bubblewrap, the path inside the sandbox).
func cwdOf(procs []proc) string {
	for _, p := range procs {
		if strings.HasPrefix(p.comm, "toolruntime-run") {
			if dir, err := os.Readlink("/proc/" + strconv.Itoa(p.pid) + "/cwd"); err == nil {
				return dir
			}
		}
	}
	return ""
}
