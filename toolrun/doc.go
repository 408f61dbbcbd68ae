// Package toolrun runs tools by ID on whichever backend serves them: a Go
// function, an MCP server, an HTTP API, a gRPC service, or a provider of
// the caller's own.
//
// A [Runner] resolves a tool (in a toolindex.Index given with [WithIndex]
// or carried in the context, then in [Resolver]s), chooses one of its
// backends (its [BackendSelector], [WithSelector], guided by the call's
// [CallOptions.Prefer]: the runner is the one place where that choice is
// configured), and runs it through one pipeline:
//
//	resolve → select backend → authorize → before-execution hooks →
//	pre-call hooks → validate input → execute (retry policy, timeout) →
//	normalize the result → validate output → post-call hooks →
//	after-execution hooks, with start and result events around execution
//	(a refused event for a call of a tool found but stopped before it).
//
// Every failure is an *errors.Error whose Op names the stage ([OpResolve],
// [OpValidateInput], [OpExecute], ...), with the tool, the backend, the
// right code and whether a retry may help. A tool that ran and reported a
// failure is not a Go error: its [RunResult] carries a ToolError.
//
//	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{
//		toolmodel.BackendLocal: local,
//		toolmodel.BackendMCP:   mcpManager,
//	}), toolrun.WithIndex(idx))
//	res, err := runner.Run(ctx, "github:create_issue", map[string]any{"title": "Crash"})
//
// Per-call options are a plain struct, [CallOptions] (preferred backends,
// timeout, metadata, skipping validation, progress and chunk callbacks),
// so that a chain's steps and a batch's calls are data that can be stored
// and sent as JSON:
//
//	res, err := runner.Run(ctx, "github:create_issue", args, toolrun.CallOptions{
//		Prefer:  []toolrun.SelectHint{{Kind: toolmodel.BackendMCP}},
//		Timeout: toolmodel.Duration(10 * time.Second),
//	})
//
// Beyond [Runner.Run]: [Runner.RunStream] delivers progress and partial
// results on a channel, [Runner.RunChain] runs calls in sequence passing
// each result, or a part of it ([PreviousRef]), to the next, and [Runner.RunBatch] runs independent calls in
// parallel with a choice of error handling ([BatchMode]).
//
// # Extension points
//
// Every extension point is optional and costs nothing when unused:
// [ExecutionHook], [PreCallHook] (rewrite or reject a call, for example to
// inject credentials), [PostCallHook] (rewrite a result, for example to
// redact it), [AuthorizationPolicy] ([AllowDeny] for tool patterns),
// [ArgumentMasker] ([SecretMasker] hides secrets from events and logs;
// what a masker hides is also removed from the messages of the errors the
// runner returns, see [SecretLister]),
// [RetryPolicy] ([ExponentialBackoff] by default, within the rule of
// [SafeToRepeat], see Retries below), [ConcurrencyPolicy]
// ([ConcurrencyLimit]) and [EventPublisher] ([SlogPublisher]). Users who
// prefer one type can implement [Extension] by embedding [BaseExtension]
// and overriding a few methods; both styles run in the same pipeline. A
// panic in any of them fails the call it belongs to instead of the
// program (see Panics below).
//
// Hooks work on a deep copy of the call's arguments and metadata, made only
// when there are hooks: whatever they change, at any depth, the caller's
// maps stay as they were. Results are JSON values (map[string]any, []any,
// string, float64, bool, nil) whatever the backend: a Go function's
// slices, integers and structs are converted, so the next step of a chain
// receives what it would from an MCP server or an HTTP API.
//
// # Errors from a backend
//
// An error from a backend is converted where it is received, once: the
// executor turns the backend's failure into an *errors.Error with the
// right code and Retryable (mcpexec decodes a JSON-RPC error with
// [errors.FromWire], httpexec a status with [errors.FromHTTP], grpcexec
// maps a gRPC status), because only the executor knows the protocol; and
// the end of the call's context, wherever it is noticed, becomes an error
// through [errors.FromContext] (timeout for an expired deadline, canceled
// otherwise). The runner then only adds what it knows: the stage, tool
// and backend (the Op, ToolID and Backend of the error it returns, which
// keeps the executor's code, retryability and metadata), the name of the
// backend that did not answer before the call's deadline, and, with an
// [ArgumentMasker], the removal of hidden values from the message. A
// server that sends the error on (toolserver) encodes that one error with
// [errors.ToWire].
//
// # Retries
//
// This is the one rule of when a call runs again, [SafeToRepeat]; the
// runner's retries, [Runner.RunBatch]'s retry rounds ([BatchRetry]) and
// executors that resend a request themselves (mcpexec, after a broken
// session) all apply it, and no [RetryPolicy] overrides it. A call that
// failed may run again only when:
//
//   - its request provably never reached the backend: the executor
//     marked the failure with [MarkNotSent] (a refused connection, a host
//     name that does not resolve, an MCP session known to be closed
//     before the request was written, a gRPC call that failed before its
//     headers left, arguments that could not be encoded); or
//   - running it again cannot repeat a side effect ([IsIdempotent]): the
//     tool's annotations say it only reads or is idempotent (MCP's
//     readOnlyHint and idempotentHint, which the openapi package sets for
//     GET, HEAD, OPTIONS, PUT and DELETE operations and grpcexec's import
//     for methods whose idempotency_level is NO_SIDE_EFFECTS or
//     IDEMPOTENT), its backend is an HTTP request of one of those methods,
//     or the call is declared idempotent: [Call.Idempotent], which the
//     runner sets for the tools of [WithIdempotentTools] and which a
//     pre-call hook may set.
//
// Anything else runs once: an MCP tool annotated destructive whose server
// crashed during the call, a POST answered 500, a call that timed out.
// Its error keeps its code and Retryable flag, so that the caller may
// still decide to try again. Within the rule, the [RetryPolicy] decides
// whether a failure is worth retrying and when: the default,
// [DefaultRetryPolicy], makes up to 3 attempts of retryable errors
// ([errors.IsRetryable]), honouring a delay the backend asked for.
//
// How many times a call can run, in all:
//
//   - [Runner.Run], [Runner.RunStream] and each step of [Runner.RunChain]
//     call the executor at most as many times as the [RetryPolicy] allows
//     (3 under the defaults), within the call's timeout;
//   - [Runner.RunBatch] runs each call once ([BatchContinue],
//     [BatchAbortOnError]); with [BatchRetry], each retry round (1 by
//     default, [WithRetryRounds]) runs a failed call again as Run does,
//     so a call gets at most (rounds+1) × the policy's attempts: 6 under
//     the defaults;
//   - within one of those executions, mcpexec sends the request a second
//     time, once, when the session broke and the rule above allows it;
//     the other built-in executors send it once. So an MCP server may
//     receive a call at most twice per execution: 6 times per Run and 12
//     per batch call with BatchRetry under the defaults, and only when
//     the tool is idempotent or the request never reached it.
//
// [RunResult.Attempts] counts the executions of the run that produced
// the result.
//
// Every call is bounded, retries included: by its own timeout
// ([CallOptions.Timeout]), else by the runner's ([WithDefaultTimeout], by default
// [DefaultCallTimeout], 60 seconds). A backend that does not answer in
// time fails the call with code [errors.Timeout] and a message naming the
// tool, the backend and the timeout, such as
//
//	execute: tool "fs:read" (backend mcp:fs): no answer from MCP server "fs" within 1m0s
//
// A [LocalFunc] is bounded through its context, which it must honour: it
// runs on the caller's goroutine. An executor that panics (a local
// function, a [Provider], an [ExecutorFunc]) fails its attempt with code
// [errors.Internal] (see Panics); like any internal error, that is
// retried only by a [RetryPolicy] that retries internal errors (the
// default does not), within the rule above.
//
// # Panics
//
// A panic of the code the runner is given never reaches the caller, nor
// ends the program from a goroutine of [Runner.RunBatch] or
// [Runner.RunStream]: it fails the call it happened in, with an
// *errors.Error of code [errors.Internal], not retryable, whose Op names
// the stage and whose message names the tool, the backend and the panic
// value (which it wraps when it is an error):
//
//	pre_call: tool "github:create_issue" (backend mcp:github): panic: assignment to entry in nil map
//
// That holds for every extension point the runner calls, given alone or
// in an [Extension]: the index and each [Resolver] ([OpResolve]); the
// [BackendSelector] ([OpSelectBackend]); [AuthorizationPolicy]
// ([OpAuthorize]); [ExecutionHook] ([OpBeforeExec], [OpAfterExec]);
// [PreCallHook] ([OpPreCall]); the schema validator ([OpValidateInput],
// [OpValidateOutput]); the [Executor] ([LocalFunc], [Provider] and
// [ExecutorFunc] included), the [ConcurrencyPolicy], the [RetryPolicy],
// the [ArgumentMasker] or [SecretLister] asked about a tool's failure,
// and the call's [CallOptions.OnProgress] and OnChunk ([OpExecute]);
// [PostCallHook] ([OpPostCall]); and an [EventPublisher], or a masker
// asked about an event's arguments ([OpPublish]). [Runner.Authorize]
// treats the panics of the stages it runs the same way. A panic of the
// executor or of the concurrency policy is the error of its attempt, for
// the [RetryPolicy] to judge; any other ends the call.
//
// What the caller gets depends on how far the call had come:
//
//   - Before the execution, the call fails as if the stage had returned
//     that error. Nothing ran: [BatchRetry] may run it again.
//   - From the execution to the post-call hooks, the result is not final
//     yet, and the call fails without one, as an error at that stage
//     would: a post-call hook that did not finish may have left the
//     result half rewritten, with a secret it was to redact still in it.
//     The Op ([OpExecute], [OpValidateOutput], [OpPostCall]) tells that
//     the tool may have run, the result event reports the error and the
//     attempts made, and [BatchRetry] runs the call again only as
//     [SafeToRepeat] allows.
//   - Once the result is final, in an after-execution hook or a publisher
//     of the result event, the call fails but keeps its result:
//     [Runner.Run] returns both the result and the error (joined to the
//     run's own error, if it had one), and so do the Result and Err of a
//     [BatchResult], a [StepResult] and the last [StreamEvent]. The tool
//     ran, and its result is there to say what it did; a caller that
//     sees the error does not pass the result on as an answer, and a
//     chain step that failed this way passes nothing to the next. The
//     other after-execution hooks and publishers still run and see the
//     error, except for the panic of a publisher of the result event,
//     which comes after that event.
//
// A masker that panics while the runner removes secrets from an error
// takes that error's place, since what the error may show cannot be
// known. A call's callback that panicked is not called again during the
// call; the runner recovers its panic even on a goroutine of the
// executor's own, as mcpexec delivers progress. Any other code an
// executor runs on goroutines of its own is the executor's to guard.
//
// # How to plug in your own backend
//
// Implement [Executor] for a new [toolmodel.BackendKind] and register it
// in the [ExecutorRegistry] given to [New]; its contract (errors, context,
// tool failures, progress) is on the interface, and the toolruntest
// package checks it. The built-in executors are registered the same way:
// [LocalExecutor] for Go functions ([NewLocalTool] derives a tool's schema
// from a Go type), [ProviderExecutor] for [Provider]s, and the mcpexec,
// httpexec and grpcexec subpackages for MCP servers, HTTP APIs (with
// OpenAPI import in the openapi package) and gRPC services.
package toolrun
