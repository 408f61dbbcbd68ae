package toolrun

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// Resolver finds a tool and its backends by ID, for tools that are not in
// an index. It returns an error of code [errors.NotFound] for a tool it
// does not know, so that the next resolver is asked. The runner calls it
// from the goroutine of each call: implementations must be safe for
// concurrent use, and return a tool and backends that the caller may
// keep (not shared state). A panic in Resolve fails the call at
// [OpResolve] with code [errors.Internal].
type Resolver interface {
	Resolve(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error)
}

// ResolverFunc adapts a function to the [Resolver] interface.
type ResolverFunc func(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error)

// Resolve calls f(ctx, id).
func (f ResolverFunc) Resolve(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
	return f(ctx, id)
}

// The pipeline stages, as they appear in the Op of errors.
const (
	OpResolve        = "resolve"
	OpSelectBackend  = "select_backend"
	OpAuthorize      = "authorize"
	OpBeforeExec     = "before_execution"
	OpPreCall        = "pre_call"
	OpValidateInput  = "validate_input"
	OpExecute        = "execute"
	OpValidateOutput = "validate_output"
	OpPostCall       = "post_call"
	OpAfterExec      = "after_execution"
	// OpPublish is the Op of the error of a call whose event publisher,
	// or argument masker for an event, panicked.
	OpPublish = "publish"
)

// Runner runs tools by ID on whichever backend serves them.
//
// Each call goes through one pipeline: resolve the tool → select a backend
// → authorize → before-execution hooks → pre-call hooks → validate the
// input → execute on the backend's [Executor] (with the retry policy,
// within the rule of [SafeToRepeat], and the call's timeout) → normalize
// the result → validate the output → post-call hooks → after-execution
// hooks, with start and result events published around the execution. A
// failure at any stage is an *errors.Error whose Op names the stage, with
// the tool and backend concerned.
//
// A Runner is safe for concurrent use. Its cost per call, beyond the
// executor and the validation, is a lookup in the index and a copy of the
// tool's definition; hooks and events cost nothing when there are none.
type Runner struct {
	executors   *ExecutorRegistry
	index       toolindex.Index
	resolvers   []Resolver
	selector    BackendSelector
	validator   toolmodel.SchemaValidator
	retry       RetryPolicy
	timeout     time.Duration
	idempotent  []string
	concurrency ConcurrencyPolicy
	extensions  []Extension
	publishes   bool
	masks       bool
	// tracer and durations, when set, trace and measure the calls
	// ([WithTracerProvider], [WithMeterProvider]).
	tracer    trace.Tracer
	durations metric.Float64Histogram
}

// New returns a runner that executes calls with the executors of reg (a
// nil reg has none).
func New(reg *ExecutorRegistry, opts ...Option) *Runner {
	r := &Runner{
		executors: reg,
		selector:  toolindex.DefaultSelector{},
		validator: toolmodel.NewValidator(),
		retry:     DefaultRetryPolicy(),
		timeout:   DefaultCallTimeout,
	}
	if reg == nil {
		r.executors = NewExecutorRegistry(nil)
	}
	for _, opt := range opts {
		if opt != nil {
			opt(r)
		}
	}
	for _, e := range r.extensions {
		r.publishes = r.publishes || mayPublish(e)
		r.masks = r.masks || masking(e)
	}
	return r
}

// mayPublish reports whether e may want events: any extension but the
// adapters of the single hooks that do not publish. Without one, the
// runner builds no event at all.
func mayPublish(e Extension) bool {
	switch e.(type) {
	case hookExtension, preCallExtension, postCallExtension, authExtension, maskExtension:
		return false
	}
	return true
}

