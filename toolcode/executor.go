package toolcode

import (
	"context"
	"encoding/json"
	"maps"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// Defaults of an [Executor].
const (
	// DefaultLanguage is the language of a request that names none.
	DefaultLanguage = "javascript"
	// DefaultTimeout bounds an execution whose request sets no timeout.
	DefaultTimeout = 30 * time.Second
	// DefaultMaxCodeBytes bounds the size of a program's source.
	DefaultMaxCodeBytes = 256 << 10
	// abandonGrace is how long Execute waits, after the deadline, for an
	// engine that does not stop (a goja built-in such as String.repeat
	// cannot be interrupted midway) before it returns without it.
	abandonGrace = 250 * time.Millisecond
)

// ExecuteParams is one request to run a program. It is plain data.
type ExecuteParams struct {
	// Language selects the engine; empty means the executor's default.
	Language string `json:"language,omitempty"`
	// Code is the program's source.
	Code string `json:"code"`
	// Timeout bounds this execution; zero keeps the executor's default,
	// and it never exceeds the executor's [Limits.WallTime].
	Timeout time.Duration `json:"timeout,omitempty"`
	// Limits may lower the executor's limits, never raise them (see
	// [Limits]).
	Limits Limits `json:"limits,omitzero"`
	// Metadata, when set, makes the program's caller ([toolops.Caller])
	// one with this metadata, so that the runner's hooks and policies see
	// who asked (a session, a user); otherwise the program acts for the
	// caller of the context given to Execute.
	Metadata map[string]string `json:"metadata,omitempty"`
	// Input, when set, says that the caller can answer the requests for
	// input of the tools the program calls (MCP's multi-round-trip
	// requests): an execution whose program calls such a tool then stops
	// with [Result.InputRequired], which the caller answers by making the
	// same request again with the answers and its State. The program
	// then runs again from the start; the calls it made before are not
	// made again, but return what they returned then (see
	// [TraceEntry.Replayed]), and the call that waited gets the answers.
	// Without it, a call of a tool that needs input fails.
	Input *toolops.Input `json:"input,omitempty"`
}

// Result is the outcome of an execution. [Executor.Execute] returns it even
// when the program failed, with what the program logged and called until
// then.
type Result struct {
	// Language is the language the program ran in.
	Language string `json:"language"`
	// Value is the JSON of the value the program returned ("null" when it
	// returned nothing); empty when the program failed.
	Value json.RawMessage `json:"value,omitempty"`
	// Logs are the lines the program printed, in order.
	Logs []string `json:"logs,omitempty"`
	// Trace lists the program's tool calls, in the order they ended.
	Trace []TraceEntry `json:"trace,omitempty"`
	// Limits are the limits that applied.
	Limits Limits `json:"limits"`
	// Duration is the time the execution took.
	Duration time.Duration `json:"duration"`
	// Isolation says how the engine confined the program, when it
	// reports it (see [Isolation]).
	Isolation *Isolation `json:"isolation,omitempty"`
	// InputRequired, when set, says that the program stopped at a tool
	// that needs its caller's input (see [ExecuteParams.Input]): Value is
	// then empty, and State is signed by the executor's operations.
	InputRequired *toolrun.InputRequired `json:"inputRequired,omitempty"`
}

// Executor runs programs in the engines of a registry, against the tools of
// an index, run by a runner. It is safe for concurrent use; executions are
// independent.
type Executor struct {
	ops      *toolops.Service
	engines  *EngineRegistry
	language string
	timeout  time.Duration
	limits   Limits
	masker   toolrun.ArgumentMasker
	maxCode  int
	// tracer, durations and starts, when set, trace and measure the
	// executions ([WithTracerProvider], [WithMeterProvider]).
	tracer    trace.Tracer
	durations metric.Float64Histogram
	starts    metric.Float64Histogram
	// admission, when set, bounds the executions that run at once.
	admission *admission
	// err is an option's fault (invalid limits), which every execution
	// then fails with: an option cannot return it.
	err error
}

// Option configures an [Executor].
type Option func(*Executor)

// WithEngine registers an engine; the first engine registered for a
// language wins.
func WithEngine(e Engine) Option {
	return func(x *Executor) { _ = x.engines.Register(e) }
}

// WithEngineRegistry makes the executor use reg, shared with its owner;
// engines given with [WithEngine] are added to it.
func WithEngineRegistry(reg *EngineRegistry) Option {
	return func(x *Executor) {
		if reg != nil {
			for _, lang := range x.engines.Languages() {
				e, _ := x.engines.Get(lang)
				_ = reg.Register(e)
			}
			x.engines = reg
		}
	}
}

// WithDefaultLanguage sets the language of requests that name none
// (default [DefaultLanguage]).
func WithDefaultLanguage(lang string) Option { return func(x *Executor) { x.language = lang } }

// WithTimeout sets the timeout of requests that set none (default
// [DefaultTimeout]); it is capped by [Limits.WallTime].
func WithTimeout(d time.Duration) Option { return func(x *Executor) { x.timeout = d } }

// WithLimits sets the executor's limits; zero fields take the values of
// [DefaultLimits]. Limits that [Limits.Validate] refuses make every
// execution fail with its error, code [errors.InvalidArgument], rather
// than run under limits other than those asked for.
func WithLimits(l Limits) Option {
	return func(x *Executor) {
		if err := l.Validate(); err != nil {
			x.err = errors.WithOp("toolcode.WithLimits", err)
			return
		}
		// The last WithLimits wins, as options do: valid limits replace
		// invalid ones given before.
		x.limits, x.err = l.withDefaults(DefaultLimits), nil
	}
}

// WithMasker sets what the trace shows of a call's arguments. Give it the
// masker the runner has ([toolrun.WithMasker]), so that the trace hides what
// the runner's events hide. The default is [toolrun.SecretMasker]; nil
// shows the arguments as they are.
func WithMasker(m toolrun.ArgumentMasker) Option { return func(x *Executor) { x.masker = m } }

// WithMaxCodeBytes bounds the size of a program's source (default
// [DefaultMaxCodeBytes]).
func WithMaxCodeBytes(n int) Option {
	return func(x *Executor) {
		if n > 0 {
			x.maxCode = n
		}
	}
}

// New returns an executor whose programs find, read and run tools
// through the operations ops: the same as every other face of the
// catalogue, with the same policies, defaults and errors. Register at
// least one engine ([WithEngine]), such as the JavaScript engine of the
// package toolcode/javascript.
func New(ops *toolops.Service, opts ...Option) *Executor {
	x := &Executor{
		ops:      ops,
		engines:  &EngineRegistry{},
		language: DefaultLanguage,
		timeout:  DefaultTimeout,
		limits:   DefaultLimits,
		masker:   toolrun.SecretMasker{},
		maxCode:  DefaultMaxCodeBytes,
	}
	for _, o := range opts {
		o(x)
	}
	return x
}

// Engines returns the executor's engine registry.
func (x *Executor) Engines() *EngineRegistry { return x.engines }

// Limits returns the executor's limits: the most a request may have.
func (x *Executor) Limits() Limits { return x.limits }

// Execute runs a program and returns its result. On failure it returns the
// error together with a Result holding the logs and the trace up to the
// failure.
//
// Errors, each with its own code: a malformed request or a program that
// does not compile, [errors.InvalidArgument]; an exception the program did
// not catch, [errors.Execution], with its line; the wall time or timeout
// reached, [errors.Timeout]; another limit reached (tool calls, chain steps,
// output bytes, the engine's stack), [errors.ResourceExhausted] — the
// message and Meta["limit"] name it ([LimitOf]); a tool's failure the
// program did not catch, the tool's own code; ctx canceled,
// [errors.Canceled]. A limit reached fails the execution even when the
// program caught the error.
func (x *Executor) Execute(ctx context.Context, p ExecuteParams) (*Result, error) {
	if x.tracer == nil && x.durations == nil && x.starts == nil {
		return x.execute(ctx, p)
	}
	ctx, span := x.startSpan(ctx)
	res, err := x.execute(ctx, p)
	x.observe(ctx, span, res, err)
	return res, err
}

// execute is Execute, without its telemetry.
func (x *Executor) execute(ctx context.Context, p ExecuteParams) (*Result, error) {
	begin := time.Now()
	res := &Result{Language: p.Language}
	if res.Language == "" {
		res.Language = x.language
	}
	engine, limits, err := x.prepare(res.Language, p)
	res.Limits = limits
	if err != nil {
		return res, errors.WithOp("toolcode.Execute", err)
	}

	callerCtx := ctx
	if len(p.Metadata) > 0 {
		callerCtx = toolops.WithCaller(ctx, toolops.Caller{Metadata: maps.Clone(p.Metadata)})
	}
	if x.admission != nil {
		leave, err := x.admission.enter(callerCtx)
		if err != nil {
			res.Duration = time.Since(begin)
			return res, err
		}
		defer leave()
	}
	e := &env{
		ops: x.ops, masker: x.masker, limits: limits, start: begin,
		sem: make(chan struct{}, limits.Concurrency),
	}
	id := codeIdentity{Language: res.Language, Code: p.Code, Timeout: p.Timeout, Limits: p.Limits}
	if p.Input != nil {
		if e.replay, err = newReplay(callerCtx, x.ops, id, p.Input); err != nil {
			return res, errors.WithOp("toolcode.Execute", err)
		}
	}

	timeoutErr := LimitError(LimitWallTime, limits.WallTime)
	timeCtx, cancelTime := context.WithTimeoutCause(callerCtx, limits.WallTime, timeoutErr)
	defer cancelTime()
	runCtx, cancel := context.WithCancelCause(timeCtx)
	defer cancel(nil)
	e.stop = cancel

	type outcome struct {
		value json.RawMessage
		err   error
	}
	done := make(chan outcome, 1)
	go func() {
		growStack()
		var out outcome
		defer func() {
			if r := recover(); r != nil {
				out = outcome{err: errors.Errorf(errors.Internal, "engine %s panicked: %v\n%s", res.Language, r, debug.Stack())}
			}
			done <- out
		}()
		out.value, out.err = engine.Execute(runCtx, Program{Code: p.Code, Tools: e, Limits: limits, Report: e.report})
	}()

	var out outcome
	select {
	case out = <-done:
	case <-runCtx.Done():
		// The engine must stop now; give it a moment to say how.
		grace := time.NewTimer(abandonGrace)
		select {
		case out = <-done:
			grace.Stop()
		case <-grace.C:
			out.err = errors.Errorf(errors.Timeout, "engine %s did not stop at the deadline", res.Language)
		}
	}

	logs, trace, logBytes, breach := e.snapshot()
	res.Logs, res.Trace, res.Duration = logs, trace, time.Since(begin)
	res.Isolation = e.isolation
	if breach == nil && ctx.Err() == nil && e.replay != nil {
		if res.InputRequired, err = e.replay.inputRequired(callerCtx, x.ops, id); err != nil || res.InputRequired != nil {
			return res, err
		}
	}
	if err := x.classify(ctx, runCtx, out.err, breach); err != nil {
		return res, err
	}
	if len(out.value) == 0 {
		out.value = json.RawMessage("null")
	}
	if len(out.value)+logBytes > limits.OutputBytes {
		return res, LimitError(LimitOutputBytes, limits.OutputBytes)
	}
	res.Value = out.value
	return res, nil
}

// engineFrame is the size of the frame by which [growStack] grows the
// stack of an engine's goroutine: with the guard the runtime keeps, the
// stack becomes 64 KiB, what goja needs for a program's calls through the
// runner.
const engineFrame = 30 << 10

// frameIndex is read by growStack so that the compiler keeps its frame;
// it is never negative, so the frame is never written.
var frameIndex = 0

// growStack grows the calling goroutine's stack in one step. An engine's
// goroutine starts with the runtime's smallest stack, and an engine's
// calls nest deeply (the engine's interpreter, then the runner's pipeline
// and schema validation): the stack would otherwise double several times
// during the first tool call, each time copying a deep stack and
// adjusting each of its frames. Growing it first copies one frame, and
// takes about a sixth off a program making one call
// (BenchmarkExecute/calls=1 of toolcode/javascript).
//
// The frame is declared in a branch that never runs: the function's
// prologue still asks for the whole frame, and so grows the stack, but
// the frame is never zeroed. Zeroing it took a fifth of the cost of
// starting the goroutine and growing its stack (1.6 µs against 1.3 µs).
//
//go:noinline
func growStack() byte {
	if frameIndex < 0 {
		var frame [engineFrame]byte
		return frame[-frameIndex]
	}
	return 0
}

// prepare validates a request and resolves its engine and limits.
func (x *Executor) prepare(language string, p ExecuteParams) (Engine, Limits, error) {
	limits := x.limits
	if x.err != nil {
		return nil, limits, x.err
	}
	if err := p.Limits.Validate(); err != nil {
		return nil, limits, err
	}
	if p.Timeout < 0 {
		return nil, limits, errors.Errorf(errors.InvalidArgument, "timeout is negative (%v)", p.Timeout)
	}
	limits = limits.Lower(p.Limits)
	timeout := x.timeout
	if p.Timeout > 0 {
		timeout = p.Timeout
	}
	limits = limits.Lower(Limits{WallTime: timeout})
	if x.ops == nil {
		return nil, limits, errors.Errorf(errors.InvalidArgument, "executor has no operations to give programs")
	}
	if len(p.Code) > x.maxCode {
		return nil, limits, errors.Errorf(errors.InvalidArgument, "code is %d bytes, more than the %d allowed", len(p.Code), x.maxCode)
	}
	engine, err := x.engines.Get(language)
	if err != nil {
		return nil, limits, err
	}
	return engine, limits, nil
}

// classify turns the engine's error into the execution's: a limit the
// Tools recorded wins (the program may have caught it), then the wall time,
// then the caller's cancellation, then the engine's own error.
func (x *Executor) classify(parent, runCtx context.Context, err error, breach *errors.Error) error {
	switch {
	case breach != nil:
		return breach
	case parent.Err() != nil:
		return errors.FromContext(parent, "toolcode.Execute", parent.Err())
	case runCtx.Err() != nil && err != nil:
		if cause := context.Cause(runCtx); cause != nil && errors.CodeOf(cause) == errors.Timeout {
			return cause
		}
		return err
	}
	return err
}
