package process

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

// MinAddressSpace is the smallest RLIMIT_AS the runner gets: a Go process
// reserves far more address space than it uses (the runner, measured on
// linux/amd64, runs out of address space at 1.5 GiB with 260 MB in use). Without a memory cgroup the memory limit is enforced by
// RLIMIT_AS at max(Limits.Memory, MinAddressSpace), and reported so.
const MinAddressSpace = 2 << 30

// exitGrace is how long a runner that broke off the protocol gets to end
// by itself, so that the host learns why (its exit status, a cgroup's
// OOM kill) rather than killing it first.
const exitGrace = 2 * time.Second

// sandboxRunner is the runner's path inside bubblewrap.
const sandboxRunner = "/toolruntime-runner"

// groupSeq numbers the cgroups of the process's executions, across
// backends: a group is removed in the background once its execution
// ends, so a number must not come back while the process lives.
var groupSeq atomic.Uint64

// Backend runs each program in a fresh process of the runner; see the
// package documentation. It is safe for concurrent use.
type Backend struct {
	runner    string
	bwrap     string // "" when programs run without bubblewrap
	cgroups   *cgroups
	cgroupErr error
	root      bool
	// user is who the runner runs as; nil when this process is not root
	// (the runner then runs as this process's user).
	user       *credential
	openFiles  int
	stderrTail int
	onStart    func(pid int)

	// The processes started ahead: see pool.go.
	warm     int
	warmCtx  context.Context // ends with Close: stops the starts under way
	stopWarm context.CancelFunc
	filling  sync.WaitGroup // the goroutines that start processes ahead
	mu       sync.Mutex     // guards the fields below
	pools    map[toolruntime.Limits]*pool
	used     uint64 // counts the takes, to find the pool used least recently
	closed   bool
}

var (
	_ toolruntime.Backend = (*Backend)(nil)
	_ toolruntime.Warmer  = (*Backend)(nil)
	_ toolruntime.Closer  = (*Backend)(nil)
)

// New returns a backend that runs programs in processes of the runner at
// runnerPath (the command toolruntime-runner, or a runner of one's own
// built on the package runner; a static binary, built with CGO_ENABLED=0,
// when bubblewrap is used). It looks for bubblewrap in PATH and probes the
// cgroups once; [Backend.Enforces] then says what holds.
func New(runnerPath string, opts ...Option) (*Backend, error) {
	c := config{openFiles: 256, stderrTail: 4 << 10, warm: DefaultSpares}
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, errors.WithOp("process.New", err)
		}
	}
	abs, err := filepath.Abs(runnerPath)
	if err != nil {
		return nil, errors.Opf("process.New", errors.InvalidArgument, "runner %q: %v", runnerPath, err)
	}
	if err := unix.Access(abs, unix.X_OK); err != nil {
		return nil, errors.Opf("process.New", errors.InvalidArgument, "runner %q is not an executable: %v", abs, err)
	}
	b := &Backend{
		runner: abs, root: os.Geteuid() == 0, openFiles: c.openFiles, stderrTail: c.stderrTail, onStart: c.onStart,
		warm: c.warm, pools: map[toolruntime.Limits]*pool{},
	}
	b.warmCtx, b.stopWarm = context.WithCancel(context.Background())
	if b.root {
		b.user = &credential{uid: DefaultUser, gid: DefaultGroup}
		if c.user != nil {
			b.user = c.user
		}
	}
	if c.bwrapMode != bwrapOff {
		path, err := findBwrap(c.bwrap)
		if err == nil {
			err = b.checkRun(path, "--unshare-all", "--die-with-parent", "--clearenv", "--new-session",
				"--ro-bind", abs, sandboxRunner, "--proc", "/proc", "--dev", "/dev", "--", sandboxRunner)
		}
		switch {
		case err == nil:
			b.bwrap = path
		case c.bwrapMode == bwrapRequired:
			return nil, errors.Opf("process.New", errors.Unsupported, "bubblewrap is required: %v", err)
		}
	}
	if b.bwrap == "" && b.user != nil {
		// The runner must start as the sandbox's user: one it cannot
		// reach (a directory only root may enter) fails here.
		if err := b.checkRun(abs); err != nil {
			return nil, errors.Opf("process.New", errors.InvalidArgument, "runner %q as uid %d: %v", abs, b.user.uid, err)
		}
	}
	if c.noCgroup {
		b.cgroupErr = errors.New("cgroups turned off (WithoutCgroup)")
	} else {
		b.cgroups, b.cgroupErr = detectCgroups(c.cgroupParent)
	}
	return b, nil
}