// RunResult is the outcome of a call that reached its tool.
type RunResult struct {
	// Tool is the definition of the tool that ran.
	Tool toolmodel.Tool
	// Backend is the backend that ran it.
	Backend toolmodel.ToolBackend
	// Structured is the result as a JSON value: the backend's structured
	// result, else its text content parsed as JSON, else that text.
	Structured any
	// Content is the result as MCP content, when the backend gives it.
	Content []mcp.Content
	// ToolError is set when the tool ran and reported a failure; it has
	// code [errors.Execution] and the tool's message. The run itself
	// succeeded: Run returns a nil error.
	ToolError *errors.Error
	// Duration is the time the whole run took.
	Duration time.Duration
	// Attempts is the number of executions, retries included.
	Attempts int
	// InputRequired, when set, says that the tool needs the caller's
	// input before it can finish (see [CallOptions.Input]): Structured,
	// Content and ToolError are then empty.
	InputRequired *InputRequired
}

// Err returns the tool's failure as an error, or nil when the tool
// succeeded.
func (r *RunResult) Err() error {
	if r == nil || r.ToolError == nil {
		return nil
	}
	return r.ToolError
}

// Run runs a tool with the given arguments. It returns a result when the
// tool ran, even if the tool reported a failure ([RunResult.ToolError]),
// and an error when the call could not run or its result was refused.
// Run does not modify args.
//
// A panic of the code the runner is given (a hook, a policy, the
// executor, a validator...) fails the call with code [errors.Internal]
// instead of reaching the caller. One that happens once the result is
// final, in an after-execution hook or a publisher of the result event,
// fails the call without taking the result away: Run then returns both,
// the result and the error. See "Panics" in the package documentation.
//
// opts is optional: a call takes at most one [CallOptions], and its zero
// value asks for the defaults; more than one fails with code
// [errors.InvalidArgument].
func (r *Runner) Run(ctx context.Context, toolID string, args map[string]any, opts ...CallOptions) (*RunResult, error) {
	cfg, err := newCallConfig(opts)
	if err != nil {
		return nil, stageError(err, OpResolve, toolID, "", errors.InvalidArgument)
	}
	return r.run(ctx, toolID, args, &cfg)
}

// callState is what the stages of one call share: [Runner.pipeline] fills
// it in as it goes, and [Runner.run] reads it to end the call, however the
// pipeline ended (an error, or a panic of the code it called).
type callState struct {
	toolID string
	// op is the stage in progress: the Op of its error, returned or
	// panicked.
	op string
	// call is the call once its backend is chosen, and identity that
	// backend's.
	call     *Call
	identity string
	// hooksDue reports that the before-execution hooks have all passed:
	// the after-execution hooks are due, with ctx, the context as those
	// hooks left it (a callState lives no longer than its call).
	hooksDue bool
	ctx      context.Context
	// callbacks watches the call's progress and chunk callbacks, when it
	// has any.
	callbacks *callbackGuard
	// started reports that the start event was published, with the
	// arguments as shownArgs.
	started   bool
	shownArgs string
	// attempts is how many times the executor was called, 0 when the
	// call was never executed; executeErr is the error the execution
	// ended with.
	attempts   int
	executeErr error
}

