package toolindex

import (
	"context"
	"fmt"
	"slices"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// txn stages the changes of one atomic operation. The operation holds the
// index's writeMu from begin to commit, which lets it read the index's
// maps without mu; nothing is visible until commit, and an operation that
// fails before commit leaves the index as it was.
type txn struct {
	ix      *MemoryIndex
	op      string            // the operation, for errors
	staged  map[string]*entry // a nil entry is a removal
	touched []string          // staged IDs, in the order first staged
	events  []ChangeEvent     // without versions
}

func (ix *MemoryIndex) begin(op string) *txn {
	return &txn{ix: ix, op: op, staged: map[string]*entry{}}
}

// current returns the entry of id as the transaction sees it.
func (tx *txn) current(id string) *entry {
	if e, ok := tx.staged[id]; ok {
		return e
	}
	return tx.ix.tools[id]
}

// stage records e as the new entry of id and the event that describes
// the change.
func (tx *txn) stage(id string, e *entry, ev ChangeEvent) {
	if _, ok := tx.staged[id]; !ok {
		tx.touched = append(tx.touched, id)
	}
	tx.staged[id] = e
	tx.events = append(tx.events, ev)
}

// register stages a prepared registration, following the rules of
// [Index].
func (tx *txn) register(reg *Registration, cfg registerConfig) error {
	id := reg.Tool.ID()
	identity := reg.Backend.Identity()
	cur := tx.current(id)
	if cur == nil {
		tx.stage(id, newEntry(&reg.Tool, []toolmodel.ToolBackend{reg.Backend}), ChangeEvent{Kind: ToolRegistered, ToolID: id, Backend: identity})
		return nil
	}
	pos := cur.backendIndex(identity)
	sameDef := cur.tool.Equal(reg.Tool)
	tool := cur.tool
	if !sameDef {
		tool = &reg.Tool
	}
	switch {
	case pos >= 0:
		if sameDef && cur.backends[pos].Equal(reg.Backend) {
			return nil
		}
		backends := slices.Clone(cur.backends)
		backends[pos] = reg.Backend
		tx.stage(id, newEntry(tool, backends), ChangeEvent{Kind: ToolUpdated, ToolID: id, Backend: identity})
	case sameDef || cfg.replace:
		kind := BackendAdded
		if !sameDef {
			kind = ToolUpdated
		}
		backends := append(slices.Clip(cur.backends), reg.Backend)
		tx.stage(id, newEntry(tool, backends), ChangeEvent{Kind: kind, ToolID: id, Backend: identity})
	default:
		e := errors.Errorf(errors.Conflict, "another source (%s) registered a different definition; register with Replace to override it", cur.backends[0].Identity())
		e.Op, e.ToolID, e.Backend = tx.op, id, identity
		return e
	}
	return nil
}

// removeBackend stages the removal of the backend of the given identity
// from tool id, and of the tool when it has no backend left. The tool must
// have that backend: callers take the IDs from the backend's set.
func (tx *txn) removeBackend(id, identity string) {
	cur := tx.current(id)
	if len(cur.backends) == 1 {
		tx.stage(id, nil, ChangeEvent{Kind: ToolRemoved, ToolID: id, Backend: identity})
		return
	}
	pos := cur.backendIndex(identity)
	backends := slices.Delete(slices.Clone(cur.backends), pos, pos+1)
	tx.stage(id, newEntry(cur.tool, backends), ChangeEvent{Kind: BackendRemoved, ToolID: id, Backend: identity})
}

// commit brings the Searcher in line with the staged changes, then
// applies them to the index and queues their events. When the Searcher
// fails, nothing is applied and the error is returned.
//
// The Searcher is written without mu, so that readers do not wait for
// the indexing, which may take long (a bleve batch of hundreds of tools
// takes tens of milliseconds or more); only applying the staged entries,
// which costs no more than updating a few maps and ordered sets, holds
// the write lock. Until then readers see the index as it was.
func (tx *txn) commit(ctx context.Context) error {
	if len(tx.events) == 0 {
		return nil
	}
	if err := tx.syncSearcher(ctx); err != nil {
		return err
	}
	ix := tx.ix
	ix.mu.Lock()
	defer ix.mu.Unlock()
	for _, id := range tx.touched {
		ix.apply(id, ix.tools[id], tx.staged[id])
	}
	tx.publish()
	return nil
}

// publish numbers the transaction's events and queues them. The caller
// holds writeMu and the write lock mu, which keeps versions and queue
// order in step and lets OnChange read a version no half-applied change
// has passed.
func (tx *txn) publish() {
	v := tx.ix.version.Load()
	for i := range tx.events {
		v++
		tx.events[i].Version = v
	}
	tx.ix.version.Store(v)
	tx.ix.notify.enqueue(tx.events)
}

// syncSearcher upserts the new and changed definitions and removes the
// removed tools. If the removal fails after the upsert succeeded, it
// puts the upserted tools back as they were, so that the Searcher still
// agrees with the unchanged index.
func (tx *txn) syncSearcher(ctx context.Context) error {
	op := tx.op
	var upserts []toolmodel.Tool
	var removes []string
	for _, id := range tx.touched {
		old, next := tx.ix.tools[id], tx.staged[id]
		switch {
		case next == nil && old != nil:
			removes = append(removes, id)
		case next != nil && (old == nil || old.tool != next.tool):
			upserts = append(upserts, *next.tool)
		}
	}
	s := tx.ix.searcher
	if len(upserts) > 0 {
		if err := s.Upsert(ctx, upserts); err != nil {
			return searcherError(op, "upsert", err)
		}
	}
	if len(removes) == 0 {
		return nil
	}
	err := s.Remove(ctx, removes)
	if err == nil {
		return nil
	}
	err = searcherError(op, "remove", err)
	if undoErr := tx.undoUpserts(op, upserts); undoErr != nil {
		e := errors.E(errors.Internal, errors.Join(err, undoErr))
		e.Op = op
		return e
	}
	return err
}

// undoUpserts restores the Searcher's view of the upserted tools: their
// committed definitions, or nothing for new tools. It must not be
// stopped halfway, so it ignores the caller's cancellation.
func (tx *txn) undoUpserts(op string, upserts []toolmodel.Tool) error {
	var restore []toolmodel.Tool
	var drop []string
	for i := range upserts {
		id := upserts[i].ID()
		if old := tx.ix.tools[id]; old != nil {
			restore = append(restore, *old.tool)
		} else {
			drop = append(drop, id)
		}
	}
	ctx := context.Background()
	s := tx.ix.searcher
	var errs []error
	if len(restore) > 0 {
		errs = append(errs, s.Upsert(ctx, restore))
	}
	if len(drop) > 0 {
		errs = append(errs, s.Remove(ctx, drop))
	}
	if err := errors.Join(errs...); err != nil {
		return searcherError(op, "undo", err)
	}
	return nil
}

// searcherError adds context to a Searcher's error, keeping its code.
func searcherError(op, what string, err error) error {
	return fmt.Errorf("%s: searcher %s: %w", op, what, err)
}

// apply replaces the entry old of tool id by next (nil to remove it) and
// updates the sets that order and filter listings. The caller holds
// writeMu and the write lock mu.
func (ix *MemoryIndex) apply(id string, old, next *entry) {
	switch {
	case old == nil && next == nil:
		return
	case next == nil:
		delete(ix.tools, id)
		ix.ids.remove(id)
		removeFrom(ix.byNamespace, old.tool.Namespace, id)
	case old == nil:
		ix.tools[id] = next
		ix.ids.insert(id)
		addTo(ix.byNamespace, next.tool.Namespace, id)
	default:
		ix.tools[id] = next
	}
	// Backend sets: remove the identities that went, add those that came.
	if old != nil {
		for i := range old.backends {
			if identity := old.backends[i].Identity(); next == nil || next.backendIndex(identity) < 0 {
				removeFrom(ix.byBackend, identity, id)
			}
		}
	}
	if next != nil {
		for i := range next.backends {
			if identity := next.backends[i].Identity(); old == nil || old.backendIndex(identity) < 0 {
				addTo(ix.byBackend, identity, id)
			}
		}
	}
}

// addTo adds id to the set of key, creating the set. The empty key (no
// namespace) has no set.
func addTo(sets map[string]*sortedSet, key, id string) {
	if key == "" {
		return
	}
	s := sets[key]
	if s == nil {
		s = &sortedSet{}
		sets[key] = s
	}
	s.insert(id)
}

// removeFrom removes id from the set of key, dropping the set when it
// becomes empty.
func removeFrom(sets map[string]*sortedSet, key, id string) {
	s := sets[key]
	if s == nil {
		return
	}
	s.remove(id)
	if s.len() == 0 {
		delete(sets, key)
	}
}