// findBwrap returns the path of bubblewrap: path when given, else the
// bwrap of PATH.
func findBwrap(path string) (string, error) {
	if path == "" {
		return exec.LookPath("bwrap")
	}
	if err := unix.Access(path, unix.X_OK); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return path, nil
}

// checkRun runs a command once (the runner, or bubblewrap with the
// namespaces of a sandbox and the runner in it) as the sandbox's user,
// its stdin empty: a kernel or a container that forbids the namespaces, a
// runner that cannot start alone in the sandbox (a binary linked
// dynamically) or that the sandbox's user cannot reach makes it fail here
// rather than in an execution.
func (b *Backend) checkRun(path string, args ...string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	cmd.Env = []string{}
	cmd.SysProcAttr = b.sysProcAttr()
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return fmt.Errorf("%s did not answer: %w", path, ctx.Err())
	}
	if cmd.Process == nil {
		// It did not start at all: most often, the sandbox's user cannot
		// reach it.
		if b.user != nil {
			return fmt.Errorf("%w (it runs as uid %d, which must be able to enter every folder above it and run it)", err, b.user.uid)
		}
		return err
	}
	// With nothing on its stdin the runner says so and exits: a line it
	// prints shows that it ran (bubblewrap's errors may name its path).
	for _, line := range strings.Split(string(out), "\n") {
		if strings.HasPrefix(line, "toolruntime-runner: ") {
			return nil
		}
	}
	return fmt.Errorf("%s cannot run the runner in a sandbox: %s", path, strings.TrimSpace(string(out)))
}

// sysProcAttr is how the runner's process starts: in a process group of
// its own, killed with this process, as the sandbox's user when this
// process is root (with no supplementary group).
func (b *Backend) sysProcAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if b.user != nil {
		attr.Credential = &syscall.Credential{Uid: b.user.uid, Gid: b.user.gid, Groups: []uint32{}}
	}
	return attr
}

// User returns the user and group IDs the runner runs as, and false when
// it runs as this process's user (this process is not root).
func (b *Backend) User() (uid, gid uint32, ok bool) {
	if b.user == nil {
		return 0, 0, false
	}
	return b.user.uid, b.user.gid, true
}

// Name returns "process".
func (b *Backend) Name() string { return "process" }

// Bubblewrap returns the path of the bubblewrap the backend uses, or "".
func (b *Backend) Bubblewrap() string { return b.bwrap }

// Enforces reports what holds on this machine under l: see the package
// documentation.
func (b *Backend) Enforces(l toolruntime.Limits) toolruntime.LimitsEnforced {
	return b.enforces(l, nil)
}

