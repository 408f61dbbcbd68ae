package runner

import (
	"strings"
	"sync"
)

// NewStderr returns a [Stderr] keeping at most limit bytes.
func NewStderr(limit int) *Stderr { return &Stderr{max: limit} }

// Stderr keeps the first and the last bytes written to it, at most its limit in
// all: what a host keeps of a runner's stderr, for the error of a runner
// that ends without answering (a Go runtime's fatal error comes first,
// its stacks after). It is safe for concurrent use.
type Stderr struct {
	mu   sync.Mutex
	max  int
	head []byte
	buf  []byte
	cut  bool
}

// Write keeps what p adds to the first and last bytes; it never fails.
func (t *Stderr) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := len(p)
	if room := t.max/4 - len(t.head); room > 0 {
		k := min(room, len(p))
		t.head = append(t.head, p[:k]...)
		p = p[k:]
	}
	t.buf = append(t.buf, p...)
	if over := len(t.buf) - (t.max - t.max/4); over > 0 {
		t.buf = append(t.buf[:0], t.buf[over:]...)
		t.cut = true
	}
	return n, nil
}

// String returns the bytes kept, "[...]" marking a cut.
func (t *Stderr) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	sep := ""
	if t.cut {
		sep = "\n[...]\n"
	}
	return strings.TrimSpace(string(t.head) + sep + string(t.buf))
}
