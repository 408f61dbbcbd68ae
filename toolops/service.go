package toolops

import (
	"context"
	"crypto/cipher"
	"maps"

	"go.opentelemetry.io/otel/metric"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolrun"
)

// The names of the operations: the Op of the errors they return.
const (
	OpSearch     = "search"
	OpNamespaces = "namespaces"
	OpDescribe   = "describe"
	OpExamples   = "examples"
	OpDeclare    = "declare"
	OpRun        = "run"
	OpChain      = "chain"
	// OpState is the op of the errors of [Service.SealState] and
	// [Service.OpenState].
	OpState = "state"
)

// Service is the catalogue's operations as offered to a caller: over the
// tools of an index, documented by a documentation store, run by a
// runner whose authorization policies decide what each caller is offered
// (see the package documentation).
//
// A Service is safe for concurrent use. Its methods take the caller from
// the context ([WithCaller]); they return values the caller owns, and
// errors of the errors module whose Op names the operation.
type Service struct {
	index     toolindex.Index
	docs      tooldocs.Describer
	runner    *toolrun.Runner
	limits    Limits
	upstreams func() []Upstream
	stateKey  []byte
	sealer    cipher.AEAD
	// meterProvider and searchDurations measure the operations
	// ([WithMeterProvider]).
	meterProvider   metric.MeterProvider
	searchDurations metric.Float64Histogram
}

// Option configures a [Service].
type Option func(*Service)

// WithLimits sets the limits of the operations; zero fields keep the
// values of [DefaultLimits]. [New] refuses limits that [Limits.Validate]
// refuses.
func WithLimits(l Limits) Option {
	return func(s *Service) { s.limits = l }
}

// WithUpstreams makes the service report the state of the sources of its
// tools ([Service.Upstreams]) as fn returns it, and tell a caller asking
// for an unknown tool while some of them still connect that the tool may
// be one of theirs. fn is called on each such answer: it must be safe for
// concurrent use and quick.
func WithUpstreams(fn func() []Upstream) Option {
	return func(s *Service) { s.upstreams = fn }
}

// New returns the operations over the tools of idx, documented by docs
// and run by runner. docs may be nil: the tools are then documented from
// their definitions in idx alone. It fails with code
// [errors.InvalidArgument] when idx or runner is nil or the limits are
// invalid.
func New(idx toolindex.Index, docs tooldocs.Describer, runner *toolrun.Runner, opts ...Option) (*Service, error) {
	if idx == nil || runner == nil {
		return nil, errors.Opf("toolops.New", errors.InvalidArgument, "an index and a runner are required")
	}
	s := &Service{index: idx, docs: docs, runner: runner}
	for _, opt := range opts {
		opt(s)
	}
	if err := s.limits.Validate(); err != nil {
		return nil, errors.WithOp("toolops.New", err)
	}
	switch n := len(s.stateKey); {
	case n == 0:
		s.stateKey = newStateKey()
	case n < MinStateKeyBytes:
		return nil, errors.Opf("toolops.New", errors.InvalidArgument, "the state key has %d bytes: it needs at least %d", n, MinStateKeyBytes)
	}
	s.sealer = stateSealer(s.stateKey)
	if err := s.instrument(); err != nil {
		return nil, errors.Opf("toolops.New", errors.Internal, "metrics: %v", err)
	}
	s.limits = s.limits.withDefaults()
	if s.docs == nil {
		s.docs = tooldocs.NewStore(tooldocs.WithResolver(tooldocs.IndexResolver(idx)))
	}
	return s, nil
}

// Limits returns the limits the service applies.
func (s *Service) Limits() Limits { return s.limits }

// Runner returns the runner the service runs tools with.
func (s *Service) Runner() *toolrun.Runner { return s.runner }

// Index returns the index of the catalogue, which holds every tool,
// offered or not: what a caller may see goes through the service's
// operations.
func (s *Service) Index() toolindex.Index { return s.index }

// Caller is who asks for an operation.
type Caller struct {
	// Metadata is given to the runner's authorization policies and hooks
	// on every operation ([toolrun.CallOptions.Metadata]): a policy that
	// depends on it hides from a caller's searches what it refuses to the
	// caller's runs.
	Metadata map[string]string
}

type callerKey struct{}

// WithCaller returns ctx carrying the caller of the operations called
// with it.
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey{}, c)
}

// CallerFrom returns the caller ctx carries, or the zero Caller.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey{}).(Caller)
	return c
}

// callOptions returns the options of a call made for the caller of ctx.
func callOptions(ctx context.Context) toolrun.CallOptions {
	return toolrun.CallOptions{Metadata: maps.Clone(CallerFrom(ctx).Metadata)}
}

// hidden reports whether the tool id is hidden from the caller of ctx:
// a tool the runner does not know and a tool its authorization policies
// refuse are hidden alike. A tool that cannot be resolved right now for
// another reason is not: its failure shows where it is used. A malformed
// ID is an error that says what is wrong with it.
func (s *Service) hidden(ctx context.Context, id string) (bool, error) {
	err := s.runner.Authorize(ctx, id, callOptions(ctx))
	var e *errors.Error
	switch {
	case err == nil || !errors.As(err, &e):
		return false, nil
	case e.Op == toolrun.OpAuthorize, e.Op == toolrun.OpResolve && e.Code == errors.NotFound:
		return true, nil
	case e.Op == toolrun.OpResolve:
		return false, err
	}
	return false, nil
}

// lookup returns nil when the tool id is offered to the caller of ctx,
// and else the error of operation op for it: the same for an unknown tool
// and a hidden one.
func (s *Service) lookup(ctx context.Context, op, id string) error {
	hidden, err := s.hidden(ctx, id)
	switch {
	case err != nil:
		return errors.WithOp(op, err)
	case hidden:
		return s.unknownTool(ctx, op, id)
	}
	return nil
}

// unknownTool is the error of a tool that is not in the catalogue or not
// offered to the caller of ctx.
func (s *Service) unknownTool(ctx context.Context, op, id string) error {
	if q, ok := s.quarantined(ctx, id); ok {
		e := errors.Errorf(errors.NotFound, "this tool is quarantined until an operator approves it: %s", q.Reason)
		e.Op, e.ToolID = op, id
		return e
	}
	e := errors.Errorf(errors.NotFound, "no tool with this ID; search finds tools by what they do")
	e.Op, e.ToolID = op, id
	return s.whileConnecting(ctx, s.whileDown(ctx, e))
}