func (b *Backend) enforces(l toolruntime.Limits, wallTime any) toolruntime.LimitsEnforced {
	rl := b.rlimits(l)
	out := toolruntime.LimitsEnforced{
		toolruntime.Enforce(toolcode.LimitWallTime, wallTime, "kill at deadline"),
		toolruntime.Enforce(toolruntime.LimitCPUTime, rl.CPUTime, "rlimit"),
	}
	if h, ok := b.memoryCgroup(); ok {
		out = append(out, toolruntime.Enforce(toolruntime.LimitMemory, l.Memory, h.version()+" memory"))
	} else {
		out = append(out, toolruntime.Enforce(toolruntime.LimitMemory, rl.AddressSpace, "rlimit address space"))
	}
	switch h, ok := b.pidsCgroup(); {
	case ok:
		out = append(out, toolruntime.Enforce(toolruntime.LimitProcesses, l.Processes, h.version()+" pids"))
	case !b.root:
		out = append(out, toolruntime.Enforce(toolruntime.LimitProcesses, l.Processes, "rlimit"))
	default:
		// RLIMIT_NPROC does not bind root.
		out = append(out, toolruntime.NotEnforced(toolruntime.LimitProcesses))
	}
	out = append(out, toolruntime.Enforce(toolruntime.LimitFileSize, l.FileSize, "rlimit"),
		toolruntime.Enforce(toolruntime.IsolateEnvironment, nil, "clean environment"))
	if b.bwrap != "" {
		out = append(out,
			toolruntime.Enforce(toolruntime.IsolateFiles, nil, "bubblewrap"),
			toolruntime.Enforce(toolruntime.IsolateNetwork, nil, "bubblewrap"))
	} else {
		out = append(out, toolruntime.NotEnforced(toolruntime.IsolateFiles), toolruntime.NotEnforced(toolruntime.IsolateNetwork))
	}
	return out
}

func (b *Backend) memoryCgroup() (hierarchy, bool) {
	if b.cgroups == nil {
		return hierarchy{}, false
	}
	return b.cgroups.memory()
}

func (b *Backend) pidsCgroup() (hierarchy, bool) {
	if b.cgroups == nil {
		return hierarchy{}, false
	}
	return b.cgroups.pids()
}

// rlimits returns the runner's rlimits under l.
func (b *Backend) rlimits(l toolruntime.Limits) runner.Limits {
	rl := runner.Limits{
		CPUTime:   (l.CPUTime + time.Second - 1).Truncate(time.Second),
		FileSize:  l.FileSize,
		OpenFiles: b.openFiles,
	}
	if _, ok := b.memoryCgroup(); !ok {
		rl.AddressSpace = max(l.Memory, MinAddressSpace)
	}
	if !b.root {
		rl.Processes = l.Processes
	}
	return rl
}

// environment is the runner's whole environment: nothing of the host's.
func environment(l toolruntime.Limits) []string {
	env := []string{"GOTRACEBACK=single"}
	if l.Memory > 0 {
		// The collector works harder near the cap instead of letting the
		// heap grow into the kill.
		env = append(env, "GOMEMLIMIT="+strconv.FormatInt(l.Memory/8*7, 10))
	}
	return env
}

// Run runs one program in a fresh process of the runner, one started ahead
// for its limits when there is one ([WithSpares]); see
// [toolruntime.Backend]. Whatever the outcome, every process of the
// execution is killed when Run returns; they are reaped, and the cgroup
// and the directory removed, in the background ([Backend.Close] waits for
// that). After Close, Run fails with code [errors.Unavailable].
func (b *Backend) Run(ctx context.Context, req toolruntime.Request) (toolruntime.Result, error) {
	res := toolruntime.Result{Enforced: b.enforces(req.Limits, req.Program.WallTime)}
	if err := errors.FromContext(ctx, "process.Run", context.Cause(ctx)); err != nil {
		return res, err
	}
	if err := req.Limits.Validate(); err != nil {
		return res, errors.WithOp("process.Run", err)
	}
	started := time.Now()
	e, err := b.take(ctx, req.Limits)
	// The pool is refilled once the execution is over, not while it runs:
	// on a machine with few cores, a sandbox starting beside the program
	// would slow it down.
	defer b.refill(req.Limits)
	if err != nil {
		return res, errors.WithOp("process.Run", err)
	}
	defer b.finish(e)
	res.Startup = time.Since(started)
	e.watching = true
	go e.watch()
	if b.onStart != nil {
		b.onStart(e.cmd.Process.Pid)
	}
	value, err := gateway.Host(ctx, e.stdout, e.stdin, gateway.Execution{Language: req.Language, Code: req.Code, Limits: req.Program}, req.Tools, 0)
	switch {
	case err == nil:
		res.Value = value
		return res, nil
	case ctx.Err() != nil:
		return res, err
	case !vanished(err):
		// The program's own error, or a guest breaking the protocol.
		return res, err
	}
	// The runner ended without answering: let it finish ending, and find
	// out why.
	grace := time.NewTimer(exitGrace)
	defer grace.Stop()
	ownEnd := false
	select {
	case <-e.exited:
		ownEnd = true
	case <-grace.C:
	case <-ctx.Done():
		return res, errors.FromContext(ctx, "process.Run", context.Cause(ctx))
	}
	e.stop()
	return res, e.classify(err, ownEnd, req.Limits)
}

