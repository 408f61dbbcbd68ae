package kubernetes

import (
	"strings"
	"sync"
)

// tail keeps the first and the last bytes written to it, max in all: the
// runner's stderr, for diagnostics (a Go runtime's fatal error comes first,
// its stacks after).
type tail struct {
	mu   sync.Mutex
	max  int
	head []byte
	buf  []byte
	cut  bool
}

func (t *tail) Write(p []byte) (int, error) {
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

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	sep := ""
	if t.cut {
		sep = "\n[...]\n"
	}
	return strings.TrimSpace(string(t.head) + sep + string(t.buf))
}
