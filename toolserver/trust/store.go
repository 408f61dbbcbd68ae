package trust

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	bolt "go.etcd.io/bbolt"
	bolterrors "go.etcd.io/bbolt/errors"

	"github.com/metatools-go/metatools/errors"
)

// DefaultOpenTimeout is how long [Open] waits for another process to
// release the store's file lock.
const DefaultOpenTimeout = time.Second

var bucketPins = []byte("pins")

// Store is the on-disk pin store: per item of each upstream, the approved
// fingerprint and snapshot, and the version that waits for review. It is
// a bbolt database file.
//
// A Store is safe for concurrent use by goroutines: bbolt runs one write
// transaction at a time and reads beside it. One process holds the file:
// bbolt locks it while it is open, and [Open] waits up to its timeout for
// another process to release it, then fails with code
// [errors.Unavailable]. Replicas of a gateway therefore use a store each
// (the default path is per user and machine) and share their approvals
// through the configuration's pre-approved fingerprints, which every
// replica admits and pins.
//
// Cost: [Store.Observe] is one write transaction (one fsync) per listing,
// O(k log n) for a listing of k items in a store of n records, plus the
// scan of the new and changed items; [Store.Pending] reads every record,
// O(n).
type Store struct {
	db      *bolt.DB
	path    string
	scanner *Scanner
	now     func() time.Time
}

// StoreOption configures a [Store].
type StoreOption func(*storeConfig)

type storeConfig struct {
	scanner *Scanner
	timeout time.Duration
	now     func() time.Time
}

// WithScanner sets the scanner [Store.Observe] uses (the default is
// NewScanner()).
func WithScanner(s *Scanner) StoreOption { return func(c *storeConfig) { c.scanner = s } }

// WithOpenTimeout sets how long [Open] waits for the file lock (the
// default is [DefaultOpenTimeout]; 0 waits forever).
func WithOpenTimeout(d time.Duration) StoreOption { return func(c *storeConfig) { c.timeout = d } }

// WithClock sets the clock of the snapshots' times (the default is
// time.Now).
func WithClock(now func() time.Time) StoreOption { return func(c *storeConfig) { c.now = now } }

// DefaultPath returns the default path of the pin store:
// $XDG_STATE_HOME/metatools/pins.db, or ~/.local/state/metatools/pins.db
// when XDG_STATE_HOME is not set or not absolute.
func DefaultPath() (string, error) {
	if dir := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(dir) {
		return filepath.Join(dir, "metatools", "pins.db"), nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "", errors.E(errors.Unavailable, fmt.Errorf("pin store path: %w", err))
	}
	return filepath.Join(home, ".local", "state", "metatools", "pins.db"), nil
}

// Open opens the pin store at path, creating it (and its directory, mode
// 0700) when it does not exist. It fails with code [errors.Unavailable]
// when another process holds the file past the timeout, and with an
// error wrapping [ErrCorrupt] when the file is not a pin store.
func Open(path string, opts ...StoreOption) (*Store, error) {
	cfg := storeConfig{timeout: DefaultOpenTimeout, now: time.Now}
	for _, o := range opts {
		o(&cfg)
	}
	if cfg.scanner == nil {
		var err error
		if cfg.scanner, err = NewScanner(); err != nil {
			return nil, err
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, errors.E(errors.Unavailable, fmt.Errorf("pin store %s: %w", path, err))
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: cfg.timeout})
	if err != nil {
		switch {
		case errors.Is(err, bolterrors.ErrTimeout):
			return nil, errors.E(errors.Unavailable, fmt.Errorf("pin store %s: in use by another process (waited %s)", path, cfg.timeout))
		case errors.Is(err, bolterrors.ErrInvalid), errors.Is(err, bolterrors.ErrVersionMismatch), errors.Is(err, bolterrors.ErrChecksum):
			return nil, errors.E(errors.Internal, fmt.Errorf("pin store %s: %w: %w", path, ErrCorrupt, err))
		}
		return nil, errors.E(errors.Unavailable, fmt.Errorf("pin store %s: %w", path, err))
	}
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucketIfNotExists(bucketPins)
		return err
	}); err != nil {
		_ = db.Close()
		return nil, errors.E(errors.Unavailable, fmt.Errorf("pin store %s: %w", path, err))
	}
	return &Store{db: db, path: path, scanner: cfg.scanner, now: cfg.now}, nil
}

