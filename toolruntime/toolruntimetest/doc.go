// Package toolruntimetest is the conformance suite of toolruntime
// backends: every [toolruntime.Backend] passes [RunBackend].
//
// The suite runs the engine conformance suite (toolcodetest.RunEngine) in
// JavaScript and TypeScript through the backend, then makes escape and
// limit attempts — read a planted file and /etc/hostname, write outside
// the sandbox, connect to a loopback listener, read a planted environment
// variable, start a process, fork, allocate past the memory cap, loop,
// recurse, flood stdout and the log, exceed the tool-call cap, call a
// denied tool — each twice: as a JavaScript program (the engine has no I/O
// API and must stop it) and through the probe engine (package probe),
// which does the operation for real, as an engine escaped by a bug would.
// A probe must fail when the backend claims the property it attacks
// ([toolruntime.Backend.Enforces]); otherwise its outcome is recorded in
// the [Report]. After each attempt nothing may be left running.
//
// # Use
//
// An in-process backend registers [ProbeEngine] next to its engines:
//
//	func TestConformance(t *testing.T) {
//		toolruntimetest.RunBackend(t, func(t *testing.T) toolruntime.Backend {
//			b, err := inprocess.New(javascript.New(), javascript.NewTypeScript(), toolruntimetest.ProbeEngine())
//			require.NoError(t, err)
//			return b
//		})
//	}
//
// An out-of-process backend runs the runner [BuildRunner] builds (the
// command proberunner, for the host or for GOOS=wasip1), and its TestMain
// calls goleak.VerifyTestMain and [RemoveRunners].
package toolruntimetest