// vanished reports whether err is the host's "the guest ended without
// answering", as opposed to an error the guest sent.
func vanished(err error) bool {
	var e *errors.Error
	return errors.As(err, &e) && e.Code == errors.Unavailable && e.Op == "gateway.Host"
}

// execution is one runner process and what belongs to it.
type execution struct {
	backend *Backend
	cmd     *exec.Cmd
	stdin   *os.File
	stdout  *os.File
	dir     string
	group   *group
	tail    *runner.Stderr
	exited  chan struct{}
	// watching says that watch runs: it starts when an execution takes
	// the process, so that a process waiting in a pool holds no goroutine.
	watching bool
	killOnce sync.Once
	once     sync.Once
	err      error // of cmd.Wait

	// What the cgroup counted, read by stop before it removes it.
	oomKilled, pidsRefused bool
}

// start starts the runner: in its own process group, with a clean
// environment, in a private directory, under its rlimits, in its cgroups
// (before it reads anything of the program), under bubblewrap when there
// is one; it returns once the runner has said that it is ready for its
// execution.
func (b *Backend) start(ctx context.Context, l toolruntime.Limits) (_ *execution, err error) {
	e := &execution{backend: b, tail: runner.NewStderr(b.stderrTail), exited: make(chan struct{})}
	var closeLater []*os.File
	defer func() {
		for _, f := range closeLater {
			_ = f.Close()
		}
		if err != nil {
			e.stop()
		}
	}()
	if e.dir, err = os.MkdirTemp("", "toolruntime-"); err != nil {
		return e, errors.Errorf(errors.Internal, "private directory: %v", err)
	}
	if b.user != nil {
		// The program's /tmp (or working directory) is its user's.
		if err := os.Chown(e.dir, int(b.user.uid), int(b.user.gid)); err != nil {
			return e, errors.Errorf(errors.Internal, "private directory: %v", err)
		}
	}
	if b.cgroups != nil {
		name := fmt.Sprintf("toolruntime-%d-%d", os.Getpid(), groupSeq.Add(1))
		if e.group, err = b.cgroups.newGroup(name, l.Memory, l.Processes); err != nil {
			return e, err
		}
	}
	childIn, stdin, err := os.Pipe()
	if err != nil {
		return e, errors.E(errors.Internal, err)
	}
	e.stdin = stdin
	closeLater = append(closeLater, childIn)
	stdout, childOut, err := os.Pipe()
	if err != nil {
		return e, errors.E(errors.Internal, err)
	}
	e.stdout = stdout
	closeLater = append(closeLater, childOut)

	args := b.rlimits(l).Args()
	env := environment(l)
	var cmd *exec.Cmd
	var info, block *os.File
	if b.bwrap != "" {
		infoR, infoW, err := os.Pipe()
		if err != nil {
			return e, errors.E(errors.Internal, err)
		}
		blockR, blockW, err := os.Pipe()
		if err != nil {
			_ = infoR.Close()
			_ = infoW.Close()
			return e, errors.E(errors.Internal, err)
		}
		info, block = infoR, blockW
		defer info.Close()
		defer block.Close()
		closeLater = append(closeLater, infoW, blockR)
		cmd = exec.Command(b.bwrap, b.bwrapArgs(e.dir, env, args)...)
		cmd.ExtraFiles = []*os.File{infoW, blockR} // fds 3 and 4
		cmd.Env = []string{}
	} else {
		cmd = exec.Command(b.runner, args...)
		cmd.Env = env
		cmd.Dir = e.dir
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, e.tail
	cmd.SysProcAttr = b.sysProcAttr()
	// A process of the sandbox that kept stderr open cannot hold Wait.
	cmd.WaitDelay = time.Second
	closeInheritedOnExec()
	if err := cmd.Start(); err != nil {
		return e, errors.Errorf(errors.Internal, "start the runner: %v", err)
	}
	e.cmd = cmd
	if e.group != nil {
		if err := e.group.add(cmd.Process.Pid); err != nil {
			return e, err
		}
	}
	// The child's ends are the child's only: a runner that ends must end
	// its streams.
	for _, f := range closeLater {
		_ = f.Close()
	}
	closeLater = nil
	if b.bwrap != "" {
		if err := e.release(ctx, info, block); err != nil {
			return e, err
		}
	}
	return e, e.awaitReady(ctx)
}

// awaitReady waits for the runner's ready notification: its start is
// over and it waits for its execution.
func (e *execution) awaitReady(ctx context.Context) error {
	stop := context.AfterFunc(ctx, func() { _ = e.stdout.Close() })
	defer stop()
	if err := gateway.AwaitReady(e.stdout); err != nil {
		if ctx.Err() != nil {
			return errors.FromContext(ctx, "process.Run", context.Cause(ctx))
		}
		return errors.Errorf(errors.Internal, "the runner did not start (%v): %s", err, e.tail.String())
	}
	return nil
}

// release waits for bubblewrap's sandbox to be set up, moves its first
// process into the cgroups (everything it starts inherits them), and lets
// it start the runner.
func (e *execution) release(ctx context.Context, info, block *os.File) error {
	stop := context.AfterFunc(ctx, func() { _ = info.Close() })
	defer stop()
	var status struct {
		ChildPID int `json:"child-pid"`
	}
	if err := json.NewDecoder(info).Decode(&status); err != nil {
		if ctx.Err() != nil {
			return errors.FromContext(ctx, "process.Run", context.Cause(ctx))
		}
		e.stop()
		return errors.Errorf(errors.Internal, "bubblewrap did not start the sandbox (%v): %s", err, e.tail.String())
	}
	if e.group != nil {
		if err := e.group.add(status.ChildPID); err != nil {
			return err
		}
	}
	if _, err := block.Write([]byte{'1'}); err != nil {
		return errors.Errorf(errors.Internal, "start the sandbox: %v", err)
	}
	return nil
}

// bwrapArgs returns bubblewrap's arguments: every namespace, nothing of
// the host but the runner (read-only) and the private directory as /tmp.
func (b *Backend) bwrapArgs(dir string, env, runnerArgs []string) []string {
	args := []string{
		"--unshare-all", "--die-with-parent", "--new-session", "--clearenv", "--cap-drop", "ALL",
		"--ro-bind", b.runner, sandboxRunner,
		"--proc", "/proc", "--dev", "/dev",
		"--bind", dir, "/tmp", "--chdir", "/tmp",
		"--info-fd", "3", "--block-fd", "4",
	}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		args = append(args, "--setenv", k, v)
	}
	return append(append(args, "--", sandboxRunner), runnerArgs...)
}

