package toolops

import (
	"context"
	"fmt"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// RunRequest asks to run one tool.
type RunRequest struct {
	// ID is the tool's ID.
	ID string `json:"id"`
	// Args are the tool's arguments, following its input schema; nil
	// stands for none.
	Args map[string]any `json:"args,omitempty"`
	// Backend, when set, is the identity of the backend to prefer, such
	// as "mcp:github".
	Backend string `json:"backend,omitempty"`
	// Timeout bounds the call; zero leaves the runner's default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// OnProgress, when set, receives the tool's progress notifications.
	OnProgress func(toolrun.Progress) `json:"-"`
	// Input, when set, says that the caller can answer the tool's
	// requests for input: the run may then end with
	// [toolrun.RunResult.InputRequired], whose State this service seals,
	// and which the caller answers by running the same call again with
	// the answers and that State (see [Input]). A run without it fails
	// when the tool needs input.
	Input *Input `json:"-"`
}

// Run runs a tool offered to the caller and returns its result; a tool
// that ran and failed reports it in the result's ToolError, with a nil
// error. A tool the caller is not offered is not found, as an unknown
// one is ([errors.NotFound]); any other error is the runner's (invalid
// arguments, a policy refusing these arguments, a timeout, ...), with Op
// [OpRun] and its stage's op as its cause.
func (s *Service) Run(ctx context.Context, req RunRequest) (*toolrun.RunResult, error) {
	opts := callOptions(ctx)
	opts.Timeout = toolmodel.Duration(req.Timeout)
	opts.OnProgress = req.OnProgress
	if req.Backend != "" {
		opts.Prefer = []toolrun.SelectHint{{Backend: req.Backend}}
	}
	input, err := s.runInput(ctx, req)
	if err != nil {
		return nil, errors.WithOp(OpRun, err)
	}
	opts.Input = input
	res, err := s.runner.Run(ctx, req.ID, req.Args, opts)
	if err == nil && res.InputRequired != nil {
		state, err := s.SealState(ctx, runIdentity{req.ID, req.Args, req.Backend}, res.InputRequired.State)
		if err != nil {
			return nil, err
		}
		res.InputRequired = &toolrun.InputRequired{Requests: res.InputRequired.Requests, State: state}
	}
	if err != nil && refusedOrUnknown(err) {
		// The runner found no such tool, or refused it: answer as for a
		// tool the caller is not offered, unless a policy refused these
		// arguments of a tool it offers.
		if lerr := s.lookup(ctx, OpRun, req.ID); lerr != nil {
			return nil, lerr
		}
	}
	return res, err
}

// refusedOrUnknown reports an error of the runner's that may be one of a
// tool the caller is not offered: its authorization refused the call, or
// it found no such tool. The check costs nothing on the path of a call
// that runs; the operations confirm it before they answer.
func refusedOrUnknown(err error) bool {
	var e *errors.Error
	return errors.As(err, &e) && (e.Op == toolrun.OpAuthorize || e.Op == toolrun.OpResolve)
}

// ChainStep is one step of a chain.
type ChainStep struct {
	// ID is the tool to run.
	ID string `json:"id"`
	// Args are the step's arguments; a value {"$previous": POINTER} at
	// any depth takes part of the previous step's result (see
	// [toolrun.ChainStep.Args]).
	Args map[string]any `json:"args,omitempty"`
	// UsePrevious passes the previous step's whole result as the
	// argument PreviousKey.
	UsePrevious bool `json:"usePrevious,omitempty"`
	// PreviousKey names that argument; empty means
	// [toolrun.DefaultPreviousKey].
	PreviousKey string `json:"previousKey,omitempty"`
}

// ChainRequest asks to run tools one after the other.
type ChainRequest struct {
	// Steps are the calls, in order: 1 to [Limits.ChainSteps] of them.
	Steps []ChainStep `json:"steps"`
	// ContinueOnError runs every step even after one fails; by default
	// the chain stops at the first failure.
	ContinueOnError bool `json:"continueOnError,omitempty"`
	// Timeout bounds each step's call; zero leaves the runner's default.
	Timeout time.Duration `json:"timeout,omitempty"`
	// Input, when set, says that the caller can answer the steps'
	// requests for input, as [RunRequest.Input] does: the chain then ends
	// at a step that needs input, whose result's InputRequired the caller
	// answers by running the same chain again with the answers and its
	// State. The chain goes on from that step; the steps before it do not
	// run again.
	Input *Input `json:"-"`
}

// Chain runs the steps of a chain in order (see [toolrun.Runner.RunChain])
// and returns the outcome of each step that ran and, when a step failed,
// its error (with ContinueOnError, every step's, joined). A chain that
// waits for its caller's input ([ChainRequest.Input]) ends with the step
// that waits, whose result's InputRequired carries the requests and the
// State this service seals.
//
// Every step is checked before the first runs: a chain of no step or of
// more than [Limits.ChainSteps] is an error of code
// [errors.InvalidArgument], and a step whose tool the caller is not
// offered fails the chain with code [errors.NotFound], as an unknown tool
// does, before anything runs.
func (s *Service) Chain(ctx context.Context, req ChainRequest) ([]toolrun.StepResult, error) {
	switch n := len(req.Steps); {
	case n == 0:
		return nil, errors.Opf(OpChain, errors.InvalidArgument, "the chain has no steps: give at least one")
	case n > s.limits.ChainSteps:
		return nil, errors.Opf(OpChain, errors.InvalidArgument, "the chain has %d steps, the limit is %d (limits.chainSteps): split it", n, s.limits.ChainSteps)
	}
	opts := callOptions(ctx)
	opts.Timeout = toolmodel.Duration(req.Timeout)
	steps := make([]toolrun.ChainStep, len(req.Steps))
	for i, st := range req.Steps {
		if err := s.lookup(ctx, OpChain, st.ID); err != nil {
			return nil, stepError(i, err)
		}
		steps[i] = toolrun.ChainStep{ToolID: st.ID, Args: st.Args, UsePrevious: st.UsePrevious, PreviousKey: st.PreviousKey, Options: opts}
	}
	var chainOpts []toolrun.ChainOption
	if req.ContinueOnError {
		chainOpts = append(chainOpts, toolrun.ContinueOnError())
	}
	if req.Input == nil {
		return s.runner.RunChain(ctx, steps, chainOpts...)
	}
	resume, err := s.chainInput(ctx, req, steps)
	if err != nil {
		return nil, errors.WithOp(OpChain, err)
	}
	if resume != nil {
		chainOpts = append(chainOpts, resume)
	}
	results, err := s.runner.RunChain(ctx, steps, chainOpts...)
	if err != nil || len(results) == 0 {
		return results, err
	}
	if last := results[len(results)-1].Result; last != nil && last.InputRequired != nil {
		state, err := s.sealChain(ctx, req, results)
		if err != nil {
			return nil, err
		}
		last.InputRequired = &toolrun.InputRequired{Requests: last.InputRequired.Requests, State: state}
	}
	return results, nil
}

// stepError is err, the error of step i, saying which step it is.
func stepError(i int, err error) error {
	var e *errors.Error
	if !errors.As(err, &e) {
		return err
	}
	out := *e
	out.Err = fmt.Errorf("step %d: %w", i, e.Err)
	return &out
}
