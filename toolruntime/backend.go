package toolruntime

import (
	"context"
	"encoding/json"
	"time"

	"github.com/metatools-go/metatools/toolcode"
)

// Backend runs programs behind one kind of boundary: the host process, a
// child process, a WebAssembly runtime. It is the one interface to
// implement to add a way of running programs.
//
// Run executes one program and returns its value as JSON. The program
// reaches tools only through req.Tools (for a backend out of process,
// through the [gateway] protocol served by [gateway.Host]); req.Tools
// counts and bounds the calls, the log and the chains itself. The backend
// enforces the rest:
//
//   - it stops the program when ctx is done, leaving nothing running (no
//     process, no goroutine), and returns an error of code
//     [errors.Timeout] or [errors.Canceled];
//   - it enforces each limit of req.Limits it claims in [Backend.Enforces],
//     and fails a program that reaches one with the error of
//     [toolcode.LimitError] naming it (code [errors.ResourceExhausted]);
//   - the engine's errors keep their codes (see [toolcode.Engine]).
//
// Run reports in Result.Enforced what it enforced in that execution, row
// by row; a row it cannot vouch for on this machine (a mechanism missing)
// is reported as not enforced, never claimed.
//
// A Backend is safe for concurrent use.
type Backend interface {
	// Name identifies the backend ("inprocess", "process", "wasm").
	Name() string
	// Enforces says, without running anything, what the backend enforces
	// under limits l on this machine: the rows of the sandbox's limits
	// ([LimitCPUTime], ...), of the program's wall time and of the
	// isolation properties ([IsolateFiles], ...). The gateway's rows (tool
	// calls, chain steps, output, concurrency) are added by the [Runtime].
	Enforces(l Limits) LimitsEnforced
	// Run executes one program; see [Backend].
	Run(ctx context.Context, req Request) (Result, error)
}

// Warmer is a [Backend] that starts sandboxes ahead of the executions
// (processes, module instances, pods): Warm starts those of limits l and
// returns once they wait for their executions, or with ctx's error. A
// host calls it at its start ([Runtime.Warm]), so that its first program
// finds a sandbox ready too.
type Warmer interface {
	Warm(ctx context.Context, l Limits) error
}

// Closer is a [Backend] with work of its own in the background (the
// sandboxes started ahead, the removal of those used): Close stops it
// and waits until nothing of it is left, or until ctx ends. The backend
// runs nothing afterwards.
type Closer interface {
	Close(ctx context.Context) error
}

// Request is one program for a [Backend] to run.
type Request struct {
	// Language names the engine ("javascript", "typescript").
	Language string
	// Code is the program's source.
	Code string
	// Tools is the gateway: the program's only way to tools.
	Tools toolcode.Tools
	// Program are the program's limits, which the engine (wall time,
	// recursion) and Tools (the others) enforce.
	Program toolcode.Limits
	// Limits are the sandbox's limits; every field is positive.
	Limits Limits
}

// Result is what a [Backend] returns for a program.
type Result struct {
	// Value is the JSON of the program's value.
	Value json.RawMessage
	// Enforced is what the backend enforced in this execution (see
	// [Backend.Enforces]); it is set on failure too.
	Enforced LimitsEnforced
	// Startup is how long the backend took to get the sandbox ready
	// before it handed it the program: starting the runner process,
	// instantiating the module, getting a pod running. It is zero for a
	// backend with nothing to start, and set on failure when the sandbox
	// got ready.
	Startup time.Duration
}
