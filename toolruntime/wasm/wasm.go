package wasm

import (
	"context"
	"crypto/rand"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
	"github.com/tetratelabs/wazero/imports/wasi_snapshot_preview1"
	"github.com/tetratelabs/wazero/sys"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
)

// Mechanism is the name of the mechanism this backend reports in a
// [toolruntime.LimitsEnforced].
const Mechanism = "wasm"

// PageSize is the size of a WebAssembly memory page: the memory cap is a
// whole number of pages.
const PageSize = 64 << 10

// maxPages is the most pages a 32-bit WebAssembly memory can have (4 GiB).
const maxPages = 1 << 16

// DefaultStderrBytes bounds how much of the guest's standard error the
// backend keeps (its end): enough for the Go runtime's last words.
const DefaultStderrBytes = 64 << 10

// wasiNosys is WASI's errno "function not supported".
const wasiNosys = 52

// socketFunctions are the socket functions of WASI preview1, each with its
// number of parameters. The backend replaces them with functions that fail
// with ENOSYS, so that no socket is reachable even if a future runtime gave
// the module one.
var socketFunctions = map[string]int{
	"sock_accept":   3,
	"sock_recv":     6,
	"sock_send":     5,
	"sock_shutdown": 2,
}

// Backend runs programs in a fresh instance of a WebAssembly module (the
// runner compiled for wasip1) on wazero. It is safe for concurrent use:
// every execution gets a module instance of its own.
type Backend struct {
	module      []byte
	cache       wazero.CompilationCache
	stderrBytes int
	spares      int
	args        []string

	mu       sync.Mutex
	runtimes map[uint32]*instanceRuntime // by memory limit in pages
	closed   bool
}

// instanceRuntime is a wazero runtime with one memory limit, the module
// compiled for it (the machine code comes from the shared cache) and its
// spare instances, started ahead (guarded by the backend's mu).
type instanceRuntime struct {
	runtime  wazero.Runtime
	compiled wazero.CompiledModule
	spares   []*instance
}

// instance is one started instance of the module, for one execution: a
// goroutine runs it until it exits or its context ends; the host holds
// the other ends of its stdin and stdout.
type instance struct {
	stdinR  *io.PipeReader
	stdinW  *io.PipeWriter
	stdoutR *io.PipeReader
	stderr  *tail
	cancel  context.CancelFunc
	exited  chan error
	// ready is closed once the guest has said that its start is over
	// (readyErr nil) or has failed to (readyErr says why).
	ready    chan struct{}
	readyErr error
}

// end closes the instance (if it still runs) and its pipes, and returns
// how it ended once its goroutine is done.
func (i *instance) end() error {
	i.cancel()
	_ = i.stdinW.Close()
	_ = i.stdoutR.Close()
	_ = i.stdinR.Close()
	<-i.ready
	return <-i.exited
}

var (
	_ toolruntime.Backend = (*Backend)(nil)
	_ toolruntime.Warmer  = (*Backend)(nil)
	_ toolruntime.Closer  = (*Backend)(nil)
)

// Option configures a [Backend].
type Option func(*options) error

type options struct {
	cacheDir    string
	stderrBytes int
	spares      int
}

// DefaultSpares is how many instances the backend keeps started ahead of
// the executions, by default.
const DefaultSpares = 1

// WithSpares keeps n instances of the module started ahead (default
// [DefaultSpares]; 0 starts each instance when its execution comes). A
// spare runs the runner's start (wazero's instantiation, the Go runtime's
// and the engines' initialisation, most of the cost of an instance) and
// waits for its execution, so that the program's wall time does not pay
// for it; an execution that takes a spare still starting waits for the
// end of its start. Each
// instance still serves one execution only. A spare holds its memory
// (some tens of MiB) while it waits.
func WithSpares(n int) Option {
	return func(o *options) error {
		if n < 0 {
			return errors.Errorf(errors.InvalidArgument, "wasm: negative number of spares %d", n)
		}
		o.spares = n
		return nil
	}
}

