package toolcode

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolops"
)

// LimitExecutions names the bound on the executions an [Executor] runs
// at once ([Admission]).
const LimitExecutions = "executions"

// Admission bounds the executions an [Executor] runs at once, so that a
// burst of programs cannot exhaust the host's memory or process table: an
// execution beyond Running waits for a place, with at most Queued others
// and for at most Wait, then fails with code [errors.ResourceExhausted]
// (retryable, the limit [LimitExecutions]). Places are handed out in
// turn among callers (the callers' metadata, [toolops.WithCaller]), so
// that a caller with many programs waiting does not hold back the others.
type Admission struct {
	// Running is the number of executions that run at once; zero means
	// no bound.
	Running int `json:"running,omitempty" yaml:"running,omitempty"`
	// Queued is the number of executions that may wait for a place; one
	// more fails at once.
	Queued int `json:"queued,omitempty" yaml:"queued,omitempty"`
	// Wait bounds the wait for a place; zero means [DefaultAdmissionWait].
	Wait time.Duration `json:"wait,omitempty" yaml:"wait,omitempty"`
}

// DefaultAdmissionWait is the longest an execution waits for a place
// when [Admission.Wait] is zero.
const DefaultAdmissionWait = 30 * time.Second

// WithAdmission bounds the executions that run at once (see [Admission]);
// without it, they are not bounded. A negative field fails every
// execution with code [errors.InvalidArgument].
func WithAdmission(a Admission) Option {
	return func(x *Executor) {
		if a.Running < 0 || a.Queued < 0 || a.Wait < 0 {
			x.err = errors.Errorf(errors.InvalidArgument, "admission %+v: a bound is negative", a)
			return
		}
		if a.Running == 0 {
			x.admission = nil
			return
		}
		if a.Wait == 0 {
			a.Wait = DefaultAdmissionWait
		}
		x.admission = &admission{cfg: a, queues: map[string][]chan struct{}{}}
	}
}

// admission hands out the places of [Admission]: running counts the
// executions that hold one; the waiting ones are in queues by caller,
// turns being the callers with some waiting, the next to be served
// first.
type admission struct {
	cfg Admission

	mu      sync.Mutex
	running int
	waiting int
	queues  map[string][]chan struct{}
	turns   []string
}

// enter waits for a place, and returns the function that gives it back.
func (a *admission) enter(ctx context.Context) (leave func(), err error) {
	a.mu.Lock()
	if a.running < a.cfg.Running && a.waiting == 0 {
		a.running++
		a.mu.Unlock()
		return a.leave, nil
	}
	if a.waiting >= a.cfg.Queued {
		a.mu.Unlock()
		return nil, a.refusal("no place to wait")
	}
	caller := callerKey(ctx)
	admitted := make(chan struct{})
	if len(a.queues[caller]) == 0 {
		a.turns = append(a.turns, caller)
	}
	a.queues[caller] = append(a.queues[caller], admitted)
	a.waiting++
	a.mu.Unlock()

	timer := time.NewTimer(a.cfg.Wait)
	defer timer.Stop()
	select {
	case <-admitted:
		return a.leave, nil
	case <-timer.C:
		err = a.refusal(fmt.Sprintf("no place within %s", a.cfg.Wait))
	case <-ctx.Done():
		err = errors.FromContext(ctx, "toolcode.Execute", context.Cause(ctx))
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.withdraw(caller, admitted) {
		// A place came as the wait ended: pass it on.
		a.handOver()
	}
	return nil, err
}

// leave gives a place back.
func (a *admission) leave() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.handOver()
}

// handOver gives a place that is free to the next waiting execution, in
// the callers' turn, or frees it.
func (a *admission) handOver() {
	if len(a.turns) == 0 {
		a.running--
		return
	}
	caller := a.turns[0]
	a.turns = a.turns[1:]
	queue := a.queues[caller]
	next := queue[0]
	if len(queue) > 1 {
		a.queues[caller] = queue[1:]
		a.turns = append(a.turns, caller)
	} else {
		delete(a.queues, caller)
	}
	a.waiting--
	close(next)
}

// withdraw takes a waiting execution out of its caller's queue, and
// reports whether it was still there.
func (a *admission) withdraw(caller string, admitted chan struct{}) bool {
	queue := a.queues[caller]
	i := slices.Index(queue, admitted)
	if i < 0 {
		return false
	}
	a.waiting--
	if queue = slices.Delete(queue, i, i+1); len(queue) > 0 {
		a.queues[caller] = queue
		return true
	}
	delete(a.queues, caller)
	a.turns = slices.DeleteFunc(a.turns, func(c string) bool { return c == caller })
	return true
}

// refusal is the error of an execution refused a place, for why.
func (a *admission) refusal(why string) error {
	e := LimitError(LimitExecutions, fmt.Sprintf("%d running, up to %d waiting", a.cfg.Running, a.cfg.Queued))
	e.Err = fmt.Errorf("%w: %s; try again later", e.Err, why)
	e.Retryable = true
	return e
}

// callerKey identifies the caller of ctx for the turns: its metadata.
func callerKey(ctx context.Context) string {
	md := toolops.CallerFrom(ctx).Metadata
	var b strings.Builder
	for _, k := range slices.Sorted(maps.Keys(md)) {
		fmt.Fprintf(&b, "%q=%q;", k, md[k])
	}
	return b.String()
}