// watch closes e.exited when the runner ends, without reaping it: its pid,
// the process group's id, stays taken until stop has killed the group.
func (e *execution) watch() {
	for {
		err := unix.Waitid(unix.P_PID, e.cmd.Process.Pid, nil, unix.WEXITED|unix.WNOWAIT, nil)
		if err != syscall.EINTR { //nolint:errorlint // a raw errno from the system call
			close(e.exited)
			return
		}
	}
}

// finish ends an execution that is over: its processes are killed now, so
// that nothing of the program runs once Run returns, and reaped, with the
// cgroup and the directory removed, in the background. The kernel takes
// milliseconds to tear down a runner's address space, which the
// program's caller need not wait for.
func (b *Backend) finish(e *execution) {
	e.kill()
	if !b.background(e.stop) {
		e.stop()
	}
}

// kill kills the process group and the cgroup, once. It runs before stop
// reaps the runner, so the group's id is still the runner's pid.
func (e *execution) kill() {
	e.killOnce.Do(func() {
		if e.stdin != nil {
			_ = e.stdin.Close()
		}
		if e.cmd != nil {
			_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
			if e.group != nil {
				e.group.kill()
			}
		}
	})
}

// stop kills the execution's processes, reaps the runner, and removes the
// cgroup and the directory. It runs once; later calls wait for nothing.
func (e *execution) stop() {
	e.once.Do(func() {
		e.kill()
		if e.cmd != nil {
			e.err = e.cmd.Wait()
			if e.watching {
				<-e.exited
			}
		}
		if e.stdout != nil {
			_ = e.stdout.Close()
		}
		if e.group != nil {
			e.oomKilled, e.pidsRefused = e.group.oomKilled(), e.group.pidsRefused()
			// Its processes are reaped: the cgroup, empty or being
			// emptied of what the kernel still tears down, is removed in
			// the background (Close waits for it), since that can take
			// milliseconds that the execution need not wait for.
			if !e.backend.background(e.group.remove) {
				e.group.remove()
			}
		}
		if e.dir != "" {
			_ = os.RemoveAll(e.dir)
		}
	})
}

