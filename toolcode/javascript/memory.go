package javascript

import (
	"math"
	"runtime"
	"runtime/metrics"
	"time"

	"github.com/dlclark/regexp2/v2"

	"github.com/metatools-go/metatools/toolcode"
)

// DefaultMemoryLimit is the default bound on how much the heap may grow
// during an execution (see [WithMemoryLimit]).
const DefaultMemoryLimit = 64 << 20

// memoryPeriod is how often the heap is read during an execution.
const memoryPeriod = 2 * time.Millisecond

// RegexpMatchTimeout bounds the time one match of a regular expression
// may take. goja runs the expressions that Go's regexp cannot (lookaround,
// backreferences) on a backtracking engine, github.com/dlclark/regexp2,
// which does not see the runtime's interrupt: the package sets that
// engine's DefaultMatchTimeout to this value when it finds it unset (it
// applies to every expression compiled afterwards in the process), and a
// call of a RegExp method that ran this long throws a RangeError with
// code "resource_exhausted" and the limit [toolcode.LimitMatchTime],
// since the match it answered was cut short.
const RegexpMatchTimeout = 500 * time.Millisecond

func init() {
	if regexp2.DefaultMatchTimeout == time.Duration(math.MaxInt64) {
		regexp2.DefaultMatchTimeout = RegexpMatchTimeout
	}
}

// WithMemoryLimit bounds how much the process's heap may grow while a
// program runs (default [DefaultMemoryLimit]; 0 or less turns the bound
// off). Keep it small: the heap may overshoot it by about the bound again
// (one step that doubles a string), and such a step holds the host's
// other goroutines for as long as its copy takes (see the package's
// Limits). The engine reads the heap every 2 ms during an execution; past
// the bound it collects garbage, and if the heap is still past it, stops
// the execution with code [errors.ResourceExhausted] and the limit
// [toolcode.LimitMemory]. The bound also caps what one call of a guarded
// built-in may build (see [WithMaxBuiltinSize]).
//
// The heap is the process's: what other goroutines allocate during the
// execution (another execution, the host's own work) counts too, so that
// under a load of concurrent programs one that allocates much may stop
// its neighbours. The bound is approximate: the heap may overshoot it by
// what the program allocates between two readings and by one call of a
// built-in under way.
func WithMemoryLimit(bytes int64) Option {
	return func(e *Engine) { e.memLimit = bytes }
}

// heapBytes is the size of the heap's objects, live or not yet swept.
func heapBytes() int64 { return readMetric("/memory/classes/heap/objects:bytes") }

// heapGoal is the heap size at which the collector aims to finish its
// next cycle.
func heapGoal() int64 { return readMetric("/gc/heap/goal:bytes") }

func readMetric(name string) int64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(s[0].Value.Uint64())
}

// watchMemory reads the heap until the returned function is called, and
// stops the execution when it has grown past the bound (see
// [WithMemoryLimit]). The returned function waits for the watch to end.
//
// Garbage counts in the heap until it is collected. The heap may grow by
// as much as the collector's goal lay above it at the start without the
// program keeping anything: up to there, growth past the bound is checked
// by a collection, made on a goroutine of its own (a collection waits for
// every goroutine to reach a safe point, and the program's may be in a
// long copy); past there, or past the bound when that headroom is
// nothing, the execution stops at once, before its next instruction.
func (r *run) watchMemory() (stop func()) {
	if r.memLimit <= 0 {
		return func() {}
	}
	base, goal := heapBytes(), heapGoal()
	hard := base + r.memLimit + max(0, goal-base)
	done, ended := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(ended)
		tick := time.NewTicker(memoryPeriod)
		defer tick.Stop()
		next := base + r.memLimit
		var collected chan struct{}
		defer func() {
			// A collection under way ends before the watch does.
			if collected != nil {
				<-collected
			}
		}()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
			case <-collected:
				collected = nil
				h := heapBytes()
				if h-base > r.memLimit {
					r.halt(toolcode.LimitError(toolcode.LimitMemory, r.memLimit))
					return
				}
				// Collect again only once the heap grew by a quarter of
				// the bound since.
				next = max(base+r.memLimit, h+r.memLimit/4)
				continue
			}
			h := heapBytes()
			switch {
			case h > hard:
				r.halt(toolcode.LimitError(toolcode.LimitMemory, r.memLimit))
				return
			case h > next && collected == nil:
				collected = make(chan struct{})
				go func(c chan struct{}) {
					runtime.GC()
					close(c)
				}(collected)
			}
		}
	}()
	return func() {
		close(done)
		<-ended
	}
}
