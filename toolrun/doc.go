// Package toolrun runs tools by ID on whichever backend serves them: a Go
// function, an MCP server, an HTTP API, a gRPC service, or a provider of
// the caller's own.
//
// A [Runner] resolves a tool (in a toolindex.Index given with [WithIndex]
// or carried in the context, then in [Resolver]s), chooses one of its
// backends (a toolindex.BackendSelector, guided by [PreferBackend] and
// [PreferKind]), and runs it through one pipeline:
//
//	resolve → select backend → authorize → before-execution hooks →
//	pre-call hooks → validate input → execute (retry policy, timeout) →
//	normalize the result → validate output → post-call hooks →
//	after-execution hooks, with start and result events around execution.
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
// Beyond [Runner.Run]: [Runner.RunStream] delivers progress and partial
// results on a channel, [Runner.RunChain] runs calls in sequence passing
// each result to the next, and [Runner.RunBatch] runs independent calls in
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
// [RetryPolicy] ([ExponentialBackoff] by default), [ConcurrencyPolicy]
// ([ConcurrencyLimit]) and [EventPublisher] ([SlogPublisher]). Users who
// prefer one type can implement [Extension] by embedding [BaseExtension]
// and overriding a few methods; both styles run in the same pipeline.
//
// Hooks work on a deep copy of the call's arguments and metadata, made only
// when there are hooks: whatever they change, at any depth, the caller's
// maps stay as they were. Results are JSON values (map[string]any, []any,
// string, float64, bool, nil) whatever the backend: a Go function's
// slices, integers and structs are converted, so the next step of a chain
// receives what it would from an MCP server or an HTTP API.
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
