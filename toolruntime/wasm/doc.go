// Package wasm is the backend of the hardened profile: it runs each
// program in a fresh instance of a WebAssembly module, the command
// toolruntime-runner compiled for WASI preview1, on wazero (pure Go, no
// cgo).
//
// # The module
//
// Build it with
//
//	make runner-wasm    # bin/toolruntime-runner.wasm
//
// which runs, in the toolruntime module,
//
//	GOOS=wasip1 GOARCH=wasm go build -o ../bin/toolruntime-runner.wasm ./cmd/toolruntime-runner
//
// The runner carries both engines (goja for JavaScript, esbuild to
// transpile TypeScript), both pure Go and working under wasip1: the module
// is about 40 MB. [New] compiles it once to machine code, which takes
// minutes on a small machine; [WithCacheDir] keeps that code on disk, so
// that the next start of the host loads it in seconds.
//
//	b, err := wasm.NewFromFile("bin/toolruntime-runner.wasm", wasm.WithCacheDir(dir))
//	defer b.Close(ctx)
//	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, b))
//
// # One instance per execution
//
// Every execution gets a new instance of the compiled module, closed when
// the execution ends, whatever the outcome. The gateway protocol runs over
// the instance's WASI stdin and stdout, which are pipes to the host; its
// stderr goes to a bounded buffer, read only to explain a crash. Tool calls
// are thus host calls (fd_write, fd_read): a read blocks the whole module,
// so the runner reads the answers only while a call waits for one
// (gateway.GuestOptions.Sequential); calls the program starts together are
// still under way in the host together. Starting an instance costs some
// 110–150 ms on a busy two-core machine: most of it wazero's
// instantiation, which copies the module's data segments into the new
// linear memory (page faults on every page touched), then the Go
// runtime's and the engines' initialisation, until the runner announces
// that it is ready. [WithSpares] keeps instances started ahead, each
// still used for one execution only; an execution waits for its
// instance's announcement, and [Backend.Warm] for the spares'. On a
// spare, `return 1` took 39 ms against 138 ms cold (BenchmarkStartup):
// what is left is the runner's work in the module (its engine's runtime
// made, the program run), which the module runs some ten times slower
// than native code.
//
// # What enforces each limit
//
// Every row of [Backend.Enforces] names the mechanism "wasm":
//
//   - wall time: the execution's context; wazero closes the instance when
//     it ends (WithCloseOnContextDone), even in a loop that calls nothing;
//   - CPU time: a WebAssembly module here has one thread, so its CPU time
//     never exceeds the time since its execution began; the instance is
//     closed when Limits.CPUTime has elapsed (time spent waiting for tools
//     counts too), and the program fails with the cpu_time limit error;
//   - memory: the instance's linear memory is capped at
//     floor(Limits.Memory / 64 KiB) pages (wazero's memory limit, at most
//     4 GiB); the Go runtime in the module fails to grow its heap past it
//     and exits, which the backend reports as the memory limit error (code
//     resource_exhausted), told apart from other crashes by the exit
//     status and the runtime's last words. On Unix the memory is an
//     anonymous mapping of the cap, reserved but committed only as the
//     module touches it, outside the host's Go heap. A cap below what the
//     module needs to start (about 18 MiB) fails every execution with code
//     invalid_argument;
//   - processes: WASI preview1 has no call to start a process or a thread:
//     the module is one, reported as 1;
//   - file size, host files: the instance has no preopened directory and
//     no file but its three standard streams, so it cannot open, read or
//     write any file (reported as a file size of 0);
//   - environment: no variable is passed; the only argument is the
//     runner's name;
//   - network: WASI preview1 cannot create a socket, and the backend
//     replaces its socket functions (sock_accept, sock_recv, sock_send,
//     sock_shutdown) with functions that fail (ENOSYS).
//
// The module may import WASI preview1 only; [New] refuses one that
// imports anything else. Clocks and random numbers are the host's.
package wasm
