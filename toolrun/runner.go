package toolrun

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// Resolver finds a tool and its backends by ID, for tools that are not in
// an index. It returns an error of code [errors.NotFound] for a tool it
// does not know, so that the next resolver is asked. The runner calls it
// from the goroutine of each call: implementations must be safe for
// concurrent use, and return a tool and backends that the caller may
// keep (not shared state).
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

func (r *Runner) run(ctx context.Context, toolID string, args map[string]any, cfg *callConfig) (result *RunResult, err error) {
	start := time.Now()
	timeout := r.timeout
	if cfg.Timeout > 0 {
		timeout = time.Duration(cfg.Timeout)
	}
	if timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeoutCause(ctx, timeout, &callTimeout{d: timeout})
		defer cancel()
	}
	// For a batch's retry rounds: a call may run again when it failed
	// before its execution, or as the rule allows.
	var call *Call
	var executed bool
	var executeErr error
	if cfg.repeatable != nil {
		defer func() { *cfg.repeatable = !executed || SafeToRepeat(call, executeErr) }()
	}

	tool, backends, err := r.resolve(ctx, toolID)
	if err != nil {
		return nil, stageError(err, OpResolve, toolID, "", errors.NotFound)
	}
	backend, err := r.selector.Select(ctx, &tool, backends, cfg.Prefer)
	if err != nil {
		return nil, stageError(err, OpSelectBackend, toolID, "", errors.NotFound)
	}
	call = &Call{
		Tool:       tool,
		Backend:    backend,
		Args:       args,
		Metadata:   cfg.Metadata,
		OnProgress: cfg.OnProgress,
		OnChunk:    cfg.OnChunk,
	}
	if _, ok := matchAny(r.idempotent, toolID); ok {
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
	identity := backend.Identity()
	// Every error leaves through fail, which removes from its message
	// what the maskers hide in the arguments as they are at that stage
	// (with a pre-call hook's injected credentials once it has run).
	fail := func(err error, op string, code errors.Code) error {
		e := stageError(err, op, toolID, identity, code)
		if !r.masks {
			return e
		}
		return r.redactorFor(toolID, call.Args).coded(e)
	}

	for _, e := range r.extensions {
		if err := e.Authorize(ctx, call); err != nil {
			return nil, fail(err, OpAuthorize, errors.PermissionDenied)
		}
	}
	for _, e := range r.extensions {
		if ctx, err = e.BeforeExecution(ctx, toolID, call.Args); err != nil {
			return nil, fail(err, OpBeforeExec, errors.PermissionDenied)
		}
	}
	// The result event goes out last, once the after-execution hooks have
	// had their say; it is sent only for calls that were started.
	var shownArgs string
	started := false
	attempts := 0
	if r.publishes {
		defer func() {
			if !started {
				return
			}
			ev := Event{Kind: EventResult, ToolID: toolID, Backend: identity, Args: shownArgs, Metadata: call.Metadata,
				Time: time.Now(), Duration: time.Since(start), Attempts: attempts, Err: err}
			if result != nil {
				ev.ToolError = result.ToolError != nil
			}
			r.publish(ctx, ev)
		}()
	}
	// From here on, the after-execution hooks see every outcome.
	if len(r.extensions) > 0 {
		defer func() {
			for _, e := range r.extensions {
				if hookErr := e.AfterExecution(ctx, toolID, result, err); hookErr != nil {
					err = errors.Join(err, fail(hookErr, OpAfterExec, errors.Internal))
					result = nil
				}
			}
		}()
	}
	for _, e := range r.extensions {
		if err := e.PreCall(ctx, call); err != nil {
			return nil, fail(err, OpPreCall, errors.InvalidArgument)
		}
	}
	if !cfg.SkipValidation {
		if err := r.validator.ValidateInput(&call.Tool, call.Args); err != nil {
			return nil, fail(err, OpValidateInput, errors.Validation)
		}
	}

	if r.publishes {
		shownArgs = r.maskedArgs(toolID, call.Args)
		started = true
		r.publish(ctx, Event{Kind: EventStart, ToolID: toolID, Backend: identity, Args: shownArgs, Metadata: call.Metadata, Time: time.Now()})
	}

	var out Output
	executed = true
	out, attempts, err = r.execute(ctx, call)
	executeErr = err
	if err != nil {
		return nil, fail(err, OpExecute, errors.Unavailable)
	}
	result = normalize(call, out)
	result.Attempts = attempts
	if result.ToolError != nil && r.masks {
		// A tool's failure message may echo its arguments, secrets included.
		result.ToolError = r.redactorFor(toolID, call.Args).coded(result.ToolError)
	}
	if result.ToolError == nil && !cfg.SkipValidation && call.Tool.OutputSchema != nil && result.Structured != nil {
		if err := r.validator.ValidateOutput(&call.Tool, result.Structured); err != nil {
			return nil, fail(err, OpValidateOutput, errors.Validation)
		}
	}
	for _, e := range r.extensions {
		if err := e.PostCall(ctx, call, result); err != nil {
			return nil, fail(err, OpPostCall, errors.Internal)
		}
	}
	result.Duration = time.Since(start)
	return result, nil
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
// backend. Its cost is a lookup of the tool and the policies' own.
func (r *Runner) Authorize(ctx context.Context, toolID string, opts ...CallOptions) error {
	cfg, err := newCallConfig(opts)
	if err != nil {
		return stageError(err, OpResolve, toolID, "", errors.InvalidArgument)
	}
	tool, backends, err := r.resolve(ctx, toolID)
	if err != nil {
		return stageError(err, OpResolve, toolID, "", errors.NotFound)
	}
	backend, err := r.selector.Select(ctx, &tool, backends, cfg.Prefer)
	if err != nil {
		return stageError(err, OpSelectBackend, toolID, "", errors.NotFound)
	}
	call := &Call{Tool: tool, Backend: backend, Metadata: maps.Clone(cfg.Metadata)}
	for _, e := range r.extensions {
		if err := e.Authorize(ctx, call); err != nil {
			return stageError(err, OpAuthorize, toolID, backend.Identity(), errors.PermissionDenied)
		}
	}
	return nil
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
// when the rule of [SafeToRepeat] allows it.
func (r *Runner) execute(ctx context.Context, call *Call) (Output, int, error) {
	executor, err := r.executors.Executor(call.Backend.Kind)
	if err != nil {
		var e *errors.Error
		if errors.As(err, &e) {
			_ = MarkNotSent(e) // marks e, in err's chain
		}
		return Output{}, 0, err
	}
	for attempt := 1; ; attempt++ {
		out, err := r.executeOnce(ctx, executor, call)
		if err == nil {
			return out, attempt, nil
		}
		if ctx.Err() != nil || !SafeToRepeat(call, err) {
			return Output{}, attempt, err
		}
		delay, again := r.retry.Backoff(attempt, err)
		if !again {
			return Output{}, attempt, err
		}
		timer := time.NewTimer(delay)
		select {
		case <-timer.C:
		case <-ctx.Done():
			timer.Stop()
			return Output{}, attempt, errors.FromContext(ctx, OpExecute, fmt.Errorf("last attempt: %w", err))
		}
	}
}

func (r *Runner) executeOnce(ctx context.Context, executor Executor, call *Call) (Output, error) {
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
	out, err := executor.Execute(ctx, call)
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

func (r *Runner) publish(ctx context.Context, ev Event) {
	for _, e := range r.extensions {
		e.Publish(ctx, ev)
	}
}
