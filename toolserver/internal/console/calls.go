package console

import (
	"context"
	"slices"
	"sync"

	"github.com/metatools-go/metatools/toolrun"
)

// DefaultCalls is how many recent calls the console keeps by default.
const DefaultCalls = 200

// Calls keeps the audit records ([toolrun.AuditRecord]) of the last calls
// the runner ended or refused, in memory: give it to the runner as an
// event publisher. It keeps no arguments. It is safe for concurrent use;
// Publish costs O(1), Recent O(n) in the calls kept.
type Calls struct {
	mu    sync.Mutex
	ring  []toolrun.AuditRecord
	next  int // where the next record goes
	count int // records held, up to len(ring)
}

var _ toolrun.EventPublisher = (*Calls)(nil)

// NewCalls returns a record of the last n calls (at least one).
func NewCalls(n int) *Calls {
	return &Calls{ring: make([]toolrun.AuditRecord, max(n, 1))}
}

// Publish keeps the record of a result or refusal event; it ignores start
// events.
func (c *Calls) Publish(ctx context.Context, e toolrun.Event) {
	if e.Kind == toolrun.EventStart {
		return
	}
	rec := toolrun.NewAuditRecord(ctx, e)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ring[c.next] = rec
	c.next = (c.next + 1) % len(c.ring)
	c.count = min(c.count+1, len(c.ring))
}

// Recent returns the records kept, the latest first.
func (c *Calls) Recent() []toolrun.AuditRecord {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]toolrun.AuditRecord, 0, c.count)
	for i := 1; i <= c.count; i++ {
		out = append(out, c.ring[(c.next-i+len(c.ring))%len(c.ring)])
	}
	return slices.Clip(out)
}
