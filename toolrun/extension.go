package toolrun

import (
	"context"
)

// ExecutionHook observes every run: BeforeExecution is called once the
// call is resolved and authorized, before pre-call hooks and validation;
// AfterExecution is called at the end, with the result or the error.
//
// BeforeExecution may return a derived context for the rest of the call,
// or an error that rejects the call. An error from AfterExecution replaces
// a nil run error (a post-check that fails the run); it is joined to a
// non-nil one.
//
// The runner calls both methods from the goroutine of each call, and
// calls of different runs overlap: implementations must be safe for
// concurrent use.
//
// A panic in BeforeExecution fails the call at [OpBeforeExec], as an
// error would. A panic in AfterExecution fails the call at [OpAfterExec]
// but, unlike an error, does not take its result away: the result is
// final by then, and the caller gets both (see "Panics" in the package
// documentation). Either way the other hooks still run; those after it
// see the error, and may see both a result and an error.
type ExecutionHook interface {
	BeforeExecution(ctx context.Context, toolID string, args map[string]any) (context.Context, error)
	AfterExecution(ctx context.Context, toolID string, result *RunResult, err error) error
}

// PreCallHook may inspect and rewrite a call before its arguments are
// validated and it is executed: inject credentials from the session in the
// context, add defaults, or reject the call with an error. The call is
// the hook's own to change during PreCall (a deep copy of the caller's
// arguments); it must not keep it. Implementations must be safe for
// concurrent use: the calls of concurrent runs overlap. A panic in
// PreCall fails the call at [OpPreCall] with code [errors.Internal],
// before it is executed.
type PreCallHook interface {
	PreCall(ctx context.Context, call *Call) error
}

// PreCallFunc adapts a function to the [PreCallHook] interface.
type PreCallFunc func(ctx context.Context, call *Call) error

// PreCall calls f(ctx, call).
func (f PreCallFunc) PreCall(ctx context.Context, call *Call) error { return f(ctx, call) }

// PostCallHook may inspect and rewrite a result after it has been
// normalized and validated: redact fields, add annotations, or turn it
// into an error. It must not keep the call or the result after PostCall
// returns. Implementations must be safe for concurrent use: the calls of
// concurrent runs overlap. A panic in PostCall fails the call at
// [OpPostCall] with code [errors.Internal] and withholds the result, as
// an error does: the hook may have left it half rewritten.
type PostCallHook interface {
	PostCall(ctx context.Context, call *Call, result *RunResult) error
}

// PostCallFunc adapts a function to the [PostCallHook] interface.
type PostCallFunc func(ctx context.Context, call *Call, result *RunResult) error

// PostCall calls f(ctx, call, result).
func (f PostCallFunc) PostCall(ctx context.Context, call *Call, result *RunResult) error {
	return f(ctx, call, result)
}

// AuthorizationPolicy decides whether a call may run. It sees the resolved
// call (tool, chosen backend, arguments, metadata) and returns nil to
// allow it or an error, typically of code [errors.PermissionDenied], to
// refuse it. See [AllowDeny] for lists of tool patterns. It must not
// modify the call. Implementations must be safe for concurrent use: the
// calls of concurrent runs overlap.
//
// The runner also asks a policy whether a tool may run at all, for
// [Runner.Authorize], with a call whose Args is nil (a call that runs
// always has non-nil Args): a server hides the tools refused then. A
// policy that judges arguments allows such a call, and judges the
// arguments when the call runs.
//
// A panic in Authorize refuses the call, with code [errors.Internal].
type AuthorizationPolicy interface {
	Authorize(ctx context.Context, call *Call) error
}

// AuthorizationFunc adapts a function to the [AuthorizationPolicy]
// interface.
type AuthorizationFunc func(ctx context.Context, call *Call) error

// Authorize calls f(ctx, call).
func (f AuthorizationFunc) Authorize(ctx context.Context, call *Call) error { return f(ctx, call) }

