package toolcode

import (
	"context"
	"encoding/json"
	"maps"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun"
)

// Tools is the environment a program sees: discovery, documentation, tool
// calls and a log. An [Engine] exposes it to the program in the engine's
// own idiom.
//
// Tools is safe for concurrent use: an engine may run several calls at
// once (a program's Promise.all). It enforces the limits of the execution
// itself, whatever the engine does: it refuses a call beyond
// [Limits.ToolCalls], a chain longer than [Limits.ChainSteps] and a log line
// past [Limits.OutputBytes] with code [errors.ResourceExhausted], and runs at
// most [Limits.Concurrency] calls at once (a call waits for a slot, or for
// ctx). A limit reached also fails the execution, even if the program
// catches the error. Every call of Run and Chain is traced.
//
// Values returned are the caller's. Errors keep their codes: a tool that
// ran and failed yields its [toolrun.RunResult.ToolError] (code
// [errors.Execution], with the tool's ID); a call that could not run yields
// the runner's error (not_found, validation, permission_denied, ...).
type Tools interface {
	// Search returns up to limit tools (a default page when limit <= 0)
	// that best match the query, best first. Tools the runner's
	// authorization policies refuse are left out.
	Search(ctx context.Context, query string, limit int) ([]toolindex.Summary, error)
	// Namespaces returns every namespace that has a tool, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Describe returns a tool's documentation at a detail level.
	Describe(ctx context.Context, id string, level tooldocs.DetailLevel) (tooldocs.Doc, error)
	// Examples returns up to limit example calls of a tool (all when
	// limit <= 0).
	Examples(ctx context.Context, id string, limit int) ([]tooldocs.Example, error)
	// Run runs a tool and returns its structured result.
	Run(ctx context.Context, id string, args map[string]any) (any, error)
	// Chain runs steps in order (see [toolrun.Runner.RunChain]) and returns
	// the structured result of each step.
	Chain(ctx context.Context, steps []ChainStep) ([]any, error)
	// Log records a line the program prints.
	Log(ctx context.Context, line string) error
}

// ChainStep is one step of a chain, as a program writes it: the part of
// [toolrun.ChainStep] a program may set.
type ChainStep struct {
	// ToolID is the tool to run.
	ToolID string `json:"toolId"`
	// Args are the step's arguments; see [toolrun.ChainStep.Args] for
	// references to the previous result.
	Args map[string]any `json:"args,omitempty"`
	// UsePrevious passes the previous step's result as an argument.
	UsePrevious bool `json:"usePrevious,omitempty"`
	// PreviousKey names that argument; empty means
	// [toolrun.DefaultPreviousKey].
	PreviousKey string `json:"previousKey,omitempty"`
}

// TraceEntry records one tool call of a program.
type TraceEntry struct {
	// ToolID is the tool called.
	ToolID string `json:"toolId"`
	// Chain is the index of the chain the call was a step of, counting
	// from 1 in the order chains started, or 0 for a call of Run.
	Chain int `json:"chain,omitempty"`
	// Args are the call's arguments as the executor's masker shows them
	// (see [WithMasker]), as compact JSON: secrets never appear.
	Args json.RawMessage `json:"args,omitempty"`
	// Backend identifies the backend that ran the call, when it ran.
	Backend string `json:"backend,omitempty"`
	// OK reports that the tool ran and succeeded.
	OK bool `json:"ok"`
	// ResultBytes is the size of the JSON of the tool's result.
	ResultBytes int `json:"resultBytes,omitempty"`
	// ErrorCode and Error describe the failure, when the call failed.
	ErrorCode errors.Code `json:"errorCode,omitempty"`
	Error     string      `json:"error,omitempty"`
	// Start is when the call started, relative to the start of the
	// execution.
	Start time.Duration `json:"start"`
	// Duration is how long the call took, waiting for a slot included.
	Duration time.Duration `json:"duration"`
}

// env is the Tools of one execution.
type env struct {
	idx      toolindex.Index
	docs     tooldocs.Describer
	runner   *toolrun.Runner
	masker   toolrun.ArgumentMasker
	limits   Limits
	metadata map[string]string
	start    time.Time

	sem    chan struct{}
	calls  atomic.Int64
	chains atomic.Int64

	// stop ends the execution when a limit is reached, so that a
	// program that catches the error does not go on until its deadline.
	stop func(cause error)

	mu       sync.Mutex
	logs     []string
	logBytes int
	trace    []TraceEntry
	breach   *errors.Error
	// isolation is what the engine reported through Program.Report.
	isolation *Isolation
	// closed is set once snapshot handed the logs and the trace over: an
	// engine left running past its deadline adds nothing to them.
	closed bool
}

var _ Tools = (*env)(nil)

// exceed records the first limit reached and returns its error.
func (e *env) exceed(limit string, value any) error {
	err := LimitError(limit, value)
	e.mu.Lock()
	e.setBreach(err)
	e.mu.Unlock()
	return err
}

// setBreach records the first limit reached; e.mu is held.
func (e *env) setBreach(err *errors.Error) {
	if e.breach == nil {
		e.breach = err
		if e.stop != nil {
			e.stop(err)
		}
	}
}

func (e *env) acquire(ctx context.Context) error {
	select {
	case e.sem <- struct{}{}:
		return nil
	case <-ctx.Done():
		return errors.FromContext(ctx, "toolcode.call", context.Cause(ctx))
	}
}

func (e *env) release() { <-e.sem }

func (e *env) callOptions() toolrun.CallOptions {
	return toolrun.CallOptions{Metadata: maps.Clone(e.metadata)}
}