// WithCacheDir keeps the machine code compiled from the module in dir as
// well as in memory, so that another process (or the next start of this
// one) skips the compilation, which takes seconds to minutes for the
// runner. The directory is created if it does not exist. Each module has
// an entry of its own in dir, a directory named by a hash of its content;
// [New] marks its module's entry as used and removes the entries of the
// modules no backend started with for [CacheRetention], and nothing else.
func WithCacheDir(dir string) Option {
	return func(o *options) error {
		if dir == "" {
			return errors.Errorf(errors.InvalidArgument, "wasm: empty cache directory")
		}
		o.cacheDir = dir
		return nil
	}
}

// WithStderrBytes bounds how many bytes of the end of the guest's standard
// error the backend keeps, to explain a crash (default
// [DefaultStderrBytes]).
func WithStderrBytes(n int) Option {
	return func(o *options) error {
		if n <= 0 {
			return errors.Errorf(errors.InvalidArgument, "wasm: stderr bound %d is not positive", n)
		}
		o.stderrBytes = n
		return nil
	}
}

// New returns a backend running the WebAssembly module (the runner built
// with GOOS=wasip1 GOARCH=wasm; see the package doc). It compiles the
// module once, now, so that a module that is not valid, or that imports
// anything but WASI preview1, is refused here (code
// [errors.InvalidArgument]) and not at the first execution.
//
// Call [Backend.Close] to release the compiled code.
func New(module []byte, opts ...Option) (*Backend, error) {
	o := options{stderrBytes: DefaultStderrBytes, spares: DefaultSpares}
	for _, opt := range opts {
		if err := opt(&o); err != nil {
			return nil, errors.WithOp("wasm.New", err)
		}
	}
	if len(module) == 0 {
		return nil, errors.Opf("wasm.New", errors.InvalidArgument, "empty module")
	}
	cache := wazero.NewCompilationCache()
	if o.cacheDir != "" {
		entry, err := openCacheEntry(o.cacheDir, module, time.Now())
		if err == nil {
			cache, err = wazero.NewCompilationCacheWithDir(entry)
		}
		if err != nil {
			return nil, errors.Opf("wasm.New", errors.InvalidArgument, "cache directory %s: %v", o.cacheDir, err)
		}
	}
	b := &Backend{
		module:      module,
		cache:       cache,
		stderrBytes: o.stderrBytes,
		spares:      o.spares,
		// The runner needs no argument; a name keeps os.Args well formed.
		args:     []string{"toolruntime-runner"},
		runtimes: map[uint32]*instanceRuntime{},
	}
	if _, err := b.runtimeFor(context.Background(), pagesFor(toolruntime.DefaultLimits.Memory)); err != nil {
		_ = cache.Close(context.Background())
		return nil, errors.WithOp("wasm.New", err)
	}
	return b, nil
}

// NewFromFile is [New] with the module read from path.
func NewFromFile(path string, opts ...Option) (*Backend, error) {
	module, err := os.ReadFile(path)
	if err != nil {
		return nil, errors.Opf("wasm.NewFromFile", errors.InvalidArgument, "read the module: %v", err)
	}
	return New(module, opts...)
}

// Close releases the compiled code and every runtime. Executions under
// way are stopped; the backend runs nothing afterwards.
func (b *Backend) Close(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil
	}
	b.closed = true
	var errs []error
	for _, r := range b.runtimes {
		for _, inst := range r.spares {
			_ = inst.end()
		}
		r.spares = nil
		errs = append(errs, r.runtime.Close(ctx))
	}
	b.runtimes = nil
	errs = append(errs, b.cache.Close(ctx))
	return errors.Join(errs...)
}

// pagesFor returns the memory cap in pages for a limit in bytes: the
// largest whole number of pages within it, at most 4 GiB.
func pagesFor(memory int64) uint32 {
	pages := memory / PageSize
	if pages > maxPages {
		pages = maxPages
	}
	return uint32(pages)
}