// run runs one call: its pipeline, then what ends it whatever the outcome
// (the after-execution hooks and the result event).
func (r *Runner) run(ctx context.Context, toolID string, args map[string]any, cfg *callConfig) (*RunResult, error) {
	start := time.Now()
	ctx, span := r.startSpan(ctx, toolID)
	timeout := r.timeout
	if cfg.Timeout > 0 {
		timeout = time.Duration(cfg.Timeout)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, &callTimeout{d: timeout})
		defer cancel()
	}
	c := callState{toolID: toolID, op: OpResolve}
	// For a batch's retry rounds: a call may run again when it failed
	// before its execution, or as the rule allows.
	if cfg.repeatable != nil {
		defer func() { *cfg.repeatable = c.attempts == 0 || SafeToRepeat(c.call, c.executeErr) }()
	}

	result, err := r.pipeline(ctx, &c, args, cfg)
	if err != nil {
		// Until the post-call hooks are done, the result is not final: a
		// panic up to there withholds it, as an error there does.
		result, err = nil, r.fail(&c, err, c.op)
	} else {
		result.Duration = time.Since(start)
	}
	// The after-execution hooks see every outcome from here on.
	if c.hooksDue {
		for _, e := range r.extensions {
			hookErr, panicErr := afterExecution(c.ctx, e, toolID, result, err)
			switch {
			case hookErr != nil:
				// A post-check that refuses the result.
				err, result = errors.Join(err, r.fail(&c, hookErr, OpAfterExec)), nil
			case panicErr != nil:
				// The result is final: a hook that broke does not take it
				// away, nor does it keep the other hooks from it.
				err = errors.Join(err, r.fail(&c, panicErr, OpAfterExec))
			}
		}
	}
	// A call of a tool that was found, refused before it started, is
	// reported as such, for the audit.
	if !c.started && c.call != nil && err != nil && r.publishes {
		ev := Event{Kind: EventRefused, ToolID: toolID, Backend: c.identity, Metadata: c.call.Metadata,
			Time: time.Now(), Duration: time.Since(start), Err: err}
		pctx := c.ctx
		if pctx == nil {
			pctx = ctx // refused before the hooks gave a context of their own
		}
		if panicErr := r.publish(pctx, ev); panicErr != nil {
			err = errors.Join(err, r.fail(&c, panicErr, OpPublish))
		}
	}
	// The result event goes out last, once the after-execution hooks have
	// had their say; it is sent only for calls that were started.
	if c.started {
		ev := Event{Kind: EventResult, ToolID: toolID, Backend: c.identity, Args: c.shownArgs, Metadata: c.call.Metadata,
			Time: time.Now(), Duration: time.Since(start), Attempts: c.attempts, Err: err}
		if result != nil {
			ev.ToolError = result.ToolError != nil
		}
		if panicErr := r.publish(c.ctx, ev); panicErr != nil {
			err = errors.Join(err, r.fail(&c, panicErr, OpPublish))
		}
	}
	r.observe(ctx, span, &c, time.Since(start), result, err)
	return result, err
}

