package javascript

import (
	"context"
	"sync/atomic"

	"github.com/metatools-go/metatools/errors"
)

// DefaultSpareRuntimes is the number of runtimes an engine keeps ready by
// default (see [WithSpareRuntimes]).
const DefaultSpareRuntimes = 2

// WithSpareRuntimes sets how many runtimes the engine keeps ready for the
// next executions (default [DefaultSpareRuntimes]). A spare is made on a
// goroutine of its own after an execution takes one, so an execution
// that finds one starts without waiting for goja to build its built-ins.
// Each runtime still runs one program only: a spare has run nothing of
// any program. n <= 0 makes each runtime when its execution starts. A
// spare holds about 25 KB.
func WithSpareRuntimes(n int) Option {
	return func(e *Engine) { e.spares.ready = make(chan *run, max(n, 0)) }
}

// spares keeps runtimes made ahead of need. Taking one starts a goroutine
// that makes the replacements, unless one is at it already; it ends once
// ready is full, so an idle engine has no goroutine.
type spares struct {
	make   func() (*run, error)
	ready  chan *run
	making atomic.Bool
	// prepared is the runtime Prepare made, taken before the spares.
	prepared atomic.Pointer[run]
}

// take returns a spare, or a runtime made now when none is ready; either
// way the replacements are made meanwhile.
func (s *spares) take() (*run, error) {
	if r := s.prepared.Swap(nil); r != nil {
		s.refill()
		return r, nil
	}
	select {
	case r := <-s.ready:
		s.refill()
		return r, nil
	default:
		s.refill()
		return s.make()
	}
}

// refill makes spares until ready is full, on a goroutine of its own.
func (s *spares) refill() {
	if cap(s.ready) == 0 || !s.making.CompareAndSwap(false, true) {
		return
	}
	go func() {
		for {
			for len(s.ready) < cap(s.ready) {
				r, err := s.make()
				if err != nil {
					// take makes its own and reports the error.
					s.making.Store(false)
					return
				}
				s.ready <- r
			}
			s.making.Store(false)
			// A take between the last check and the Store found making
			// set and left the refill to this goroutine.
			if len(s.ready) == cap(s.ready) || !s.making.CompareAndSwap(false, true) {
				return
			}
		}
	}()
}

// Prepare makes the runtime of the engine's next execution now, unless one
// is prepared already (see [toolcode.Preparer]). It is kept beside the
// spares, whatever [WithSpareRuntimes] says: a runner started ahead of its
// one program prepares exactly the runtime that program takes.
func (e *Engine) Prepare(ctx context.Context) error {
	if err := e.spares.prepare(ctx); err != nil {
		return errors.Errorf(errors.Internal, "%s engine: prepare a runtime: %v", e.language, err)
	}
	return nil
}

// prepare makes the runtime the next take returns, unless there is one.
func (s *spares) prepare(ctx context.Context) error {
	if s.prepared.Load() != nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	r, err := s.make()
	if err != nil {
		return err
	}
	// Of two concurrent calls, one runtime is kept; the other has run
	// nothing and holds nothing to release.
	s.prepared.CompareAndSwap(nil, r)
	return nil
}