// runtimeFor returns the runtime of a memory cap, compiling the module
// for it the first time (from the cache after the first cap).
func (b *Backend) runtimeFor(ctx context.Context, pages uint32) (*instanceRuntime, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, errors.Errorf(errors.Unavailable, "wasm backend closed")
	}
	if r, ok := b.runtimes[pages]; ok {
		return r, nil
	}
	cfg := wazero.NewRuntimeConfig().
		WithMemoryLimitPages(pages).
		WithCloseOnContextDone(true).
		WithCompilationCache(b.cache)
	rt := wazero.NewRuntimeWithConfig(ctx, cfg)
	r, err := b.prepare(ctx, rt, pages)
	if err != nil {
		_ = rt.Close(ctx)
		return nil, err
	}
	b.runtimes[pages] = r
	b.refillLocked(r)
	return r, nil
}

// take returns a spare instance of r, or starts one, once the instance
// is ready for its execution. A spare that failed to start is ended and
// replaced by an instance started now.
func (b *Backend) take(ctx context.Context, r *instanceRuntime) (*instance, error) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil, errors.Errorf(errors.Unavailable, "wasm backend closed")
	}
	var inst *instance
	if len(r.spares) > 0 {
		inst, r.spares = r.spares[0], r.spares[1:]
	} else {
		inst = b.start(r)
	}
	b.refillLocked(r)
	b.mu.Unlock()
	select {
	case <-inst.ready:
	case <-ctx.Done():
		_ = inst.end()
		return nil, errors.FromContext(ctx, "wasm.Run", context.Cause(ctx))
	}
	if inst.readyErr != nil {
		_ = inst.end()
		return nil, errors.Errorf(errors.Internal, "the module did not start (%v): %s", inst.readyErr, lastLines(inst.stderr.String(), 20))
	}
	return inst, nil
}

// refillLocked starts instances until r has its spares; b.mu is held.
func (b *Backend) refillLocked(r *instanceRuntime) {
	for !b.closed && len(r.spares) < b.spares {
		r.spares = append(r.spares, b.start(r))
	}
}

// Warm waits until the spare instances for l ([WithSpares]) have started
// and wait for their executions: a host calls it at its start, so that
// even its first execution finds an instance ready. It returns the
// context's error when ctx ends first, and an error of code
// [errors.Unavailable] after [Backend.Close].
func (b *Backend) Warm(ctx context.Context, l toolruntime.Limits) error {
	r, err := b.runtimeFor(ctx, pagesFor(l.Memory))
	if err != nil {
		return errors.WithOp("wasm.Warm", err)
	}
	b.mu.Lock()
	spares := append([]*instance(nil), r.spares...)
	b.mu.Unlock()
	for _, inst := range spares {
		select {
		case <-inst.ready:
		case <-ctx.Done():
			return errors.FromContext(ctx, "wasm.Warm", context.Cause(ctx))
		}
	}
	return nil
}

// start starts an instance of the module: the guest reads the gateway's
// messages from its stdin and writes its own to its stdout, both pipes
// to the host; its stderr goes to a bounded buffer. No file system, no
// environment, no socket: WASI gives the module its standard streams,
// clocks and random numbers only.
func (b *Backend) start(r *instanceRuntime) *instance {
	ctx, cancel := context.WithCancel(context.Background())
	ctx = experimental.WithMemoryAllocator(ctx, memoryAllocator())
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	inst := &instance{
		stdinR: stdinR, stdinW: stdinW, stdoutR: stdoutR, stderr: newTail(b.stderrBytes), cancel: cancel,
		exited: make(chan error, 1), ready: make(chan struct{}),
	}
	cfg := wazero.NewModuleConfig().
		WithName(""). // anonymous: instances never clash
		WithArgs(b.args...).
		WithStdin(stdinR).
		WithStdout(stdoutW).
		WithStderr(inst.stderr).
		WithSysWalltime().
		WithSysNanotime().
		WithSysNanosleep().
		WithRandSource(rand.Reader)
	go func() {
		mod, err := r.runtime.InstantiateModule(ctx, r.compiled, cfg)
		if mod != nil {
			// InstantiateModule closes the module on failure; this closes
			// it on success, and is a no-op when it is closed already.
			_ = mod.Close(context.Background())
		}
		_ = stdoutW.Close()
		inst.exited <- err
	}()
	// The guest writes its ready notification once its start (the Go
	// runtime's and the engines' initialisation) is over; the write on a
	// pipe without buffer waits for this read.
	go func() {
		inst.readyErr = gateway.AwaitReady(stdoutR)
		close(inst.ready)
	}()
	return inst
}

