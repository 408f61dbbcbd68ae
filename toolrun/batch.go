package toolrun

import (
	"context"
	"sync"

	"github.com/metatools-go/metatools/errors"
)

// BatchCall is one call of a batch. It is plain data: a batch can be
// stored and sent as JSON.
type BatchCall struct {
	// ToolID is the tool to run.
	ToolID string `json:"toolId"`
	// Args are the call's arguments.
	Args map[string]any `json:"args,omitempty"`
	// Options apply to this call.
	Options CallOptions `json:"options,omitzero"`
}

// BatchResult is the outcome of one batch call, as in [StepResult].
type BatchResult struct {
	Result *RunResult
	Err    error
}

// failure returns the call's error or its tool's failure.
func (b BatchResult) failure() error {
	if b.Err != nil {
		return b.Err
	}
	return b.Result.Err()
}

// BatchMode says what a batch does when a call fails (its tool's failure
// included).
type BatchMode int

const (
	// BatchContinue runs every call whatever the others do.
	BatchContinue BatchMode = iota
	// BatchAbortOnError cancels the calls still running or waiting as soon
	// as one fails; they end with code canceled.
	BatchAbortOnError
	// BatchRetry runs the failed calls again, up to the batch's retry
	// rounds, after the others are done. The runner's retry policy already
	// retries retryable errors within a call; this mode also retries
	// tools' own failures, for flaky tools. Only the calls that the rule
	// of [SafeToRepeat] allows run again: those that failed before their
	// request reached the backend, and those of idempotent tools. The
	// others keep the outcome of their round.
	BatchRetry
)

// DefaultBatchParallelism is how many calls of a batch run at once unless
// told otherwise.
const DefaultBatchParallelism = 4

// BatchOption configures a batch.
type BatchOption func(*batchConfig)

type batchConfig struct {
	mode        BatchMode
	parallelism int
	rounds      int
}

// WithBatchMode sets the error handling mode; the default is
// [BatchContinue].
func WithBatchMode(m BatchMode) BatchOption { return func(c *batchConfig) { c.mode = m } }

// WithParallelism sets how many calls run at once; n < 1 means 1. The
// runner's [ConcurrencyPolicy] applies on top.
func WithParallelism(n int) BatchOption { return func(c *batchConfig) { c.parallelism = max(n, 1) } }

// WithRetryRounds sets how many more times [BatchRetry] runs failed calls;
// the default is 1.
func WithRetryRounds(n int) BatchOption { return func(c *batchConfig) { c.rounds = max(n, 0) } }

// RunBatch runs independent calls in parallel and returns their outcomes
// in input order. Its error is non-nil only when the batch as a whole
// stopped: the failure that aborted it ([BatchAbortOnError]) or the
// context's end.
func (r *Runner) RunBatch(ctx context.Context, calls []BatchCall, opts ...BatchOption) ([]BatchResult, error) {
	cfg := batchConfig{parallelism: DefaultBatchParallelism, rounds: 1}
	for _, opt := range opts {
		opt(&cfg)
	}
	results := make([]BatchResult, len(calls))
	repeatable := make([]bool, len(calls))
	pending := make([]int, len(calls))
	for i := range calls {
		pending[i] = i
	}
	rounds := 0
	if cfg.mode == BatchRetry {
		rounds = cfg.rounds
	}
	var abortErr error
	for round := 0; round <= rounds && len(pending) > 0; round++ {
		abortErr = r.runRound(ctx, calls, pending, results, repeatable, cfg)
		if abortErr != nil {
			break
		}
		pending = pending[:0]
		for i, res := range results {
			if res.failure() != nil && repeatable[i] {
				pending = append(pending, i)
			}
		}
	}
	if abortErr == nil && ctx.Err() != nil {
		abortErr = errors.FromContext(ctx, opBatch, nil)
	}
	return results, abortErr
}

// opBatch is the Op of the errors of calls that a batch's end kept from
// starting.
const opBatch = "batch"

// notStarted returns the outcome of a call that the end of ctx kept from
// starting: code timeout when the batch's deadline expired, canceled when
// it was canceled (by the caller, or by the abort of [BatchAbortOnError]).
func notStarted(ctx context.Context, toolID string) BatchResult {
	e := errors.FromContext(ctx, opBatch, nil)
	e.ToolID = toolID
	return BatchResult{Err: e}
}

// runRound runs the calls at the given indices with bounded parallelism,
// recording whether each may run again in repeatable. In abort mode, the
// first failure cancels the rest and is returned.
func (r *Runner) runRound(ctx context.Context, calls []BatchCall, indices []int, results []BatchResult, repeatable []bool, cfg batchConfig) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var (
		once     sync.Once
		abortErr error
		wg       sync.WaitGroup
		next     = make(chan int)
	)
	for range min(cfg.parallelism, len(indices)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				c := calls[i]
				callCfg := callConfig{CallOptions: c.Options, repeatable: &repeatable[i]}
				res, err := r.run(ctx, c.ToolID, c.Args, &callCfg)
				results[i] = BatchResult{Result: res, Err: err}
				if failure := results[i].failure(); failure != nil && cfg.mode == BatchAbortOnError {
					once.Do(func() { abortErr = failure; cancel() })
				}
			}
		}()
	}
	for _, i := range indices {
		if ctx.Err() != nil {
			results[i], repeatable[i] = notStarted(ctx, calls[i].ToolID), true
			continue
		}
		select {
		case next <- i:
		case <-ctx.Done():
			results[i], repeatable[i] = notStarted(ctx, calls[i].ToolID), true
		}
	}
	close(next)
	wg.Wait()
	return abortErr
}