// pipeline runs a call's stages from the resolution of its tool to the
// post-call hooks, recording in c how far it got. Its error is the bare
// error of the stage c.op, which run names; a panic of the code it calls
// ends it the same way, with the error [recoverPanic] makes of it. A
// panic of the executor is the exception: it is the error of that attempt
// ([Runner.executeOnce]), for the retry policy to judge.
func (r *Runner) pipeline(ctx context.Context, c *callState, args map[string]any, cfg *callConfig) (result *RunResult, err error) {
	defer recoverPanic(&err)
	tool, backend, err := r.locate(ctx, c, cfg)
	if err != nil {
		return nil, err
	}
	call := &Call{
		Tool:       tool,
		Backend:    backend,
		Args:       args,
		Metadata:   cfg.Metadata,
		OnProgress: cfg.OnProgress,
		OnChunk:    cfg.OnChunk,
		Input:      cfg.Input,
	}
	if call.OnProgress != nil || call.OnChunk != nil {
		c.callbacks = &callbackGuard{}
		call.OnProgress = guardCallback(c.callbacks, call.OnProgress)
		call.OnChunk = guardCallback(c.callbacks, call.OnChunk)
	}
	if _, ok := matchAny(r.idempotent, c.toolID); ok {
		call.Idempotent = true
	}
	if len(r.extensions) > 0 {
		// Hooks may rewrite the arguments and metadata, at any depth: they
		// work on a deep copy, so that the caller's maps never change.
		// Executors only read them, so without hooks there is no copy.
		call.Args = cloneArgs(args)
		call.Metadata = maps.Clone(cfg.Metadata)
	}
	if call.Args == nil {
		call.Args = map[string]any{}
	}
	c.call, c.identity = call, backend.Identity()

	if err := r.authorizeCall(ctx, c, call); err != nil {
		return nil, err
	}
	c.op = OpBeforeExec
	for _, e := range r.extensions {
		if ctx, err = e.BeforeExecution(ctx, c.toolID, call.Args); err != nil {
			return nil, err
		}
	}
	c.hooksDue, c.ctx = true, ctx
	c.op = OpPreCall
	for _, e := range r.extensions {
		if err := e.PreCall(ctx, call); err != nil {
			return nil, err
		}
	}
	c.op = OpValidateInput
	if !cfg.SkipValidation {
		if err := r.validator.ValidateInput(&call.Tool, call.Args); err != nil {
			return nil, err
		}
	}

	if r.publishes {
		c.op = OpPublish
		c.shownArgs = r.maskedArgs(c.toolID, call.Args)
		c.started = true
		ev := Event{Kind: EventStart, ToolID: c.toolID, Backend: c.identity, Args: c.shownArgs, Metadata: call.Metadata, Time: time.Now()}
		if err := r.publish(ctx, ev); err != nil {
			return nil, err
		}
	}

	c.op = OpExecute
	out, err := r.execute(ctx, c)
	c.executeErr = err
	if err == nil {
		err = c.callbacks.panicked()
	}
	if err != nil {
		return nil, err
	}
	if out.InputRequired != nil {
		if call.Input == nil {
			return nil, out.InputRequired.Unanswerable()
		}
		return &RunResult{Tool: call.Tool, Backend: call.Backend, Attempts: c.attempts, InputRequired: out.InputRequired}, nil
	}
	result = normalize(call, out)
	result.Attempts = c.attempts
	if result.ToolError != nil && r.masks {
		// A tool's failure message may echo its arguments, secrets included.
		rd, err := r.redactorFor(c.toolID, call.Args)
		if err != nil {
			return nil, err
		}
		result.ToolError = rd.coded(result.ToolError)
	}
	c.op = OpValidateOutput
	if result.ToolError == nil && !cfg.SkipValidation && call.Tool.OutputSchema != nil && result.Structured != nil {
		if err := r.validator.ValidateOutput(&call.Tool, result.Structured); err != nil {
			return nil, err
		}
	}
	c.op = OpPostCall
	for _, e := range r.extensions {
		if err := e.PostCall(ctx, call, result); err != nil {
			return nil, err
		}
	}
	return result, nil
}

// locate resolves the call's tool and selects its backend, recording in c
// the stage in progress.
func (r *Runner) locate(ctx context.Context, c *callState, cfg *callConfig) (toolmodel.Tool, toolmodel.ToolBackend, error) {
	c.op = OpResolve
	tool, backends, err := r.resolve(ctx, c.toolID)
	if err != nil {
		return toolmodel.Tool{}, toolmodel.ToolBackend{}, err
	}
	c.op = OpSelectBackend
	backend, err := r.selector.Select(ctx, &tool, backends, cfg.Prefer)
	return tool, backend, err
}

// authorizeCall asks every authorization policy about call.
func (r *Runner) authorizeCall(ctx context.Context, c *callState, call *Call) error {
	c.op = OpAuthorize
	for _, e := range r.extensions {
		if err := e.Authorize(ctx, call); err != nil {
			return err
		}
	}
	return nil
}

// fail returns err, an error of the stage op, as the call's error: it
// names the stage, the tool and the backend, and has its message rid of
// what the maskers hide in the arguments as they are at that stage (with
// a pre-call hook's injected credentials once it has run).
func (r *Runner) fail(c *callState, err error, op string) error {
	e := stageError(err, op, c.toolID, c.identity, stageCode(op))
	if !r.masks || c.call == nil {
		return e
	}
	rd, maskErr := r.redactorFor(c.toolID, c.call.Args)
	if maskErr != nil {
		// A masker panicked: what it hides cannot be known, so its panic
		// is the error, in place of one that may show a secret.
		return stageError(maskErr, op, c.toolID, c.identity, errors.Internal)
	}
	return rd.coded(e)
}