// prepare instantiates WASI in rt, without sockets, and compiles the
// module, refusing imports from anywhere else and a module that needs
// more memory than the cap to start.
func (b *Backend) prepare(ctx context.Context, rt wazero.Runtime, pages uint32) (*instanceRuntime, error) {
	wasi := rt.NewHostModuleBuilder(wasi_snapshot_preview1.ModuleName)
	wasi_snapshot_preview1.NewFunctionExporter().ExportFunctions(wasi)
	for name, params := range socketFunctions {
		types := make([]api.ValueType, params)
		for i := range types {
			types[i] = api.ValueTypeI32
		}
		wasi.NewFunctionBuilder().
			WithGoModuleFunction(api.GoModuleFunc(func(_ context.Context, _ api.Module, stack []uint64) {
				stack[0] = wasiNosys
			}), types, []api.ValueType{api.ValueTypeI32}).
			Export(name)
	}
	if _, err := wasi.Instantiate(ctx); err != nil {
		return nil, errors.Errorf(errors.Internal, "instantiate WASI: %v", err)
	}
	compiled, err := rt.CompileModule(ctx, b.module)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "compile the module under a memory cap of %d pages: %v", pages, err)
	}
	for _, f := range compiled.ImportedFunctions() {
		if module, name, _ := f.Import(); module != wasi_snapshot_preview1.ModuleName {
			return nil, errors.Errorf(errors.InvalidArgument, "the module imports %s.%s: only WASI preview1 is provided", module, name)
		}
	}
	if len(compiled.ImportedMemories()) > 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "the module imports a memory: it must define its own")
	}
	for _, m := range compiled.ExportedMemories() {
		if m.Min() > pages {
			return nil, errors.Errorf(errors.InvalidArgument, "the module needs %d pages (%d bytes) of memory to start, more than the cap of %d pages",
				m.Min(), int64(m.Min())*PageSize, pages)
		}
	}
	return &instanceRuntime{runtime: rt, compiled: compiled}, nil
}

// Name returns "wasm".
func (b *Backend) Name() string { return Mechanism }

// Enforces reports what a module instance enforces under l; see the
// package doc for each row.
func (b *Backend) Enforces(l toolruntime.Limits) toolruntime.LimitsEnforced {
	return enforced(l, nil)
}

func enforced(l toolruntime.Limits, wallTime any) toolruntime.LimitsEnforced {
	pages := pagesFor(l.Memory)
	return toolruntime.LimitsEnforced{
		toolruntime.Enforce(toolcode.LimitWallTime, wallTime, Mechanism),
		toolruntime.Enforce(toolruntime.LimitCPUTime, l.CPUTime, Mechanism),
		toolruntime.Enforce(toolruntime.LimitMemory, fmt.Sprintf("%d bytes (%d pages)", int64(pages)*PageSize, pages), Mechanism),
		toolruntime.Enforce(toolruntime.LimitProcesses, 1, Mechanism),
		toolruntime.Enforce(toolruntime.LimitFileSize, 0, Mechanism),
		toolruntime.Enforce(toolruntime.IsolateEnvironment, nil, Mechanism),
		toolruntime.Enforce(toolruntime.IsolateFiles, nil, Mechanism),
		toolruntime.Enforce(toolruntime.IsolateNetwork, nil, Mechanism),
	}
}

// Run runs the program in a new instance of the module, which is closed
// before Run returns, whatever the outcome.
func (b *Backend) Run(ctx context.Context, req toolruntime.Request) (toolruntime.Result, error) {
	res := toolruntime.Result{Enforced: enforced(req.Limits, req.Program.WallTime)}
	if req.Limits.Memory <= 0 || req.Limits.CPUTime <= 0 {
		return res, errors.Opf("wasm.Run", errors.InvalidArgument, "limits without a memory or CPU time bound: %+v", req.Limits)
	}
	started := time.Now()
	rt, err := b.runtimeFor(ctx, pagesFor(req.Limits.Memory))
	if err != nil {
		return res, errors.WithOp("wasm.Run", err)
	}
	res.Value, err = b.run(ctx, rt, req, func() { res.Startup = time.Since(started) })
	return res, err
}

