package toolrun

import (
	"context"
	"fmt"
	"maps"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// opChain is the Op of the error of a chain that its context's end
// stopped before a step.
const opChain = "chain"

// DefaultPreviousKey is the argument under which a chain step receives the
// previous step's result when it asks for it.
const DefaultPreviousKey = "previous"

// ChainStep is one call of a chain.
type ChainStep struct {
	// ToolID is the tool to run.
	ToolID string `json:"toolId"`
	// Args are the step's own arguments. A value {"$previous": pointer}
	// at any depth ([PreviousRef]) is replaced by the part of the previous
	// step's structured result that the JSON pointer (RFC 6901) selects:
	// {"text": {"$previous": "/content/0/text"}} passes one member, ""
	// the whole result, and Args that are themselves a reference take
	// their arguments from an object of the result. A pointer that selects
	// nothing fails the step, with code [errors.InvalidArgument] and a
	// message naming the argument, the pointer and what the result holds
	// there; so does a reference on the first step, or after a step that
	// failed. Args are not modified.
	Args map[string]any `json:"args,omitempty"`
	// UsePrevious injects the previous step's structured result into the
	// arguments, under PreviousKey. It is an error on the first step.
	UsePrevious bool `json:"usePrevious,omitempty"`
	// PreviousKey is the argument that receives the previous result;
	// empty means [DefaultPreviousKey].
	PreviousKey string `json:"previousKey,omitempty"`
	// Options apply to this step's call.
	Options CallOptions `json:"options,omitzero"`
}

// StepResult is the outcome of one chain step: Result when the tool ran
// (possibly reporting a failure in Result.ToolError), Err when the call
// could not run; both when a hook or publisher panicked once the result
// was final (see "Panics" in the package documentation).
type StepResult struct {
	Step   int
	ToolID string
	Result *RunResult
	Err    error
}

// failure returns the step's error or its tool's failure.
func (s StepResult) failure() error {
	if s.Err != nil {
		return s.Err
	}
	return s.Result.Err()
}

// ChainProgress reports a chain's advance: a step starting (Result nil),
// a step's progress notification (Progress set), or a step ending
// (Result set).
type ChainProgress struct {
	Step     int
	Steps    int
	ToolID   string
	Progress *Progress
	Result   *StepResult
}

// ChainOption configures a chain.
type ChainOption func(*chainConfig)

type chainConfig struct {
	continueOnError bool
	onProgress      func(ChainProgress)
	done            []StepResult
}

// ContinueOnError runs every step even after one fails. By default a
// chain stops at the first step that fails, its tool's failure included.
func ContinueOnError() ChainOption {
	return func(c *chainConfig) { c.continueOnError = true }
}

// WithChainProgress receives the chain's progress.
func WithChainProgress(fn func(ChainProgress)) ChainOption {
	return func(c *chainConfig) { c.onProgress = fn }
}

// ResumeChain resumes a chain that waited for its caller's input: done
// are the results of the steps that ran before, the last of them the
// step that waited, which the chain runs again (with the Input its
// options now carry) before the steps after it. The results returned
// start with the others of done.
func ResumeChain(done []StepResult) ChainOption {
	return func(c *chainConfig) { c.done = done }
}

// RunChain runs steps in order, passing data explicitly: a step that asks
// for it receives the previous step's structured result as an argument
// ([ChainStep.UsePrevious]), or parts of it where its arguments refer to
// them ([PreviousRef]).
// It returns the results of the steps that ran and, when a step failed,
// that step's error (or, with [ContinueOnError], all of them joined),
// wrapped with its index and tool.
//
// A step whose tool needs its caller's input (a caller that can answer
// says so with [CallOptions.Input]) ends the chain: its result's
// InputRequired says what the tool needs, and the caller answers it
// by running the chain again with [ResumeChain].
func (r *Runner) RunChain(ctx context.Context, steps []ChainStep, opts ...ChainOption) ([]StepResult, error) {
	var cfg chainConfig
	for _, opt := range opts {
		opt(&cfg)
	}
	results := make([]StepResult, 0, len(steps))
	var errs []error
	var previous *RunResult
	start := 0
	if n := len(cfg.done); n > 0 {
		if n > len(steps) {
			return nil, errors.Errorf(errors.InvalidArgument, "the chain resumes at step %d, but it has %d steps", n-1, len(steps))
		}
		// The steps before the one that waited ran already: their results
		// and failures stand, and the last of them passes its result on.
		start = n - 1
		for _, res := range cfg.done[:start] {
			results = append(results, res)
			if failure := res.failure(); failure != nil {
				errs = append(errs, fmt.Errorf("chain step %d (%s): %w", res.Step, res.ToolID, failure))
			}
			previous = passedOn(res)
		}
	}
	for i := start; i < len(steps); i++ {
		step := steps[i]
		if err := errors.FromContext(ctx, opChain, nil); err != nil {
			return results, errors.Join(append(errs, err)...)
		}
		report := func(p ChainProgress) {
			if cfg.onProgress != nil {
				p.Step, p.Steps, p.ToolID = i, len(steps), step.ToolID
				cfg.onProgress(p)
			}
		}
		report(ChainProgress{})
		res := StepResult{Step: i, ToolID: step.ToolID}
		args, err := stepArgs(step, i, previous)
		if err == nil {
			callOpts := step.Options
			if cfg.onProgress != nil {
				userProgress := callOpts.OnProgress
				callOpts.OnProgress = func(p Progress) {
					if userProgress != nil {
						userProgress(p)
					}
					report(ChainProgress{Progress: &p})
				}
			}
			res.Result, err = r.Run(ctx, step.ToolID, args, callOpts)
		}
		res.Err = err
		results = append(results, res)
		report(ChainProgress{Result: &res})
		if res.Result != nil && res.Result.InputRequired != nil {
			break
		}
		if failure := res.failure(); failure != nil {
			errs = append(errs, fmt.Errorf("chain step %d (%s): %w", i, step.ToolID, failure))
			if !cfg.continueOnError {
				break
			}
		}
		previous = passedOn(res)
	}
	return results, errors.Join(errs...)
}

// passedOn is what a step passes on to the next: its result, or nothing
// when it failed, even when its result came back with the error (a hook
// that panicked once the result was final).
func passedOn(res StepResult) *RunResult {
	if res.Err != nil {
		return nil
	}
	return res.Result
}

func stepArgs(step ChainStep, i int, previous *RunResult) (map[string]any, error) {
	args := step.Args
	if hasPreviousRefs(args) {
		switch {
		case i == 0 || previous == nil:
			return nil, errors.Errorf(errors.InvalidArgument, "step %d refers to the previous result with %q, but there is none", i, PreviousRef)
		case previous.ToolError != nil:
			return nil, errors.Errorf(errors.InvalidArgument, "step %d refers to the result of step %d with %q, but that step failed", i, i-1, PreviousRef)
		}
		filled, err := fillPreviousRefs(args, jsonValue(previous.Structured), "")
		if err != nil {
			return nil, err
		}
		// The arguments as a whole may be a reference: then the part it
		// selects must be an object.
		obj, ok := filled.(map[string]any)
		if !ok {
			return nil, errors.Errorf(errors.InvalidArgument, "step %d takes its arguments from the previous result with %q, but the part selected is %s, not an object",
				i, PreviousRef, toolmodel.JSONKindPhrase(filled))
		}
		args = obj
	}
	if !step.UsePrevious {
		return args, nil
	}
	if i == 0 || previous == nil {
		return nil, errors.Errorf(errors.InvalidArgument, "step %d asks for the previous result, but there is none", i)
	}
	key := step.PreviousKey
	if key == "" {
		key = DefaultPreviousKey
	}
	args = maps.Clone(args)
	if args == nil {
		args = map[string]any{}
	}
	args[key] = previous.Structured
	return args, nil
}