// stageCode is the code of an error of the stage op that has none of its
// own (see [stageError]).
func stageCode(op string) errors.Code {
	switch op {
	case OpResolve, OpSelectBackend:
		return errors.NotFound
	case OpAuthorize, OpBeforeExec:
		return errors.PermissionDenied
	case OpPreCall:
		return errors.InvalidArgument
	case OpValidateInput, OpValidateOutput:
		return errors.Validation
	case OpExecute:
		return errors.Unavailable
	}
	return errors.Internal
}

// afterExecution calls e's after-execution hook. hookErr is what the hook
// returned and panicErr its panic, which run handles apart.
func afterExecution(ctx context.Context, e Extension, toolID string, result *RunResult, err error) (hookErr, panicErr error) {
	defer recoverPanic(&panicErr)
	return e.AfterExecution(ctx, toolID, result, err), nil
}

// Authorize reports whether a tool may run at all: it resolves the tool
// and selects its backend as [Runner.Run] does with the same options, then
// asks every authorization policy ([WithAuthorization], and the Authorize
// method of each [Extension]) about a call without arguments (Args nil;
// see [AuthorizationPolicy]). It runs no hook and executes nothing.
//
// Servers use it to offer a caller only the tools the policies let it
// run: in search results, documentation and tool lists, so that there is
// one place, the runner's policies, that decides. The error has Op
// [OpAuthorize] when a policy refused the tool, and the Op of the
// resolve or select stage when the tool cannot be found or has no usable
// backend; a panic at one of these stages is an error of that stage, of
// code [errors.Internal]. Its cost is a lookup of the tool and the
// policies' own.
func (r *Runner) Authorize(ctx context.Context, toolID string, opts ...CallOptions) error {
	cfg, err := newCallConfig(opts)
	if err != nil {
		return stageError(err, OpResolve, toolID, "", errors.InvalidArgument)
	}
	c := callState{toolID: toolID, op: OpResolve}
	if err := r.authorize(ctx, &c, &cfg); err != nil {
		return stageError(err, c.op, toolID, c.identity, stageCode(c.op))
	}
	return nil
}

// AuthorizeNamespace reports whether the authorization policies let the
// caller (opts' metadata) reach the namespace ns at all, as far as they
// can tell without a tool: they are asked about a call of the tool
// "ns:*", named "*", without a backend. [AllowDeny] refuses it when a
// deny pattern covers the whole namespace ("ns:*", "*"), or when no allow
// pattern does. Servers use it for a namespace none of whose tools is
// there to ask about, such as that of an upstream that is down: what its
// tools will be is not known, and a namespace the policies refuse as a
// whole stays hidden. The error has Op [OpAuthorize].
func (r *Runner) AuthorizeNamespace(ctx context.Context, ns string, opts ...CallOptions) (err error) {
	cfg, err := newCallConfig(opts)
	if err != nil {
		return stageError(err, OpAuthorize, "", "", errors.InvalidArgument)
	}
	id := ns + ":*"
	c := callState{toolID: id, op: OpAuthorize}
	call := &Call{Tool: toolmodel.Tool{Namespace: ns, Tool: mcp.Tool{Name: "*"}}, Metadata: maps.Clone(cfg.Metadata)}
	if err := r.authorizeRecovered(ctx, &c, call); err != nil {
		return stageError(err, OpAuthorize, id, "", stageCode(OpAuthorize))
	}
	return nil
}

// AuthorizeTool reports whether the authorization policies let the
// caller (opts' metadata) call tool on backend, a tool that need not be
// in any index: one a catalogue withholds from its callers, say, which a
// caller should learn of only if the policies would let it call it. The
// error has Op [OpAuthorize].
func (r *Runner) AuthorizeTool(ctx context.Context, tool toolmodel.Tool, backend toolmodel.ToolBackend, opts ...CallOptions) error {
	cfg, err := newCallConfig(opts)
	if err != nil {
		return stageError(err, OpAuthorize, tool.ID(), "", errors.InvalidArgument)
	}
	c := callState{toolID: tool.ID(), identity: backend.Identity(), op: OpAuthorize}
	call := &Call{Tool: tool, Backend: backend, Metadata: maps.Clone(cfg.Metadata)}
	if err := r.authorizeRecovered(ctx, &c, call); err != nil {
		return stageError(err, OpAuthorize, c.toolID, c.identity, stageCode(OpAuthorize))
	}
	return nil
}

