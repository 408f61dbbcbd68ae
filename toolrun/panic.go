package toolrun

import (
	"fmt"
	"sync"

	"github.com/metatools-go/metatools/errors"
)

// This file holds the one way the runner keeps a panic of the code it is
// given (hooks, policies, executors, validators, maskers, selectors,
// resolvers, publishers, a call's callbacks) from crashing the program:
// the panic becomes an error of the call it happened in, which then takes
// the path any error of that stage takes. See "Panics" in the package
// documentation for what the caller sees.

// recoverPanic, deferred by the runner around code of its users, turns a
// panic on the goroutine of a call into *errp: an error of code
// [errors.Internal], not retryable, whose message is "panic: " and the
// panic value, and which wraps the value when it is an error. The stage
// that failed adds its Op, the tool and the backend, as it does to its
// other errors ([stageError]).
//
// It must be the deferred function itself, for recover to stop the panic.
func recoverPanic(errp *error) {
	if v := recover(); v != nil {
		var cause error
		switch v := v.(type) {
		case error:
			cause = fmt.Errorf("panic: %w", v)
		default:
			cause = fmt.Errorf("panic: %v", v)
		}
		*errp = errors.E(errors.Internal, cause)
	}
}

// callbackGuard watches the callbacks of one call ([CallOptions.OnProgress]
// and OnChunk) as the executor runs them. An executor may call them from a
// goroutine of its own (mcpexec delivers progress from its session's),
// where nothing could recover their panic: the guard recovers it there,
// calls the callbacks no more, and keeps the first panic, which fails the
// call once the executor has returned.
type callbackGuard struct {
	mu  sync.Mutex
	err error
}

// guardCallback returns fn, run under g; nil when fn is nil, so that an
// executor still sees that the caller wants no callback.
func guardCallback[T any](g *callbackGuard, fn func(T)) func(T) {
	if fn == nil {
		return nil
	}
	return func(v T) {
		if g.panicked() != nil {
			return
		}
		if err := callGuarded(fn, v); err != nil {
			g.mu.Lock()
			if g.err == nil {
				g.err = err
			}
			g.mu.Unlock()
		}
	}
}

// callGuarded calls fn(v), and returns its panic as an error.
func callGuarded[T any](fn func(T), v T) (err error) {
	defer recoverPanic(&err)
	fn(v)
	return nil
}

// panicked returns the first panic of the call's callbacks, or nil. A nil
// g has none.
func (g *callbackGuard) panicked() error {
	if g == nil {
		return nil
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.err
}