// Scanner returns the scanner [Store.Observe] uses.
func (s *Store) Scanner() *Scanner { return s.scanner }

// Path returns the store's file path.
func (s *Store) Path() string { return s.path }

// Close closes the store and releases its file. Calls after the first
// return nil.
func (s *Store) Close() error { return s.db.Close() }

// Listing is one listing of one kind of item of one upstream, for
// [Store.Observe].
type Listing struct {
	// Upstream is the upstream's configured name.
	Upstream string
	// Kind is the kind of the items listed.
	Kind Kind
	// Mode is the upstream's trust mode ("" is [ModePin]).
	Mode Mode
	// Items are every item of that kind the upstream lists now. An item
	// with an empty Upstream or Kind gets the listing's.
	Items []Item
	// PreApproved are fingerprints the configuration approves in advance.
	PreApproved []Fingerprint
	// Names, when set, is the index of the names the model sees: tools
	// are checked against the other owners' names in it, and the
	// upstream's admitted tools replace its names there.
	Names *Names
}

// Verdict is the outcome of [Store.Observe] for one item.
type Verdict struct {
	// ID is the item's ID.
	ID string
	// Item is the item, as listed.
	Item Item
	// Fingerprint is its fingerprint.
	Fingerprint Fingerprint
	// Admit reports whether it may be shown to the model.
	Admit bool
	// Reason says why ([Decision.Reason]).
	Reason string
	// Findings are the scanner's findings on a new or changed item; an
	// item admitted as approved is not scanned again.
	Findings []Finding
}

// Observe records one listing and decides, item by item, what is admitted
// and what is quarantined ([Decide]), in the listing's order. New and
// changed items are scanned (and, with l.Names, their names checked); a
// first sight admitted in pin mode, or a pre-approved fingerprint, becomes
// the approved version; a quarantined item's version waits in the store,
// keeping the time it was first seen while it does not change. Pending
// versions of items the listing no longer holds are dropped (approved
// ones are kept, so an item that leaves and comes back changed is still
// a change). Under [ModeTrusted] nothing is scanned or pinned and every
// pending version of the upstream's kind is dropped. A name listed twice
// is admitted once: the later copies are quarantined.
//
// It fails with code [errors.InvalidArgument] on a listing without
// upstream, with an unknown kind or mode, or with an item of another
// upstream or kind; and with code [errors.Unavailable] when the store
// cannot be written. On error nothing is recorded.
func (s *Store) Observe(l Listing) ([]Verdict, error) {
	mode := l.Mode
	if mode == "" {
		mode = ModePin
	}
	if _, err := ParseMode(string(mode)); err != nil {
		return nil, err
	}
	if l.Upstream == "" || strings.ContainsRune(l.Upstream, 0) {
		return nil, errors.Errorf(errors.InvalidArgument, "observe: listing without an upstream name")
	}
	if !l.Kind.Valid() {
		return nil, errors.Errorf(errors.InvalidArgument, "observe %s: kind %q", l.Upstream, l.Kind)
	}
	items := make([]Item, len(l.Items))
	for i, it := range l.Items {
		if it.Upstream == "" {
			it.Upstream = l.Upstream
		}
		if it.Kind == "" {
			it.Kind = l.Kind
		}
		if it.Upstream != l.Upstream || it.Kind != l.Kind {
			return nil, errors.Errorf(errors.InvalidArgument, "observe %s: item %q is a %s of %s", l.Upstream, it.Name, it.Kind, it.Upstream)
		}
		items[i] = it
	}
	out := make([]Verdict, len(items))
	now := s.now().UTC()
	err := storeErr(s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPins)
		listed := map[string]bool{}
		for i := range items {
			it := &items[i]
			v := &out[i]
			v.ID, v.Item, v.Fingerprint = it.ID(), *it, FingerprintOf(it)
			key := storeKey(it.Upstream, it.Kind, it.Name)
			if listed[string(key)] {
				v.Reason = "listed twice"
				continue
			}
			listed[string(key)] = true
			var rec *Record
			if val := b.Get(key); val != nil {
				var err error
				if rec, err = decodeRecord(key, val); err != nil {
					return err
				}
			}
			if mode == ModeTrusted {
				v.Admit, v.Reason = true, "upstream trusted"
				if rec != nil && rec.Pending != nil {
					if err := putOrDelete(b, key, rec, nil); err != nil {
						return err
					}
				}
				continue
			}
			in := Input{Mode: mode, Kind: it.Kind, Current: v.Fingerprint, PreApproved: l.PreApproved}
			if rec != nil && rec.Approved != nil {
				in.Approved = rec.Approved.Fingerprint
			}
			if in.Current != in.Approved {
				v.Findings = s.scanner.Scan(it)
				v.Findings = append(v.Findings, s.scanner.ScanName(l.Names, it)...)
				if rec != nil && rec.Pending != nil && rec.Pending.Fingerprint == v.Fingerprint {
					// What was found on this version stays with it until it
					// is approved: a name check depends on what else is
					// listed, and a restart lists the upstreams in another
					// order.
					for _, f := range rec.Pending.Findings {
						if !slices.Contains(v.Findings, f) {
							v.Findings = append(v.Findings, f)
						}
					}
				}
				in.Findings = v.Findings
			}
			d := Decide(in)
			v.Admit, v.Reason = d.Admit, d.Reason
			if err := s.record(b, key, rec, it, v, d, now); err != nil {
				return err
			}
		}
		return s.dropStale(b, l.Upstream, l.Kind, listed)
	}))
	if err != nil {
		return nil, err
	}
	if l.Names != nil && l.Kind == KindTool {
		l.Names.RemoveOwner(l.Upstream)
		for i := range out {
			if out[i].Admit {
				l.Names.AddItem(&out[i].Item)
			}
		}
	}
	return out, nil
}

