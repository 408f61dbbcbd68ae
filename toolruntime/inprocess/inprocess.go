// Package inprocess is the backend of the dev profile: it runs programs in
// the host's own process, in toolcode engines.
//
// Nothing stands between the program and the host but the engine: the
// engine bounds the wall time and recursion, the gateway the tool calls,
// chains and output. CPU time, memory, processes, files, network and
// environment are not bounded by this backend, and its
// [toolruntime.LimitsEnforced] says so; use it for programs one trusts, or
// where the engine's own surface (no I/O at all, for the built-in
// JavaScript engine) is boundary enough.
package inprocess

import (
	"context"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
)

// Backend runs programs in the engines it holds.
type Backend struct {
	engines *toolcode.EngineRegistry
}

var _ toolruntime.Backend = (*Backend)(nil)

// New returns a backend running programs in the given engines, one per
// language.
func New(engines ...toolcode.Engine) (*Backend, error) {
	reg, err := toolcode.NewEngineRegistry(engines...)
	if err != nil {
		return nil, err
	}
	return &Backend{engines: reg}, nil
}

// Name returns "inprocess".
func (b *Backend) Name() string { return "inprocess" }

// Enforces reports the wall time, enforced by the engine's interrupt, and
// every other limit and property as not enforced.
func (b *Backend) Enforces(toolruntime.Limits) toolruntime.LimitsEnforced { return enforced(nil) }

func enforced(wallTime any) toolruntime.LimitsEnforced {
	return toolruntime.LimitsEnforced{
		toolruntime.Enforce(toolcode.LimitWallTime, wallTime, "engine"),
		toolruntime.NotEnforced(toolruntime.LimitCPUTime),
		toolruntime.NotEnforced(toolruntime.LimitMemory),
		toolruntime.NotEnforced(toolruntime.LimitProcesses),
		toolruntime.NotEnforced(toolruntime.LimitFileSize),
		toolruntime.NotEnforced(toolruntime.IsolateEnvironment),
		toolruntime.NotEnforced(toolruntime.IsolateFiles),
		toolruntime.NotEnforced(toolruntime.IsolateNetwork),
	}
}

// Run runs the program in the engine of its language.
func (b *Backend) Run(ctx context.Context, req toolruntime.Request) (toolruntime.Result, error) {
	res := toolruntime.Result{Enforced: enforced(req.Program.WallTime)}
	engine, err := b.engines.Get(req.Language)
	if err != nil {
		return res, err
	}
	res.Value, err = engine.Execute(ctx, toolcode.Program{Code: req.Code, Tools: req.Tools, Limits: req.Program, Report: func(toolcode.Isolation) {}})
	return res, err
}
