package javascript

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSparesAreMadeAheadAndTakenOnce shows the life of spares: none
// before the first execution, made in the background after each take
// until the engine keeps its number, each taken once.
func TestSparesAreMadeAheadAndTakenOnce(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var made atomic.Int32
		s := spares{make: func() (*run, error) { made.Add(1); return &run{}, nil }, ready: make(chan *run, 2)}
		synctest.Wait()
		assert.Zero(t, made.Load(), "an engine no one uses makes nothing")

		first, err := s.take()
		require.NoError(t, err)
		synctest.Wait()
		assert.Equal(t, int32(3), made.Load(), "the first execution makes its own runtime, and two spares are made meanwhile; then the goroutine ends")
		assert.Len(t, s.ready, 2)

		second, err := s.take()
		require.NoError(t, err)
		third, err := s.take()
		require.NoError(t, err)
		assert.NotSame(t, first, second)
		assert.NotSame(t, second, third)
		synctest.Wait()
		assert.Equal(t, int32(5), made.Load(), "each spare taken is replaced")
		assert.Len(t, s.ready, 2)
	})
}

// TestSparesFailingToMake shows that an error making a spare reaches the
// next execution, which makes its runtime itself, instead of being lost.
func TestSparesFailingToMake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fail atomic.Bool
		s := spares{make: func() (*run, error) {
			if fail.Load() {
				return nil, fmt.Errorf("no memory")
			}
			return &run{}, nil
		}, ready: make(chan *run, 1)}
		fail.Store(true)
		_, err := s.take()
		require.EqualError(t, err, "no memory")
		synctest.Wait()
		assert.Empty(t, s.ready, "the spare that failed is not kept")

		fail.Store(false)
		r, err := s.take()
		require.NoError(t, err)
		assert.NotNil(t, r)
		synctest.Wait()
		assert.Len(t, s.ready, 1)
	})
}

// TestNoSpares makes each runtime when its execution starts.
func TestNoSpares(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var made atomic.Int32
		s := spares{make: func() (*run, error) { made.Add(1); return &run{}, nil }, ready: make(chan *run)}
		for range 3 {
			_, err := s.take()
			require.NoError(t, err)
		}
		synctest.Wait()
		assert.Equal(t, int32(3), made.Load())
	})
}

// TestPreparedRuntimeIsTakenFirst shows Prepare on an engine that keeps
// no spares, as a sandbox's runner does: one runtime made ahead, taken by
// the next execution, and nothing made in the background afterwards.
func TestPreparedRuntimeIsTakenFirst(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var made atomic.Int32
		s := spares{make: func() (*run, error) { made.Add(1); return &run{}, nil }, ready: make(chan *run)}
		require.NoError(t, s.prepare(t.Context()))
		require.NoError(t, s.prepare(t.Context()))
		assert.Equal(t, int32(1), made.Load(), "a second Prepare keeps the runtime made by the first")

		prepared := s.prepared.Load()
		first, err := s.take()
		require.NoError(t, err)
		assert.Same(t, prepared, first, "the next execution takes the prepared runtime")
		synctest.Wait()
		assert.Equal(t, int32(1), made.Load(), "without spares, nothing is made in the background")

		second, err := s.take()
		require.NoError(t, err)
		assert.NotSame(t, first, second, "a runtime is taken once")
		assert.Equal(t, int32(2), made.Load())
	})
}

// TestPrepareAfterCancel shows that Prepare makes nothing once its
// context is done.
func TestPrepareAfterCancel(t *testing.T) {
	var made atomic.Int32
	s := spares{make: func() (*run, error) { made.Add(1); return &run{}, nil }, ready: make(chan *run)}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	require.ErrorIs(t, s.prepare(ctx), context.Canceled)
	assert.Zero(t, made.Load())
}
