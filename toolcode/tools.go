package toolcode

import (
	"context"
	"encoding/json"
	"sync"
	"sync/atomic"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// Tools is the environment a program sees: discovery, documentation, tool
// calls and a log. An [Engine] exposes it to the program in the engine's
// own idiom.
//
// Tools is safe for concurrent use: an engine may run several calls at
// once (a program's Promise.all). It enforces the limits of the execution
// itself, whatever the engine does: it refuses a call of any of its
// functions beyond [Limits.ToolCalls] (a search, a description, examples
// and the namespaces count as one call each, a chain as its steps), a
// chain longer than [Limits.ChainSteps] and a log line past
// [Limits.OutputBytes] with code [errors.ResourceExhausted], and runs at
// most [Limits.Concurrency] tool calls at once (a call waits for a slot,
// or for ctx). An engine must not hold more calls waiting than
// [Limits.ToolCalls]: past that, it makes the waiting calls at once, so
// that the Tools refuse those past the budget. A limit reached also fails the execution, even if the program
// catches the error. Every call of Run and Chain is traced.
//
// Every operation is the one of [toolops.Service], which decides what
// the program is offered: a tool its policies hide is unknown to the
// program, as on every other face. Values returned are the caller's.
// Errors keep their codes: a tool that ran and failed yields its
// [toolrun.RunResult.ToolError] (code [errors.Execution], with the tool's
// ID); a call that could not run yields the service's error (not_found,
// invalid_argument, validation, ...).
type Tools interface {
	// Search returns a page of the tools offered to the program that
	// match the request (see [toolops.Service.Search]).
	Search(ctx context.Context, req toolops.SearchRequest) (toolops.SearchResult, error)
	// Namespaces returns the namespaces that hold a tool offered to the
	// program, sorted.
	Namespaces(ctx context.Context) ([]string, error)
	// Describe returns a tool's documentation.
	Describe(ctx context.Context, req toolops.DescribeRequest) (tooldocs.Doc, error)
	// Examples returns example calls of a tool.
	Examples(ctx context.Context, req toolops.ExamplesRequest) ([]tooldocs.Example, error)
	// Run runs a tool and returns its structured result.
	Run(ctx context.Context, id string, args map[string]any) (any, error)
	// Chain runs steps in order (see [toolops.Service.Chain]) and returns
	// the structured result of each step that ran.
	Chain(ctx context.Context, steps []toolops.ChainStep) ([]any, error)
	// Log records a line the program prints.
	Log(ctx context.Context, line string) error
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
	// Replayed reports a call that ran in an earlier attempt of the
	// execution, one that waited for its caller's input
	// ([ExecuteParams.Input]): the call did not run again, and returned
	// what it returned then.
	Replayed bool `json:"replayed,omitempty"`
}

// env is the Tools of one execution.
type env struct {
	ops    *toolops.Service
	masker toolrun.ArgumentMasker
	limits Limits
	start  time.Time

	sem    chan struct{}
	calls  atomic.Int64
	chains atomic.Int64

	// stop ends the execution when a limit is reached or a call waits
	// for its caller's input, so that a program that catches the error
	// does not go on until its deadline.
	stop func(cause error)
	// replay, when set, keeps the program's calls for the retries of an
	// execution whose caller can answer requests for input.
	replay *replay

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

// spend counts n calls against [Limits.ToolCalls], and refuses them, ending
// the execution, past it.
func (e *env) spend(n int) error {
	if e.calls.Add(int64(n)) > int64(e.limits.ToolCalls) {
		return e.exceed(LimitToolCalls, e.limits.ToolCalls)
	}
	return nil
}

func (e *env) Search(ctx context.Context, req toolops.SearchRequest) (toolops.SearchResult, error) {
	if err := e.spend(1); err != nil {
		return toolops.SearchResult{}, err
	}
	return e.ops.Search(ctx, req)
}

func (e *env) Namespaces(ctx context.Context) ([]string, error) {
	if err := e.spend(1); err != nil {
		return nil, err
	}
	return e.ops.Namespaces(ctx)
}

func (e *env) Describe(ctx context.Context, req toolops.DescribeRequest) (tooldocs.Doc, error) {
	if err := e.spend(1); err != nil {
		return tooldocs.Doc{}, err
	}
	return e.ops.Describe(ctx, req)
}

func (e *env) Examples(ctx context.Context, req toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	if err := e.spend(1); err != nil {
		return nil, err
	}
	return e.ops.Examples(ctx, req)
}

func (e *env) Run(ctx context.Context, id string, args map[string]any) (any, error) {
	if err := e.spend(1); err != nil {
		return nil, err
	}
	begin := time.Now()
	entry := TraceEntry{ToolID: id, Args: e.mask(id, args), Start: begin.Sub(e.start)}
	req := toolops.RunRequest{ID: id, Args: args}
	key, earlier, err := e.replayed("run "+id, args)
	switch {
	case err != nil:
		return nil, err
	case earlier != nil:
		if err := e.replayCall(begin, 0, earlier); err != nil {
			return nil, err
		}
		return earlier.Value, nil
	case e.replay != nil:
		req.Input = e.replay.input(key)
	}
	if err := e.acquire(ctx); err != nil {
		e.record(entry, begin, nil, err)
		return nil, err
	}
	res, err := e.ops.Run(ctx, req)
	e.release()
	if err == nil && res.InputRequired != nil {
		return nil, e.wait(key, res.InputRequired)
	}
	if err == nil && res.ToolError != nil {
		err = res.ToolError
	}
	entry = e.record(entry, begin, res, err)
	if e.replay != nil && res != nil {
		// err is the tool's failure, if any: the call reached the tool.
		e.replay.record(callRecord{Key: key, Value: res.Structured, Err: errors.ToWire(err), Trace: []TraceEntry{entry}})
	}
	if err != nil {
		return nil, err
	}
	return res.Structured, nil
}

func (e *env) Chain(ctx context.Context, steps []toolops.ChainStep) ([]any, error) {
	if len(steps) > e.limits.ChainSteps {
		return nil, e.exceed(LimitChainSteps, e.limits.ChainSteps)
	}
	if err := e.spend(len(steps)); err != nil {
		return nil, err
	}
	chain := int(e.chains.Add(1))
	begin := time.Now()
	req := toolops.ChainRequest{Steps: steps}
	key, earlier, err := e.replayed("chain", steps)
	switch {
	case err != nil:
		return nil, err
	case earlier != nil:
		values, _ := earlier.Value.([]any)
		return values, e.replayCall(begin, chain, earlier)
	case e.replay != nil:
		req.Input = e.replay.input(key)
	}
	if err := e.acquire(ctx); err != nil {
		return nil, err
	}
	results, err := e.ops.Chain(ctx, req)
	e.release()
	if n := len(results); n > 0 && results[n-1].Result != nil && results[n-1].Result.InputRequired != nil {
		return nil, e.wait(key, results[n-1].Result.InputRequired)
	}
	out := make([]any, 0, len(results))
	entries := make([]TraceEntry, 0, len(results))
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
		entries = append(entries, entry)
	}
	if e.replay != nil && len(results) > 0 {
		e.replay.record(callRecord{Key: key, Value: out, Err: errors.ToWire(err), Trace: entries})
	}
	if err != nil {
		return out, err
	}
	return out, nil
}

// replayed returns the key of a call of a program whose caller can
// answer requests for input and, when the call ran in an earlier attempt
// of the execution, its outcome then.
func (e *env) replayed(kind string, args any) (string, *callRecord, error) {
	if e.replay == nil {
		return "", nil, nil
	}
	key, err := e.replay.key(kind, args)
	if err != nil {
		return "", nil, errors.Errorf(errors.InvalidArgument, "the arguments are not JSON: %v", err)
	}
	if c, ok := e.replay.earlierCall(key); ok {
		return key, &c, nil
	}
	return key, nil, nil
}

// replayCall traces a call that ran in an earlier attempt (the chain-th
// chain, or no chain) as it was traced then, and returns its error then.
func (e *env) replayCall(begin time.Time, chain int, earlier *callRecord) error {
	for _, entry := range earlier.Trace {
		entry.Start, entry.Chain, entry.Replayed = begin.Sub(e.start), chain, true
		e.append(entry)
	}
	return errorOf(earlier.Err)
}

// wait stops the execution for a call, of key, that needs its caller's
// input.
func (e *env) wait(key string, asked *toolrun.InputRequired) error {
	e.replay.wait(key, asked)
	e.stop(errWaiting)
	return errWaiting
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

// record traces a call that ended, and returns its entry.
func (e *env) record(entry TraceEntry, begin time.Time, res *toolrun.RunResult, err error) TraceEntry {
	entry.Duration = time.Since(begin)
	e.fill(&entry, res, err)
	e.append(entry)
	return entry
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
