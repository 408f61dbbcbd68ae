package toolcode_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

// held is an engine whose programs run until released, and which records
// the order in which they started, by their code.
type held struct {
	mu      sync.Mutex
	started []string
	release chan struct{}
}

func (*held) Language() string { return "javascript" }

func (h *held) Execute(ctx context.Context, prog toolcode.Program) (json.RawMessage, error) {
	h.mu.Lock()
	h.started = append(h.started, prog.Code)
	h.mu.Unlock()
	select {
	case <-h.release:
		return json.RawMessage("1"), nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (h *held) order() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.started...)
}

// TestAdmission shows the executions bounded: two run, three wait, the
// next is refused at once; places go to the waiting callers in turn; a
// wait ends with the bound's error at its deadline, or with its context.
func TestAdmission(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		engine := &held{release: make(chan struct{})}
		x := toolcode.New(toolcodetest.NewFixture(t).Ops, toolcode.WithEngine(engine),
			toolcode.WithAdmission(toolcode.Admission{Running: 2, Queued: 3, Wait: 10 * time.Second}))
		results := make(chan error, 10)
		start := func(code, caller string) {
			go func() {
				_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: code, Metadata: map[string]string{"subject": caller},
					Limits: toolcode.Limits{WallTime: time.Hour}})
				results <- err
			}()
			synctest.Wait()
		}
		start("a1", "ada")
		start("a2", "ada")
		start("a3", "ada")
		start("a4", "ada")
		start("b1", "bob")
		assert.Equal(t, []string{"a1", "a2"}, engine.order(), "two run, the others wait")

		_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: "c1"})
		require.Error(t, err)
		assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
		assert.Equal(t, toolcode.LimitExecutions, toolcode.LimitOf(err))
		assert.True(t, errors.IsRetryable(err))
		assert.Contains(t, err.Error(), "executions limit reached (2 running, up to 3 waiting): no place to wait; try again later")

		engine.release <- struct{}{}
		synctest.Wait()
		engine.release <- struct{}{}
		synctest.Wait()
		assert.Equal(t, []string{"a1", "a2", "a3", "b1"}, engine.order(), "bob's program goes before ada's next one")
		for range 2 {
			require.NoError(t, <-results)
		}

		// a4 waits past the deadline: it is refused, and its place is not
		// lost.
		time.Sleep(11 * time.Second)
		synctest.Wait()
		err = <-results
		assert.Equal(t, toolcode.LimitExecutions, toolcode.LimitOf(err))
		assert.Contains(t, err.Error(), "no place within 10s")

		ctx, cancel := context.WithCancel(t.Context())
		go func() {
			_, err := x.Execute(ctx, toolcode.ExecuteParams{Code: "d1"})
			results <- err
		}()
		synctest.Wait()
		cancel()
		assert.Equal(t, errors.Canceled, errors.CodeOf(<-results), "a wait ends with its context")

		close(engine.release)
		for range 2 {
			require.NoError(t, <-results)
		}
		start("e1", "eve")
		require.NoError(t, <-results, "the places are all free again")
		assert.Equal(t, []string{"a1", "a2", "a3", "b1", "e1"}, engine.order())
	})
}

func TestAdmissionRefusesNegativeBounds(t *testing.T) {
	x := toolcode.New(toolcodetest.NewFixture(t).Ops, toolcode.WithEngine(&held{}), toolcode.WithAdmission(toolcode.Admission{Running: 1, Queued: -1}))
	_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: "1"})
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
}