// run runs the program in an instance of rt, and ends the instance; it
// calls ready once it has the instance.
func (b *Backend) run(ctx context.Context, rt *instanceRuntime, req toolruntime.Request, ready func()) ([]byte, error) {
	// The module is single-threaded: its CPU time never exceeds the time
	// it has been running, so stopping it when CPUTime has elapsed bounds
	// its CPU time.
	cpuCause := toolcode.LimitError(toolruntime.LimitCPUTime, req.Limits.CPUTime)
	runCtx, stop := context.WithTimeoutCause(ctx, req.Limits.CPUTime, cpuCause)
	defer stop()
	inst, err := b.take(runCtx, rt)
	if err != nil {
		return nil, errors.WithOp("wasm.Run", err)
	}
	ready()
	// WithCloseOnContextDone closes the instance when its context ends,
	// even in the middle of a loop; the execution's end ends it.
	unbind := context.AfterFunc(runCtx, inst.cancel)
	defer unbind()

	value, hostErr := gateway.Host(runCtx, inst.stdoutR, inst.stdinW, gateway.Execution{Language: req.Language, Code: req.Code, Limits: req.Program}, req.Tools, 0)
	// The answer is in (or the execution is over): end the instance now,
	// whatever it is doing, and wait for it.
	exitErr := inst.end()

	switch {
	case hostErr == nil:
		return value, nil
	case ctx.Err() != nil:
		return nil, errors.FromContext(ctx, "wasm.Run", context.Cause(ctx))
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		// Its own deadline, not the parent's, ended runCtx (the CPU time's:
		// stop came after, and an ended context keeps its first error).
		return nil, errors.WithOp("wasm.Run", cpuCause)
	}
	return nil, guestError(hostErr, exitErr, inst.stderr.String(), req.Limits.Memory)
}

// outOfMemory are the lines the Go runtime prints when it cannot grow its
// heap: memory.grow failed at the cap.
var outOfMemory = []string{"fatal error: out of memory", "runtime: out of memory"}

// guestError explains the failure of an execution whose host side failed
// with hostErr, from the guest's exit (exitErr, nil for a clean exit) and
// the end of its stderr:
//
//   - a guest that exited by itself with status 2 after the Go runtime's
//     out-of-memory message hit the memory cap (memory.grow failed): the
//     memory limit error;
//   - a guest that ended without answering (hostErr of code Unavailable)
//     and did not exit cleanly crashed: an internal error with the end of
//     its stderr;
//   - otherwise hostErr says what happened (the guest broke the protocol,
//     the program failed); the instance was closed after it.
func guestError(hostErr, exitErr error, stderr string, memory int64) error {
	var exit *sys.ExitError
	if !errors.As(exitErr, &exit) {
		if exitErr != nil && errors.CodeOf(hostErr) == errors.Unavailable {
			return errors.Opf("wasm.Run", errors.Internal, "the module failed: %v", exitErr)
		}
		return hostErr
	}
	code := exit.ExitCode()
	if code == sys.ExitCodeContextCanceled || code == sys.ExitCodeDeadlineExceeded {
		// The host closed the instance after hostErr: that error stands.
		return hostErr
	}
	if code == 2 {
		for _, line := range outOfMemory {
			if strings.Contains(stderr, line) {
				return errors.WithOp("wasm.Run", toolcode.LimitError(toolruntime.LimitMemory, memory))
			}
		}
	}
	if errors.CodeOf(hostErr) == errors.Unavailable {
		return errors.Opf("wasm.Run", errors.Internal, "the module exited with status %d without answering: %s", code, lastLines(stderr, 20))
	}
	return hostErr
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// tail keeps the last bytes written to it, up to a bound.
type tail struct {
	mu    sync.Mutex
	max   int
	buf   []byte
	total int64
}

func newTail(limit int) *tail { return &tail{max: limit} }

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.total += int64(len(p))
	if len(p) >= t.max {
		t.buf = append(t.buf[:0], p[len(p)-t.max:]...)
		return len(p), nil
	}
	if over := len(t.buf) + len(p) - t.max; over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
	}
	t.buf = append(t.buf, p...)
	return len(p), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}