// Extension bundles every hook of the pipeline in one type, for users who
// prefer to write one type and override a few methods: embed
// [BaseExtension], whose methods do nothing, and define the methods you
// need. The runner treats an Extension and the separate hooks alike: they
// all run in the one pipeline, in the order they were given to [New].
// Each method follows the contract of the interface it comes from,
// panics included; implementations must be safe for concurrent use.
type Extension interface {
	ExecutionHook
	PreCallHook
	PostCallHook
	AuthorizationPolicy
	// MaskArguments returns what events and logs may show of a call's
	// arguments; see [ArgumentMasker]. The masks of several extensions
	// apply in turn, and what they hide is also removed from the messages
	// of errors (see [SecretLister], which an Extension may implement).
	MaskArguments(toolID string, args any) any
	// Publish receives the runner's events; see [EventPublisher].
	Publish(ctx context.Context, event Event)
}

// BaseExtension implements [Extension] with methods that do nothing. Embed
// it in an extension of your own and override what you need.
type BaseExtension struct{}

var _ Extension = BaseExtension{}

// BeforeExecution returns ctx unchanged.
func (BaseExtension) BeforeExecution(ctx context.Context, _ string, _ map[string]any) (context.Context, error) {
	return ctx, nil
}

// AfterExecution returns nil.
func (BaseExtension) AfterExecution(context.Context, string, *RunResult, error) error { return nil }

// PreCall returns nil.
func (BaseExtension) PreCall(context.Context, *Call) error { return nil }

// PostCall returns nil.
func (BaseExtension) PostCall(context.Context, *Call, *RunResult) error { return nil }

// Authorize allows every call.
func (BaseExtension) Authorize(context.Context, *Call) error { return nil }

// MaskArguments returns args unchanged.
func (BaseExtension) MaskArguments(_ string, args any) any { return args }

// Publish does nothing.
func (BaseExtension) Publish(context.Context, Event) {}

// The adapters below give each separate hook the shape of an Extension, so
// that the pipeline has one list to run.

type hookExtension struct {
	BaseExtension
	hook ExecutionHook
}

func (e hookExtension) BeforeExecution(ctx context.Context, toolID string, args map[string]any) (context.Context, error) {
	return e.hook.BeforeExecution(ctx, toolID, args)
}

func (e hookExtension) AfterExecution(ctx context.Context, toolID string, result *RunResult, err error) error {
	return e.hook.AfterExecution(ctx, toolID, result, err)
}

type preCallExtension struct {
	BaseExtension
	hook PreCallHook
}

func (e preCallExtension) PreCall(ctx context.Context, call *Call) error {
	return e.hook.PreCall(ctx, call)
}

type postCallExtension struct {
	BaseExtension
	hook PostCallHook
}

func (e postCallExtension) PostCall(ctx context.Context, call *Call, result *RunResult) error {
	return e.hook.PostCall(ctx, call, result)
}

type authExtension struct {
	BaseExtension
	policy AuthorizationPolicy
}

func (e authExtension) Authorize(ctx context.Context, call *Call) error {
	return e.policy.Authorize(ctx, call)
}

type maskExtension struct {
	BaseExtension
	masker ArgumentMasker
}

func (e maskExtension) MaskArguments(toolID string, args any) any {
	return e.masker.Mask(toolID, args)
}

// Secrets asks the masker when it lists its secrets, and otherwise
// compares the arguments before and after masking.
func (e maskExtension) Secrets(toolID string, args any) []string {
	if l, ok := e.masker.(SecretLister); ok {
		return l.Secrets(toolID, args)
	}
	return appendHidden(nil, args, e.masker.Mask(toolID, args))
}

type publishExtension struct {
	BaseExtension
	publisher EventPublisher
}

func (e publishExtension) Publish(ctx context.Context, event Event) {
	e.publisher.Publish(ctx, event)
}
