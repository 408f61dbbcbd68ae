package toolrun

import (
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
)

// Option configures a [Runner]. An option given nil (a hook, a policy, a
// validator...) changes nothing: the runner keeps its default.
type Option func(*Runner)

// WithIndex makes the runner resolve tools in idx. Without it, the runner
// looks for an index in the call's context ([toolindex.IndexFrom]), then
// asks its resolvers. A nil idx, or a nil pointer such as a nil
// *toolindex.MemoryIndex, means no index.
func WithIndex(idx toolindex.Index) Option {
	return func(r *Runner) {
		if toolindex.IsNil(idx) {
			idx = nil
		}
		r.index = idx
	}
}

// WithResolver adds a resolver, asked in order after the index for tools
// it does not know.
func WithResolver(res Resolver) Option {
	return func(r *Runner) {
		if res != nil {
			r.resolvers = append(r.resolvers, res)
		}
	}
}

// WithSelector sets how a backend is chosen among a tool's backends; the
// default is [toolindex.DefaultSelector]. It is the one place where this
// choice is configured: an index only stores the backends. A nil s keeps
// the default.
func WithSelector(s BackendSelector) Option {
	return func(r *Runner) {
		if s != nil {
			r.selector = s
		}
	}
}

// WithValidator sets the schema validator; the default is a
// [toolmodel.Validator] of the runner's own. A validator that panics
// fails the call at [OpValidateInput] or [OpValidateOutput], with code
// [errors.Internal].
func WithValidator(v toolmodel.SchemaValidator) Option {
	return func(r *Runner) {
		if v != nil {
			r.validator = v
		}
	}
}

// WithRetryPolicy sets the retry policy; the default is
// [DefaultRetryPolicy]. Use [NoRetry] to never retry. Whatever the policy,
// a call runs again only when [SafeToRepeat] allows it.
func WithRetryPolicy(p RetryPolicy) Option {
	return func(r *Runner) {
		if p != nil {
			r.retry = p
		}
	}
}

// WithIdempotentTools declares the tools whose calls are safe to run
// again after a failure that may have reached their backend, beyond those
// [IsIdempotent] recognises: the runner sets [Call.Idempotent] for the
// tools whose IDs match one of the patterns, written as in [AllowDeny]
// ("ns:name", "ns:*", globs such as "ns:get_*"). See "Retries" in the
// package documentation.
func WithIdempotentTools(patterns ...string) Option {
	return func(r *Runner) { r.idempotent = append(r.idempotent, patterns...) }
}

// WithDefaultTimeout bounds each call, retries included, that sets no
// timeout of its own ([CallOptions.Timeout]); the default is
// [DefaultCallTimeout], and d <= 0 means no bound but the context's. A
// call whose backend does not answer in time fails with code
// [errors.Timeout] and a message naming the tool, the backend and the
// timeout.
func WithDefaultTimeout(d time.Duration) Option {
	return func(r *Runner) { r.timeout = max(d, 0) }
}

// WithConcurrencyPolicy bounds how many calls run at once; by default
// there is no bound.
func WithConcurrencyPolicy(p ConcurrencyPolicy) Option {
	return func(r *Runner) { r.concurrency = p }
}

// WithExtension adds an extension to the pipeline.
func WithExtension(e Extension) Option {
	return func(r *Runner) {
		if e != nil {
			r.extensions = append(r.extensions, e)
		}
	}
}

// extensionOf returns the option adding e, the extension made of x, or
// an option that adds nothing when x is nil.
func extensionOf[T comparable](x T, e Extension) Option {
	var none T
	if x == none {
		return func(*Runner) {}
	}
	return WithExtension(e)
}

// WithHook adds an execution hook to the pipeline.
func WithHook(h ExecutionHook) Option { return extensionOf(h, hookExtension{hook: h}) }

// WithPreCall adds a pre-call hook to the pipeline.
func WithPreCall(h PreCallHook) Option { return extensionOf(h, preCallExtension{hook: h}) }

// WithPostCall adds a post-call hook to the pipeline.
func WithPostCall(h PostCallHook) Option { return extensionOf(h, postCallExtension{hook: h}) }

// WithAuthorization adds an authorization policy; every policy must allow
// a call.
func WithAuthorization(p AuthorizationPolicy) Option {
	return extensionOf(p, authExtension{policy: p})
}

// WithMasker adds an argument masker; maskers apply in turn.
func WithMasker(m ArgumentMasker) Option { return extensionOf(m, maskExtension{masker: m}) }

// WithEventPublisher adds an event publisher. There is none by default, and
// then no event is built at all.
func WithEventPublisher(p EventPublisher) Option {
	return extensionOf(p, publishExtension{publisher: p})
}

// CallOptions configures one call; its zero value asks for the defaults.
// It is plain data, so that a chain's steps and a batch's calls can be
// stored and sent as JSON; only the callbacks, which are code, are left
// out of the JSON form.
type CallOptions struct {
	// Prefer lists preferences among the tool's backends, tried in order
	// by the runner's [BackendSelector]: a hint that matches no backend is
	// ignored. Set Backend ([toolmodel.ToolBackend.Identity]) or Kind.
	Prefer []SelectHint `json:"prefer,omitempty"`
	// Timeout bounds the call, retries included, instead of the runner's
	// default ([WithDefaultTimeout]); zero or less leaves the default. An
	// expired call fails with code timeout. Its JSON form is a duration
	// string such as "30s".
	Timeout toolmodel.Duration `json:"timeout,omitempty"`
	// Metadata is passed to hooks, policies and executors in
	// [Call.Metadata].
	Metadata map[string]string `json:"metadata,omitempty"`
	// SkipValidation skips the validation of the call's arguments and
	// result, for callers that have validated them already.
	SkipValidation bool `json:"skipValidation,omitempty"`
	// OnProgress, when set, receives the backend's progress
	// notifications.
	OnProgress func(Progress) `json:"-"`
	// OnChunk, when set, receives the partial results of a streaming call
	// as they arrive; see [Call.OnChunk].
	OnChunk func(any) `json:"-"`
	// Input, when set, says that the caller can answer the tool's
	// requests for input: the call may then end with
	// [RunResult.InputRequired], which the caller answers by making the
	// call again with Input holding its answers. It is empty on a first
	// attempt.
	Input *Input `json:"-"`
}

// callConfig is a call's options as the pipeline uses them.
type callConfig struct {
	CallOptions
	// repeatable, when set, receives whether the call may run again
	// ([SafeToRepeat]), for the retry rounds of a batch.
	repeatable *bool
}

// newCallConfig returns the configuration of a call given at most one
// CallOptions, the optional last argument of [Runner.Run].
func newCallConfig(opts []CallOptions) (callConfig, error) {
	switch len(opts) {
	case 0:
		return callConfig{}, nil
	case 1:
		return callConfig{CallOptions: opts[0]}, nil
	}
	return callConfig{}, errors.Errorf(errors.InvalidArgument, "%d CallOptions given for one call; pass at most one", len(opts))
}
