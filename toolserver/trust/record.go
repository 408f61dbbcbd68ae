package trust

import (
	"bytes"
	"encoding/json"
	"fmt"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// ErrCorrupt is wrapped by the error of a stored record that does not
// decode or does not hold together (a snapshot whose fingerprint is not
// its item's, a key that is not its record's). The error has code
// [errors.Internal].
var ErrCorrupt = errors.New("corrupt pin record")

// Snapshot is an item as it was at a point in time, with its fingerprint.
type Snapshot struct {
	// Fingerprint is the fingerprint of Item.
	Fingerprint Fingerprint `json:"fingerprint"`
	// Item is the item as it was.
	Item Item `json:"item"`
	// At is when it was approved (for an approved snapshot) or first seen
	// (for a pending one).
	At time.Time `json:"at"`
}

// Pending is an item that waits for review.
type Pending struct {
	Snapshot
	// Reason says why it waits ([Decision.Reason]).
	Reason string `json:"reason"`
	// Findings are the scanner's findings on it.
	Findings []Finding `json:"findings,omitempty"`
}

// Record is what the pin store keeps of one item of one upstream.
type Record struct {
	// ID is the item's ID ([MakeID]).
	ID string `json:"id"`
	// Upstream, Kind and Name identify the item.
	Upstream string `json:"upstream"`
	Kind     Kind   `json:"kind"`
	Name     string `json:"name"`
	// Approved is the approved version, nil if none was ever approved.
	Approved *Snapshot `json:"approved,omitempty"`
	// Pending is the version that waits for review, nil if none does.
	Pending *Pending `json:"pending,omitempty"`
}

// Diff returns the changes from the approved version to the pending one
// (from nothing when none was approved); nil when nothing is pending.
func (r *Record) Diff() []Change {
	if r.Pending == nil {
		return nil
	}
	var old *Item
	if r.Approved != nil {
		old = &r.Approved.Item
	}
	return Diff(old, &r.Pending.Item)
}

// recordFormat is the first byte of every stored record.
const recordFormat = 1

// storeKey is the key of a record in the store: upstream, kind and name
// separated by NUL bytes, so the records of an upstream are contiguous.
func storeKey(upstream string, kind Kind, name string) []byte {
	return []byte(upstream + "\x00" + string(kind) + "\x00" + name)
}

func upstreamPrefix(upstream string) []byte { return []byte(upstream + "\x00") }

// encodeRecord returns the stored form of r.
func encodeRecord(r *Record) ([]byte, error) {
	b, err := json.Marshal(r)
	if err != nil {
		return nil, fmt.Errorf("encode pin record %q: %w", r.ID, err)
	}
	return append([]byte{recordFormat}, b...), nil
}

// decodeRecord decodes a stored record and checks that it holds together
// and belongs under key.
func decodeRecord(key, val []byte) (*Record, error) {
	corrupt := func(format string, args ...any) error {
		return errors.E(errors.Internal, fmt.Errorf("pin record %q: %w: %s", key, ErrCorrupt, fmt.Sprintf(format, args...)))
	}
	if len(val) == 0 {
		return nil, corrupt("empty")
	}
	if val[0] != recordFormat {
		return nil, corrupt("format %d, this version reads format %d", val[0], recordFormat)
	}
	dec := json.NewDecoder(bytes.NewReader(val[1:]))
	dec.DisallowUnknownFields()
	var r Record
	if err := dec.Decode(&r); err != nil {
		return nil, corrupt("%v", err)
	}
	if dec.More() {
		return nil, corrupt("data after the record")
	}
	switch {
	case !r.Kind.Valid():
		return nil, corrupt("kind %q", r.Kind)
	case r.Upstream == "" || r.Name == "":
		return nil, corrupt("empty upstream or name")
	case r.ID != MakeID(r.Upstream, r.Kind, r.Name):
		return nil, corrupt("ID %q is not the ID of its upstream, kind and name", r.ID)
	case key != nil && !bytes.Equal(key, storeKey(r.Upstream, r.Kind, r.Name)):
		return nil, corrupt("stored under the key of another item")
	case r.Approved == nil && r.Pending == nil:
		return nil, corrupt("neither approved nor pending")
	}
	check := func(what string, s *Snapshot) error {
		switch {
		case !s.Fingerprint.Valid():
			return corrupt("%s fingerprint %q is not 64 hex digits", what, s.Fingerprint)
		case s.Item.Upstream != r.Upstream || s.Item.Kind != r.Kind || s.Item.Name != r.Name:
			return corrupt("%s item is another item", what)
		case FingerprintOf(&s.Item) != s.Fingerprint:
			return corrupt("%s item does not have its fingerprint", what)
		}
		return nil
	}
	if r.Approved != nil {
		if err := check("approved", r.Approved); err != nil {
			return nil, err
		}
	}
	if r.Pending != nil {
		if err := check("pending", &r.Pending.Snapshot); err != nil {
			return nil, err
		}
		for i := range r.Pending.Findings {
			if s := r.Pending.Findings[i].Severity; s < SeverityInfo || s > SeverityHigh {
				return nil, corrupt("finding %d: severity %d", i, int(s))
			}
		}
	}
	return &r, nil
}