// authorizeRecovered runs the policies on call; a policy's panic is its
// error.
func (r *Runner) authorizeRecovered(ctx context.Context, c *callState, call *Call) (err error) {
	defer recoverPanic(&err)
	return r.authorizeCall(ctx, c, call)
}

// authorize runs the stages of [Runner.Authorize], recording in c how far
// it got, as [Runner.pipeline] does.
func (r *Runner) authorize(ctx context.Context, c *callState, cfg *callConfig) (err error) {
	defer recoverPanic(&err)
	tool, backend, err := r.locate(ctx, c, cfg)
	if err != nil {
		return err
	}
	c.identity = backend.Identity()
	call := &Call{Tool: tool, Backend: backend, Metadata: maps.Clone(cfg.Metadata)}
	return r.authorizeCall(ctx, c, call)
}

// resolve finds a tool in the runner's index, the context's index, then
// the resolvers, in that order.
func (r *Runner) resolve(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
	if _, _, err := toolmodel.ParseToolID(id); err != nil {
		return toolmodel.Tool{}, nil, err
	}
	if r.index != nil {
		if tool, backends, err := r.index.GetAll(ctx, id); !isNotFound(err) {
			return tool, backends, err
		}
	}
	if idx, ok := toolindex.IndexFrom(ctx); ok && idx != r.index {
		if tool, backends, err := idx.GetAll(ctx, id); !isNotFound(err) {
			return tool, backends, err
		}
	}
	for _, res := range r.resolvers {
		if tool, backends, err := res.Resolve(ctx, id); !isNotFound(err) {
			return tool, backends, err
		}
	}
	return toolmodel.Tool{}, nil, errors.Errorf(errors.NotFound, "no tool %q", id)
}

// isNotFound reports whether a resolution failed because the tool is
// unknown there, so that the next place is asked.
func isNotFound(err error) bool { return err != nil && errors.CodeOf(err) == errors.NotFound }

// execute runs the call on its executor, retrying as the policy says
// when the rule of [SafeToRepeat] allows it, and records in c how many
// times it was executed.
func (r *Runner) execute(ctx context.Context, c *callState) (Output, error) {
	call := c.call
	executor, err := r.executors.Executor(call.Backend.Kind)
	if err != nil {
		var e *errors.Error
		if errors.As(err, &e) {
			_ = MarkNotSent(e) // marks e, in err's chain
		}
		return Output{}, err
	}
	for attempt := 1; ; attempt++ {
		c.attempts = attempt
		out, err := r.executeOnce(ctx, executor, call)
		if err == nil {
			return out, nil
		}
		if ctx.Err() != nil || !SafeToRepeat(call, err) {
			return Output{}, err
		}
		delay, again := r.retry.Backoff(attempt, err)
		if !again {
			return Output{}, err
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return Output{}, errors.FromContext(ctx, OpExecute, fmt.Errorf("last attempt: %w", err))
		}
	}
}

// executeOnce makes one attempt. A panic of the executor, or of the
// concurrency policy, is that attempt's error.
func (r *Runner) executeOnce(ctx context.Context, executor Executor, call *Call) (out Output, err error) {
	defer recoverPanic(&err)
	if r.concurrency != nil {
		release, err := r.concurrency.Acquire(ctx, call)
		if err != nil {
			if ctxErr := errors.FromContext(ctx, OpExecute, nil); ctxErr != nil {
				return Output{}, ctxErr
			}
			return Output{}, err
		}
		defer release()
	}
	out, err = executor.Execute(ctx, call)
	if err == nil || ctx.Err() == nil {
		return out, err
	}
	switch code := errors.CodeOf(err); {
	case errors.Is(ctx.Err(), context.DeadlineExceeded) && (code == errors.Timeout || code == errors.Canceled || code == errors.Internal):
		// The deadline cut the attempt short: say who did not answer,
		// rather than a bare "context deadline exceeded".
		return Output{}, timeoutError(ctx, call, err)
	case code == errors.Internal:
		// An executor that returned an error without a code once the
		// context ended (a closed connection): classify it by the context.
		return Output{}, errors.FromContext(ctx, OpExecute, err)
	}
	return out, err
}