// classify turns the end of a runner that did not answer into the error
// of the limit that ended it, or an internal error with the end of its
// stderr. ownEnd says whether it ended before stop killed it.
func (e *execution) classify(hostErr error, ownEnd bool, l toolruntime.Limits) error {
	state := e.cmd.ProcessState
	if e.oomKilled {
		return errors.WithOp("process.Run", toolcode.LimitError(toolruntime.LimitMemory, l.Memory))
	}
	if ownEnd && state != nil {
		ws, _ := state.Sys().(syscall.WaitStatus)
		cpu := state.UserTime() + state.SystemTime()
		// bubblewrap ends with 128+n when the runner ends by signal n.
		killed := ws.Signaled() && (ws.Signal() == syscall.SIGXCPU || ws.Signal() == syscall.SIGKILL) ||
			ws.Exited() && (ws.ExitStatus() == 128+int(syscall.SIGXCPU) || ws.ExitStatus() == 128+int(syscall.SIGKILL))
		switch {
		case ws.Exited() && ws.ExitStatus() == runner.ExitCPUTime,
			killed && cpu >= l.CPUTime:
			return errors.WithOp("process.Run", toolcode.LimitError(toolruntime.LimitCPUTime, l.CPUTime))
		case e.group == nil && strings.Contains(e.tail.String(), "out of memory"):
			// The runtime's allocation failed under RLIMIT_AS.
			return errors.WithOp("process.Run", toolcode.LimitError(toolruntime.LimitMemory, l.Memory))
		}
	}
	if e.pidsRefused {
		return errors.WithOp("process.Run", toolcode.LimitError(toolruntime.LimitProcesses, l.Processes))
	}
	status := "still running"
	if ownEnd && state != nil {
		status = state.String()
	}
	return errors.Opf("process.Run", errors.Internal, "the runner ended without answering (%s: %v); its stderr ends with: %s", status, hostErr, e.tail.String())
}

// closeInheritedOnExec marks every descriptor of this process above
// standard error close-on-exec, so that the sandbox gets only the
// descriptors its command is given (its pipes, and bubblewrap's two):
// the ones this process inherited from its parent without that flag (a
// file a shell opened, "9<>file") would otherwise pass on to every
// process it starts. The descriptors Go opens have the flag already.
func closeInheritedOnExec() {
	if unix.CloseRange(3, math.MaxUint32, unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// A kernel older than 5.11: one descriptor at a time.
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		if fd, err := strconv.Atoi(e.Name()); err == nil && fd > 2 {
			syscall.CloseOnExec(fd)
		}
	}
}
