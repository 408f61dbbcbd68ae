package toolrun

import (
	"context"
	"math"
	"math/rand/v2"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// RetryPolicy decides whether and when a failed execution is tried again.
// Backoff is called after attempt number attempt (1 for the first) failed
// with err; it returns how long to wait before the next attempt, or false
// to give up. The runner waits with the call's context, so a cancellation
// or deadline ends the wait at once. Implementations are safe for
// concurrent use. A panic in Backoff ends the call, with code
// [errors.Internal], at [OpExecute].
type RetryPolicy interface {
	Backoff(attempt int, err error) (time.Duration, bool)
}

// RetryFunc adapts a function to the [RetryPolicy] interface.
type RetryFunc func(attempt int, err error) (time.Duration, bool)

// Backoff calls f(attempt, err).
func (f RetryFunc) Backoff(attempt int, err error) (time.Duration, bool) { return f(attempt, err) }

// NoRetry is a [RetryPolicy] that never retries.
var NoRetry RetryPolicy = RetryFunc(func(int, error) (time.Duration, bool) { return 0, false })

// ExponentialBackoff retries retryable errors ([errors.IsRetryable]) with
// delays that grow exponentially, randomized by Jitter, and honours a
// delay the backend asked for ([RetryAfter]), such as an HTTP 429's
// Retry-After.
type ExponentialBackoff struct {
	// MaxAttempts is the most attempts, the first included.
	MaxAttempts int
	// Initial is the delay after the first failure.
	Initial time.Duration
	// Max caps each computed delay (not one the backend asked for).
	Max time.Duration
	// Multiplier grows the delay after each further failure.
	Multiplier float64
	// Jitter in [0, 1] spreads each delay uniformly over ±Jitter of it, so
	// that clients failing together do not retry together.
	Jitter float64
}

// DefaultRetryPolicy returns the runner's default: up to 3 attempts,
// 100ms initial delay doubling up to 5s, 20% jitter.
func DefaultRetryPolicy() ExponentialBackoff {
	return ExponentialBackoff{MaxAttempts: 3, Initial: 100 * time.Millisecond, Max: 5 * time.Second, Multiplier: 2, Jitter: 0.2}
}

// Backoff implements [RetryPolicy].
func (p ExponentialBackoff) Backoff(attempt int, err error) (time.Duration, bool) {
	if attempt >= p.MaxAttempts || !errors.IsRetryable(err) {
		return 0, false
	}
	if d, ok := RetryAfter(err); ok {
		return d, true
	}
	delay := float64(p.Initial)
	for range attempt - 1 {
		delay *= max(p.Multiplier, 1)
	}
	if p.Max > 0 {
		delay = min(delay, float64(p.Max))
	}
	if j := min(max(p.Jitter, 0), 1); j > 0 {
		delay *= 1 + j*(2*rand.Float64()-1)
	}
	// Without Max, many attempts grow the delay past what a Duration
	// holds: the conversion would wrap it round to a negative one.
	if delay >= math.MaxInt64 {
		return time.Duration(math.MaxInt64), true
	}
	return time.Duration(max(delay, 0)), true
}

// metaRetryAfter is the [errors.Error] Meta key that carries a delay
// requested by the backend.
const metaRetryAfter = "retry_after"

// WithRetryAfter records in e that the backend asked to wait d before
// trying again, and returns e. Executors use it for HTTP's Retry-After or
// a gRPC retry hint; [ExponentialBackoff] honours it.
func WithRetryAfter(e *errors.Error, d time.Duration) *errors.Error {
	if e.Meta == nil {
		e.Meta = map[string]string{}
	}
	e.Meta[metaRetryAfter] = d.String()
	return e
}

// RetryAfter returns the delay recorded by [WithRetryAfter] in the first
// *errors.Error of err's chain.
func RetryAfter(err error) (time.Duration, bool) {
	var e *errors.Error
	if !errors.As(err, &e) {
		return 0, false
	}
	d, parseErr := time.ParseDuration(e.Meta[metaRetryAfter])
	return d, parseErr == nil && d >= 0
}

// ConcurrencyPolicy bounds how many calls run at once. Acquire blocks
// until call may run, or ctx is done (then it returns ctx's error), and
// returns a function that releases the slot; the runner calls it exactly
// once. Implementations are safe for concurrent use. A panic in Acquire
// or in the release function fails the attempt as the executor's panic
// does (see [Executor]).
type ConcurrencyPolicy interface {
	Acquire(ctx context.Context, call *Call) (release func(), err error)
}

// ConcurrencyLimit is a [ConcurrencyPolicy] allowing at most Global calls
// at once in all, and at most PerBackend at once on one backend identity.
// A limit of 0 means no limit. Use [NewConcurrencyLimit] to make one.
type ConcurrencyLimit struct {
	global     chan struct{}
	perBackend int
	backends   *semaphores
}

// NewConcurrencyLimit returns a policy with the given limits.
func NewConcurrencyLimit(global, perBackend int) *ConcurrencyLimit {
	l := &ConcurrencyLimit{perBackend: perBackend, backends: newSemaphores()}
	if global > 0 {
		l.global = make(chan struct{}, global)
	}
	return l
}

var _ ConcurrencyPolicy = (*ConcurrencyLimit)(nil)

// Acquire implements [ConcurrencyPolicy].
func (l *ConcurrencyLimit) Acquire(ctx context.Context, call *Call) (func(), error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if l.global != nil {
		select {
		case l.global <- struct{}{}:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	releaseGlobal := func() {
		if l.global != nil {
			<-l.global
		}
	}
	if l.perBackend <= 0 {
		return releaseGlobal, nil
	}
	sem := l.backends.get(call.Backend.Identity(), l.perBackend)
	select {
	case sem <- struct{}{}:
	case <-ctx.Done():
		releaseGlobal()
		return nil, ctx.Err()
	}
	return func() { <-sem; releaseGlobal() }, nil
}

// AllowDeny is an [AuthorizationPolicy] from lists of tool patterns. A
// pattern is a tool ID ("github:create_issue"), a namespace followed by
// ":*" ("github:*"), or a glob over the ID in the syntax of [path.Match]
// ("github:delete_*", "*:read_*"). A call is refused when its tool matches
// a Deny pattern, or when Allow is not empty and the tool matches none of
// it. Refusals have code [errors.PermissionDenied].
type AllowDeny struct {
	Allow []string
	Deny  []string
}

var _ AuthorizationPolicy = AllowDeny{}

// Authorize implements [AuthorizationPolicy].
func (p AllowDeny) Authorize(_ context.Context, call *Call) error {
	id := call.ToolID()
	if pattern, ok := matchAny(p.Deny, id); ok {
		return errors.Errorf(errors.PermissionDenied, "tool %q is denied by pattern %q", id, pattern)
	}
	if _, ok := matchAny(p.Allow, id); len(p.Allow) > 0 && !ok {
		return errors.Errorf(errors.PermissionDenied, "tool %q is not in the allow list", id)
	}
	return nil
}

// Validate reports a malformed pattern, with code [errors.InvalidArgument].
func (p AllowDeny) Validate() error {
	for _, pattern := range append(append([]string(nil), p.Allow...), p.Deny...) {
		if _, err := path.Match(pattern, ""); err != nil || pattern == "" {
			return errors.Errorf(errors.InvalidArgument, "tool pattern %q is malformed", pattern)
		}
	}
	return nil
}

func matchAny(patterns []string, id string) (string, bool) {
	for _, pattern := range patterns {
		if matchTool(pattern, id) {
			return pattern, true
		}
	}
	return "", false
}

// matchTool reports whether a tool ID matches a pattern. A glob's '*'
// does not cross '/', which tool IDs never contain, so it spans the whole
// name or namespace part it is in, and ':' as well.
func matchTool(pattern, id string) bool {
	if pattern == id {
		return true
	}
	if ns, ok := strings.CutSuffix(pattern, ":*"); ok && !strings.ContainsAny(ns, "*?[") {
		return strings.HasPrefix(id, ns+":")
	}
	ok, err := path.Match(pattern, id)
	return err == nil && ok
}

// semaphores hands out one semaphore per key, created on first use.
type semaphores struct {
	mu   sync.Mutex
	sems map[string]chan struct{}
}

func newSemaphores() *semaphores { return &semaphores{sems: map[string]chan struct{}{}} }

func (s *semaphores) get(key string, size int) chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	sem, ok := s.sems[key]
	if !ok {
		sem = make(chan struct{}, size)
		s.sems[key] = sem
	}
	return sem
}