// stageError returns err as an *errors.Error naming the stage, the tool and
// the backend. An error that has a code keeps it, with its retryability and
// metadata; any other gets the class [errors.CodeOf] gives it (a
// context's error is timeout or canceled), or else code.
func stageError(err error, op, toolID, backend string, code errors.Code) *errors.Error {
	out := &errors.Error{Op: op, ToolID: toolID, Backend: backend, Err: err}
	var inner *errors.Error
	switch {
	case errors.As(err, &inner):
		out.Code, out.Retryable, out.Meta = inner.Code, inner.Retryable, inner.Meta
		if inner == err && inner.Err != nil { //nolint:errorlint // identity: is the *Error the top of the chain?
			// The stage replaces the inner error's own context, which
			// would repeat it: keep its cause.
			out.Err = inner.Err
		}
		if out.Backend == "" {
			out.Backend = inner.Backend
		}
		return out
	case errors.CodeOf(err) != errors.Internal:
		// A context's error, or the standard library's ErrUnsupported:
		// its class says more than the stage's.
		code = errors.CodeOf(err)
	}
	out.Code, out.Retryable = code, code.Retryable()
	return out
}

// normalize turns an executor's output into a result: the structured
// result preferred, else JSON text parsed, else text; a tool failure
// becomes the result's ToolError.
func normalize(call *Call, out Output) *RunResult {
	result := &RunResult{Tool: call.Tool, Backend: call.Backend, Content: out.Content, Structured: jsonValue(out.Structured)}
	text := contentText(out.Content)
	if result.Structured == nil && text != "" {
		var parsed any
		if json.Unmarshal([]byte(text), &parsed) == nil {
			result.Structured = parsed
		} else {
			result.Structured = text
		}
	}
	if out.IsError {
		msg := text
		if msg == "" {
			msg = renderArgs(result.Structured)
		}
		result.ToolError = &errors.Error{
			Code: errors.Execution, Op: OpExecute, ToolID: call.ToolID(), Backend: call.Backend.Identity(),
			Err: errors.New(msg),
		}
	}
	return result
}

// contentText joins the text of MCP text contents.
func contentText(content []mcp.Content) string {
	var parts []string
	for _, c := range content {
		if t, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, t.Text)
		}
	}
	return strings.Join(parts, "\n")
}

// OutputText returns the text an output carries: its text contents, or
// else its structured result as JSON. It is what a person or a model reads
// of a result.
func OutputText(out Output) string {
	if text := contentText(out.Content); text != "" {
		return text
	}
	if out.Structured != nil {
		return renderArgs(out.Structured)
	}
	return ""
}

func (r *Runner) maskedArgs(toolID string, args map[string]any) string {
	var shown any = args
	for _, e := range r.extensions {
		shown = e.MaskArguments(toolID, shown)
	}
	return renderArgs(shown)
}

// publish sends ev to every publisher. It returns the panics of those
// that panicked, joined: one publisher's panic keeps no other from the
// event.
func (r *Runner) publish(ctx context.Context, ev Event) error {
	var panics []error
	for _, e := range r.extensions {
		if err := publishTo(ctx, e, ev); err != nil {
			panics = append(panics, err)
		}
	}
	return errors.Join(panics...)
}

// publishTo sends ev to e's publisher, and returns its panic.
func publishTo(ctx context.Context, e Extension, ev Event) (panicErr error) {
	defer recoverPanic(&panicErr)
	e.Publish(ctx, ev)
	return nil
}