func (e *env) Search(ctx context.Context, query string, limit int) ([]toolindex.Summary, error) {
	page, err := e.idx.Search(ctx, toolindex.SearchRequest{Query: query, Limit: max(limit, 0)})
	if err != nil {
		return nil, err
	}
	out := page.Items[:0:0]
	for _, s := range page.Items {
		if e.runner.Authorize(ctx, s.ID, e.callOptions()) == nil {
			out = append(out, s)
		}
	}
	return out, nil
}

func (e *env) Namespaces(ctx context.Context) ([]string, error) {
	return e.idx.Namespaces(ctx)
}

func (e *env) Describe(ctx context.Context, id string, level tooldocs.DetailLevel) (tooldocs.Doc, error) {
	if err := e.runner.Authorize(ctx, id, e.callOptions()); err != nil {
		return tooldocs.Doc{}, err
	}
	return e.docs.Describe(ctx, id, level)
}

func (e *env) Examples(ctx context.Context, id string, limit int) ([]tooldocs.Example, error) {
	if err := e.runner.Authorize(ctx, id, e.callOptions()); err != nil {
		return nil, err
	}
	return e.docs.Examples(ctx, id, limit)
}

func (e *env) Run(ctx context.Context, id string, args map[string]any) (any, error) {
	if n := e.calls.Add(1); n > int64(e.limits.ToolCalls) {
		return nil, e.exceed(LimitToolCalls, e.limits.ToolCalls)
	}
	begin := time.Now()
	entry := TraceEntry{ToolID: id, Args: e.mask(id, args), Start: begin.Sub(e.start)}
	if err := e.acquire(ctx); err != nil {
		e.record(entry, begin, nil, err)
		return nil, err
	}
	res, err := e.runner.Run(ctx, id, args, e.callOptions())
	e.release()
	if err == nil && res.ToolError != nil {
		err = res.ToolError
	}
	e.record(entry, begin, res, err)
	if err != nil {
		return nil, err
	}
	return res.Structured, nil
}

func (e *env) Chain(ctx context.Context, steps []ChainStep) ([]any, error) {
	if len(steps) == 0 {
		return nil, errors.Errorf(errors.InvalidArgument, "chain: no steps")
	}
	if len(steps) > e.limits.ChainSteps {
		return nil, e.exceed(LimitChainSteps, e.limits.ChainSteps)
	}
	if n := e.calls.Add(int64(len(steps))); n > int64(e.limits.ToolCalls) {
		return nil, e.exceed(LimitToolCalls, e.limits.ToolCalls)
	}
	chain := int(e.chains.Add(1))
	run := make([]toolrun.ChainStep, len(steps))
	for i, s := range steps {
		run[i] = toolrun.ChainStep{ToolID: s.ToolID, Args: s.Args, UsePrevious: s.UsePrevious, PreviousKey: s.PreviousKey, Options: e.callOptions()}
	}
	begin := time.Now()
	if err := e.acquire(ctx); err != nil {
		return nil, err
	}
	results, err := e.runner.RunChain(ctx, run)
	e.release()
	out := make([]any, 0, len(results))
	offset := begin.Sub(e.start)
	for _, r := range results {
		entry := TraceEntry{ToolID: r.ToolID, Chain: chain, Args: e.mask(r.ToolID, steps[r.Step].Args), Start: offset}
		stepErr := r.Err
		if r.Result != nil {
			if stepErr == nil && r.Result.ToolError != nil {
				stepErr = r.Result.ToolError
			}
			entry.Duration = r.Result.Duration
			offset += r.Result.Duration
			out = append(out, r.Result.Structured)
		}
		e.fill(&entry, r.Result, stepErr)
		e.append(entry)
	}
	if err != nil {
		return out, err
	}
	return out, nil
}

func (e *env) Log(_ context.Context, line string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return nil
	}
	if e.logBytes+len(line) > e.limits.OutputBytes {
		err := LimitError(LimitOutputBytes, e.limits.OutputBytes)
		e.setBreach(err)
		return err
	}
	e.logBytes += len(line)
	e.logs = append(e.logs, line)
	return nil
}

// report records the engine's account of how it confined the program.
func (e *env) report(iso Isolation) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if !e.closed {
		e.isolation = &iso
	}
}

func (e *env) mask(id string, args map[string]any) json.RawMessage {
	var shown any = args
	if e.masker != nil {
		shown = e.masker.Mask(id, args)
	}
	b, err := marshalJSON(shown)
	if err != nil {
		return json.RawMessage(`"(arguments not representable as JSON)"`)
	}
	return b
}

func (e *env) record(entry TraceEntry, begin time.Time, res *toolrun.RunResult, err error) {
	entry.Duration = time.Since(begin)
	e.fill(&entry, res, err)
	e.append(entry)
}

func (e *env) fill(entry *TraceEntry, res *toolrun.RunResult, err error) {
	if res != nil {
		entry.Backend = res.Backend.Identity()
		if n, merr := jsonSize(res.Structured); merr == nil {
			entry.ResultBytes = n
		}
	}
	if err != nil {
		entry.ErrorCode = errors.CodeOf(err)
		entry.Error = err.Error()
		return
	}
	entry.OK = true
}

func (e *env) append(entry TraceEntry) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.closed {
		return
	}
	if e.trace == nil {
		e.trace = make([]TraceEntry, 0, min(e.limits.ToolCalls, 16))
	}
	e.trace = append(e.trace, entry)
}

// snapshot returns the logs and the trace, the bytes logged and the first
// limit reached, and closes the env: what an abandoned engine does
// afterwards is not recorded, so the slices are the caller's.
func (e *env) snapshot() (logs []string, trace []TraceEntry, logBytes int, breach *errors.Error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	return e.logs, e.trace, e.logBytes, e.breach
}