// record writes what a decision changes in rec.
func (s *Store) record(b *bolt.Bucket, key []byte, rec *Record, it *Item, v *Verdict, d Decision, now time.Time) error {
	if rec == nil {
		rec = &Record{ID: v.ID, Upstream: it.Upstream, Kind: it.Kind, Name: it.Name}
	}
	old := *rec
	switch {
	case d.Pin:
		rec.Approved = &Snapshot{Fingerprint: v.Fingerprint, Item: *it, At: now}
		rec.Pending = nil
	case d.Admit:
		rec.Pending = nil
	default:
		first := now
		if rec.Pending != nil && rec.Pending.Fingerprint == v.Fingerprint {
			first = rec.Pending.At
		}
		p := &Pending{Snapshot: Snapshot{Fingerprint: v.Fingerprint, Item: *it, At: first}, Reason: d.Reason, Findings: v.Findings}
		if rec.Pending != nil && rec.Pending.Fingerprint == p.Fingerprint && rec.Pending.Reason == p.Reason &&
			rec.Pending.Item.Namespace == p.Item.Namespace && slices.Equal(rec.Pending.Findings, p.Findings) {
			return nil // unchanged: no write
		}
		rec.Pending = p
	}
	if old.Approved == rec.Approved && old.Pending == rec.Pending {
		return nil
	}
	return putOrDelete(b, key, rec, rec.Pending)
}

// putOrDelete stores rec with its pending version set to p, or deletes it
// when it would be neither approved nor pending.
func putOrDelete(b *bolt.Bucket, key []byte, rec *Record, p *Pending) error {
	rec.Pending = p
	if rec.Approved == nil && rec.Pending == nil {
		return b.Delete(key)
	}
	val, err := encodeRecord(rec)
	if err != nil {
		return err
	}
	return b.Put(key, val)
}

// dropStale drops the pending versions of the upstream's items of kind
// that are not in listed.
func (s *Store) dropStale(b *bolt.Bucket, upstream string, kind Kind, listed map[string]bool) error {
	prefix := storeKey(upstream, kind, "")
	var stale []*Record
	c := b.Cursor()
	for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
		if listed[string(k)] {
			continue
		}
		rec, err := decodeRecord(k, v)
		if err != nil {
			return err
		}
		if rec.Pending != nil {
			stale = append(stale, rec)
		}
	}
	for _, rec := range stale {
		if err := putOrDelete(b, storeKey(rec.Upstream, rec.Kind, rec.Name), rec, nil); err != nil {
			return err
		}
	}
	return nil
}

