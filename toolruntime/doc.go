// Package toolruntime runs code-mode programs behind a boundary chosen by
// security profile, and says, limit by limit, what enforced each bound.
//
// A program written by a model is untrusted. A [Runtime] routes each
// execution to the [Backend] registered for its [SecurityProfile]:
//
//   - [Dev]: in the host process (package inprocess); the engine bounds time
//     and recursion, the gateway tool calls and output;
//   - [Standard]: in a child process (package process) under rlimits, a
//     cgroup when the machine has one, a clean environment and a private
//     directory, and Linux namespaces through bubblewrap when it is present;
//   - [Hardened]: in a WebAssembly runtime (package wasm): a memory cap in
//     pages, no file system, no network, no processes.
//
// A profile with no backend, or a backend that cannot enforce on this
// machine what its profile requires ([SecurityProfile.Requires]), is refused
// with code errors.Unsupported: never a silent fallback to weaker isolation.
// Every execution reports a [LimitsEnforced] — in toolcode.Result.Isolation
// when the runtime runs under a toolcode.Executor — naming, for each limit
// and isolation property, the mechanism that enforced it, or none.
//
// # The gateway
//
// A program reaches tools only through the toolcode.Tools of its execution,
// which counts and bounds the calls, chains and log lines in the host. A
// backend out of process serves it to the guest over the guest's stdin and
// stdout with the protocol of the package gateway; the guest is the command
// toolruntime-runner (package runner), which hosts the toolcode engines.
// Nothing else crosses: the guest gets no credential and none of the
// host's environment (a child process gets a clean environment and a
// private temporary directory; a WebAssembly module no file system at
// all).
//
// # Use
//
//	rt, err := toolruntime.New(
//		toolruntime.WithBackend(toolruntime.Dev, dev),
//		toolruntime.WithBackend(toolruntime.Standard, proc),
//	)
//	engine, err := rt.Engine(toolruntime.Standard, "typescript")
//	x := toolcode.New(ops, toolcode.WithEngine(engine))
//
// # How to add a backend
//
// Implement [Backend]: Name, Enforces (what it enforces on this machine,
// claimed only when it holds) and Run (one program, nothing left running
// when it returns). An out-of-process backend starts the runner and calls
// gateway.Host over its pipes. The suite of the package toolruntimetest
// checks a backend against escape and limit attempts.
package toolruntime
