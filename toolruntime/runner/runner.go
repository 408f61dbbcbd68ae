// Package runner is the guest side of an out-of-process backend: the
// program that runs inside the sandbox, hosts toolcode engines, and reaches
// tools only through the gateway protocol on its stdin and stdout.
//
// The command toolruntime-runner (cmd/toolruntime-runner) is [Main] with
// the built-in JavaScript and TypeScript engines; a runner with other
// engines is a main package of three lines:
//
//	func main() { os.Exit(runner.Main(myengine.New())) }
package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime/gateway"
)

// Main serves one execution over the process's stdin and stdout with the
// given engines and returns the process's exit status: 0 when the protocol
// ran to its end (whether the program succeeded or not: its outcome went
// to the host), 2 when it failed. It first applies to its own process the
// limits of its arguments ([ParseLimits], [Limits.Apply]), before it reads
// anything of the execution.
//
// Once its start is over (the engines that are a [toolcode.Preparer]
// prepared), before it reads the execution, Main sends the host a
// gateway.MethodReady notification: a host that starts runners ahead
// of their executions waits for it (gateway.AwaitReady), and gateway.Host
// skips it.
//
// Nothing else may write to stdout: Main points os.Stdout at stderr for the
// rest of the process, so that a stray print cannot corrupt the protocol.
func Main(engines ...toolcode.Engine) int {
	out := os.Stdout
	os.Stdout = os.Stderr
	limits, err := ParseLimits(os.Args[1:])
	if err == nil {
		err = limits.Apply()
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "toolruntime-runner:", err)
		return 2
	}
	if err := serve(context.Background(), os.Stdin, out, true, engines...); err != nil {
		fmt.Fprintln(os.Stderr, "toolruntime-runner:", err)
		return 2
	}
	return 0
}

// Run serves one execution over r and w with the given engines (see
// [gateway.Serve]). Tool calls run concurrently, except on WASI, where a
// read blocks the whole module and calls run one at a time.
func Run(ctx context.Context, r io.Reader, w io.Writer, engines ...toolcode.Engine) error {
	return serve(ctx, r, w, false, engines...)
}

// serve is [Run], announcing the start first when ready is set.
func serve(ctx context.Context, r io.Reader, w io.Writer, ready bool, engines ...toolcode.Engine) error {
	reg, err := toolcode.NewEngineRegistry(engines...)
	if err != nil {
		return err
	}
	if ready {
		// A runner started ahead prepares its engines before it says so.
		for _, e := range engines {
			if p, ok := e.(toolcode.Preparer); ok {
				if err := p.Prepare(ctx); err != nil {
					return err
				}
			}
		}
	}
	return gateway.Serve(ctx, r, w, func(ctx context.Context, ex gateway.Execution, tools toolcode.Tools) (json.RawMessage, error) {
		return execute(ctx, reg, ex, tools)
	}, gateway.GuestOptions{Sequential: runtime.GOOS == "wasip1", Ready: ready})
}

// execute runs the program under its own deadline: the host stops the
// runner at the deadline anyway, but an engine told in time stops cleanly
// and says so.
func execute(ctx context.Context, reg *toolcode.EngineRegistry, ex gateway.Execution, tools toolcode.Tools) (value json.RawMessage, err error) {
	engine, err := reg.Get(ex.Language)
	if err != nil {
		return nil, err
	}
	if err := ex.Limits.Validate(); err != nil {
		return nil, err
	}
	if ex.Limits.WallTime > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, ex.Limits.WallTime, toolcode.LimitError(toolcode.LimitWallTime, ex.Limits.WallTime))
		defer cancel()
	}
	defer func() {
		if r := recover(); r != nil {
			value, err = nil, errors.Errorf(errors.Internal, "engine %s panicked: %v\n%s", ex.Language, r, debug.Stack())
		}
	}()
	return engine.Execute(ctx, toolcode.Program{Code: ex.Code, Tools: tools, Limits: ex.Limits, Report: func(toolcode.Isolation) {}})
}
