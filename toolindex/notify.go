package toolindex

import (
	"slices"
	"sync"
	"sync/atomic"
)

// notifier delivers change events to subscribers in version order without
// a goroutine of its own: a goroutine that has queued events delivers
// them, together with any queued meanwhile, unless another goroutine is
// already delivering, which then delivers them too. A subscriber that
// makes a change from within its callback therefore only queues events,
// which the delivering loop picks up once the callback returns, instead
// of deadlocking.
type notifier struct {
	mu         sync.Mutex
	queue      []ChangeEvent
	delivering bool
	subs       []*subscription
}

// subscription is one OnChange callback.
type subscription struct {
	fn     func(ChangeEvent)
	since  uint64 // events of this version or below predate the subscription
	active atomic.Bool
}

// subscribe adds fn for the events above version since.
func (n *notifier) subscribe(fn func(ChangeEvent), since uint64) func() {
	n.mu.Lock()
	sub := &subscription{fn: fn, since: since}
	sub.active.Store(true)
	n.subs = append(n.subs, sub)
	n.mu.Unlock()
	return func() {
		if !sub.active.Swap(false) {
			return
		}
		n.mu.Lock()
		n.subs = slices.DeleteFunc(n.subs, func(s *subscription) bool { return s == sub })
		n.mu.Unlock()
	}
}

// enqueue appends events to the queue. Callers hold the index's write
// lock, so that events are queued in version order.
func (n *notifier) enqueue(events []ChangeEvent) {
	n.mu.Lock()
	n.queue = append(n.queue, events...)
	n.mu.Unlock()
}

// deliver hands every queued event to the subscribers, unless another
// goroutine is doing so. Callers hold no lock of the index.
func (n *notifier) deliver() {
	n.mu.Lock()
	if n.delivering {
		n.mu.Unlock()
		return
	}
	n.delivering = true
	finished := false
	defer func() {
		// Reached with finished unset only when a subscriber panics: the
		// panic ends this delivery (its undelivered events are lost) but
		// not delivery for good.
		if !finished {
			n.mu.Lock()
			n.delivering = false
			n.mu.Unlock()
		}
	}()
	for len(n.queue) > 0 {
		events := n.queue
		n.queue = nil
		subs := slices.Clone(n.subs)
		n.mu.Unlock()
		for _, ev := range events {
			for _, sub := range subs {
				if ev.Version > sub.since && sub.active.Load() {
					sub.fn(ev)
				}
			}
		}
		n.mu.Lock()
	}
	// Cleared under the same lock as the check of the queue, so that an
	// event queued after the check finds no delivery under way and is
	// delivered by its own goroutine.
	n.delivering = false
	finished = true
	n.mu.Unlock()
}
