package toolrun

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// Executor runs tools on one kind of backend. It is the extension point for
// new backends: implement it and register it in an [ExecutorRegistry] under
// its [toolmodel.BackendKind].
//
// Execute runs call.Tool on call.Backend with call.Args, which the runner
// has already authorized and validated. Implementations:
//
//   - are safe for concurrent use;
//   - must not keep or modify the call after Execute returns;
//   - return when ctx is done, with an error of code [errors.Timeout] for
//     an expired deadline or [errors.Canceled] for a cancellation;
//   - report a tool's own failure (an MCP result with isError, an error
//     the backend's protocol marks as the tool's answer rather than a
//     failure to reach it) as an Output with IsError set, not as a Go
//     error;
//   - report failures to reach or use the backend as *errors.Error values
//     with the right code and Retryable (a refused connection is
//     [errors.Unavailable] and retryable, a bad configuration is
//     [errors.InvalidArgument]), marking with [MarkNotSent] those that
//     provably happened before the request could reach the backend, so
//     that the runner may retry them whatever the tool;
//   - never send a request again on their own once it may have reached
//     the backend, unless [SafeToRepeat] allows it;
//   - call call.OnProgress and call.OnChunk, when set, from any goroutine
//     but never after Execute returns.
//
// A panic in Execute, on the goroutine that called it, fails that attempt
// with code [errors.Internal] and the panic value in the message, as if
// Execute had returned that error; so does a panic of the call's callbacks,
// wherever the executor runs them. An executor that runs other code on
// goroutines of its own recovers its panics there (see "Panics" in the
// package documentation).
//
// An executor that holds resources (connections, sessions, processes)
// also implements [io.Closer]; [ExecutorRegistry.Close] closes it.
type Executor interface {
	Execute(ctx context.Context, call *Call) (Output, error)
}

// ExecutorFunc adapts a function to the [Executor] interface. A panic of
// the function fails the attempt, as an [Executor]'s does.
type ExecutorFunc func(ctx context.Context, call *Call) (Output, error)

// Execute calls f(ctx, call).
func (f ExecutorFunc) Execute(ctx context.Context, call *Call) (Output, error) { return f(ctx, call) }

// Call is one execution of a tool on a backend, as an [Executor] sees it.
// Pre-call hooks see it too, and may change Args and Metadata.
type Call struct {
	// Tool is the tool's definition.
	Tool toolmodel.Tool
	// Backend is the backend chosen to run it.
	Backend toolmodel.ToolBackend
	// Args are the call's arguments, a JSON object.
	Args map[string]any
	// Metadata is free data from the caller ([CallOptions.Metadata]), for
	// hooks, policies and executors.
	Metadata map[string]string
	// OnProgress, when set, receives the backend's progress notifications.
	// The runner guards it and OnChunk: a panic of the caller's callback
	// fails the call once Execute returns, and the callback is not called
	// again, whichever goroutine called it.
	OnProgress func(Progress)
	// OnChunk, when set, receives the partial results of a streaming call
	// (the messages of a server-streaming gRPC method, for instance) as
	// they arrive. When it is nil, an executor gathers them in its Output.
	OnChunk func(any)
	// Input, when set, says that the caller can answer an
	// [InputRequired] (see [CallOptions.Input]); on a retry, it carries
	// the caller's answers. An executor must not return one when it is
	// nil.
	Input *Input
	// Idempotent declares that running the call again has no further
	// effect, whatever the tool's annotations say: the runner sets it for
	// the tools of [WithIdempotentTools], and a pre-call hook may set it.
	// [IsIdempotent] gives the whole rule.
	Idempotent bool
}

// ToolID returns the ID of the called tool.
func (c *Call) ToolID() string { return c.Tool.ID() }

// Progress reports how far a call has come. Progress increases with each
// notification; Total is 0 when unknown.
type Progress struct {
	Progress float64 `json:"progress"`
	Total    float64 `json:"total,omitempty"`
	Message  string  `json:"message,omitempty"`
}

// Output is what an [Executor] returns for a call that reached its tool:
// the one form of a result, whatever the backend. An MCP result maps to it
// field for field (structuredContent, content, isError).
type Output struct {
	// Structured is the result as a JSON value (map[string]any, []any,
	// string, float64, bool or nil), when the backend gives one.
	Structured any
	// Content is the result as MCP content, when the backend gives it.
	Content []mcp.Content
	// IsError reports that the tool ran and failed; Content or Structured
	// say why.
	IsError bool
	// InputRequired, when set, says that the tool needs input from the
	// caller before it can finish; the other fields are then empty.
	InputRequired *InputRequired
}

// ExecutorRegistry maps backend kinds to executors. The zero value is
// empty and ready to use; it is safe for concurrent use.
type ExecutorRegistry struct {
	mu        sync.RWMutex
	executors map[toolmodel.BackendKind]Executor
}

// NewExecutorRegistry returns a registry holding the given executors.
func NewExecutorRegistry(executors map[toolmodel.BackendKind]Executor) *ExecutorRegistry {
	r := &ExecutorRegistry{}
	for kind, e := range executors {
		r.Register(kind, e)
	}
	return r
}

// Register makes e the executor of kind, replacing any earlier one; a nil
// e removes it.
func (r *ExecutorRegistry) Register(kind toolmodel.BackendKind, e Executor) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if e == nil {
		delete(r.executors, kind)
		return
	}
	if r.executors == nil {
		r.executors = map[toolmodel.BackendKind]Executor{}
	}
	r.executors[kind] = e
}

// Executor returns the executor of kind. Without one, it returns an error
// of code [errors.Unsupported].
func (r *ExecutorRegistry) Executor(kind toolmodel.BackendKind) (Executor, error) {
	r.mu.RLock()
	e, ok := r.executors[kind]
	r.mu.RUnlock()
	if !ok {
		return nil, errors.Errorf(errors.Unsupported, "no executor for backend kind %q", kind)
	}
	return e, nil
}

// Kinds returns the registered kinds, sorted.
func (r *ExecutorRegistry) Kinds() []toolmodel.BackendKind {
	r.mu.RLock()
	defer r.mu.RUnlock()
	kinds := make([]toolmodel.BackendKind, 0, len(r.executors))
	for k := range r.executors {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// Close closes every registered executor that implements [io.Closer] and
// joins their errors.
func (r *ExecutorRegistry) Close() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var errs []error
	for kind, e := range r.executors {
		if c, ok := e.(io.Closer); ok {
			if err := c.Close(); err != nil {
				errs = append(errs, fmt.Errorf("close %s executor: %w", kind, err))
			}
		}
	}
	return errors.Join(errs...)
}