// Pending returns the records that wait for review, by ID.
func (s *Store) Pending() ([]Record, error) {
	var out []Record
	err := s.db.View(func(tx *bolt.Tx) error {
		return tx.Bucket(bucketPins).ForEach(func(k, v []byte) error {
			rec, err := decodeRecord(k, v)
			if err != nil {
				return err
			}
			if rec.Pending != nil {
				out = append(out, *rec)
			}
			return nil
		})
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Record) int { return strings.Compare(a.ID, b.ID) })
	return out, nil
}

// Lookup returns the record of the item with the given ID ([MakeID]). It
// fails with code [errors.NotFound] when the store has none.
func (s *Store) Lookup(id string) (Record, error) {
	up, kind, name, err := ParseID(id)
	if err != nil {
		return Record{}, err
	}
	var rec *Record
	err = s.db.View(func(tx *bolt.Tx) error {
		key := storeKey(up, kind, name)
		val := tx.Bucket(bucketPins).Get(key)
		if val == nil {
			return errors.Errorf(errors.NotFound, "pin store: no item %q", id)
		}
		rec, err = decodeRecord(key, val)
		return err
	})
	if err != nil {
		return Record{}, err
	}
	return *rec, nil
}

// Approve approves the pending versions of the items with the given IDs:
// each becomes the approved version, which the next [Store.Observe] of its
// upstream admits. It is all or nothing: an ID that is malformed, unknown
// or has nothing pending fails the call (code [errors.InvalidArgument] or
// [errors.NotFound], naming the ID) and approves none. It returns the
// approved records.
func (s *Store) Approve(ids ...string) ([]Record, error) {
	keys := make([][]byte, 0, len(ids))
	for i := 0; i < len(ids); i++ {
		up, kind, name, err := ParseID(ids[i])
		if err != nil {
			return nil, err
		}
		key := storeKey(up, kind, name)
		if slices.ContainsFunc(keys, func(k []byte) bool { return bytes.Equal(k, key) }) {
			ids = slices.Delete(slices.Clone(ids), i, i+1)
			i--
			continue
		}
		keys = append(keys, key)
	}
	return s.approve(func(b *bolt.Bucket) ([]*Record, error) {
		var recs []*Record
		for i, key := range keys {
			val := b.Get(key)
			if val == nil {
				return nil, errors.Errorf(errors.NotFound, "approve %q: no such item in the pin store", ids[i])
			}
			rec, err := decodeRecord(key, val)
			if err != nil {
				return nil, err
			}
			if rec.Pending == nil {
				return nil, errors.Errorf(errors.NotFound, "approve %q: nothing waits for review", ids[i])
			}
			recs = append(recs, rec)
		}
		return recs, nil
	})
}

// ApproveUpstream approves every pending version of the upstream's items
// and returns the approved records (none is not an error).
func (s *Store) ApproveUpstream(upstream string) ([]Record, error) {
	prefix := upstreamPrefix(upstream)
	return s.approve(func(b *bolt.Bucket) ([]*Record, error) {
		var recs []*Record
		c := b.Cursor()
		for k, v := c.Seek(prefix); k != nil && bytes.HasPrefix(k, prefix); k, v = c.Next() {
			rec, err := decodeRecord(k, v)
			if err != nil {
				return nil, err
			}
			if rec.Pending != nil {
				recs = append(recs, rec)
			}
		}
		return recs, nil
	})
}

func (s *Store) approve(pick func(*bolt.Bucket) ([]*Record, error)) ([]Record, error) {
	var out []Record
	now := s.now().UTC()
	err := storeErr(s.db.Update(func(tx *bolt.Tx) error {
		b := tx.Bucket(bucketPins)
		recs, err := pick(b)
		if err != nil {
			return err
		}
		for _, rec := range recs {
			if rec.Pending == nil { // the same ID given twice
				continue
			}
			snap := rec.Pending.Snapshot
			snap.At = now
			rec.Approved = &snap
			if err := putOrDelete(b, storeKey(rec.Upstream, rec.Kind, rec.Name), rec, nil); err != nil {
				return err
			}
			out = append(out, *rec)
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	return out, nil
}

// storeErr gives an error of bbolt itself (a full disk, a closed store)
// the code [errors.Unavailable]; errors of this package keep theirs.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	var e *errors.Error
	if errors.As(err, &e) {
		return err
	}
	return errors.E(errors.Unavailable, fmt.Errorf("pin store: %w", err))
}
