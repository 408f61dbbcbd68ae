package mcpexec

import (
	"bytes"
	"strings"
	"sync"

	"github.com/metatools-go/metatools/toolmodel"
)

// The bounds of what is kept of a command server's standard error: the
// last lines, few and short enough to quote in an error message and a log
// record.
const (
	// stderrTailLines is the most lines kept.
	stderrTailLines = 20
	// stderrTailBytes is the most bytes the kept lines hold together.
	stderrTailBytes = 4 << 10
	// stderrLineBytes is the most bytes kept of one line; a longer one is
	// cut, and ends with "…".
	stderrLineBytes = 512
	// stderrPieceBytes is the longest line passed on to the receivers of
	// the stream (ServerConfig.Stderr, the log): a longer line is passed
	// on in pieces of this size, so that a process writing without
	// newlines cannot make the reader hold an unbounded line.
	stderrPieceBytes = 4 << 10
	// errorTailLines is the most lines an error message quotes.
	errorTailLines = 5
)

// stderrTail splits what a process writes to its standard error into
// lines, passes each line to a receiver, and keeps the last lines in a
// bounded ring: [stderrTailLines] lines, [stderrTailBytes] bytes. The
// lines kept are cleaned for quoting: terminal escape sequences and other
// control characters are dropped, invalid UTF-8 is replaced, and blank
// lines are not kept. Both the lines passed on and those kept go through
// a redaction first (the kept ones once cleaned, so that dropping
// characters cannot put a secret back together, and before they are cut,
// so that no part of one is left at the cut). A secret that a line longer
// than [stderrPieceBytes] holds across the end of a piece is passed on in
// two parts, neither of which is the secret.
//
// A stderrTail is safe for concurrent use. Write never blocks on anything
// but the receiver, and keeps memory bounded whatever it is given.
type stderrTail struct {
	// line receives each line, without its line ending, in order; it is
	// called with no lock held, from the goroutine calling Write or Flush.
	line func(line []byte)
	// redact returns a line without the secrets it may hold; nil
	// changes nothing.
	redact func(line string) string

	mu      sync.Mutex
	partial []byte // the line being written, at most stderrPieceBytes
	ring    [stderrTailLines]string
	start   int // index of the oldest line in ring
	n       int // number of lines in ring
	size    int // bytes of the lines in ring
}

// newStderrTail returns a tail passing each line, redacted by redact, to
// line; either may be nil.
func newStderrTail(line func([]byte), redact func(string) string) *stderrTail {
	return &stderrTail{line: line, redact: redact}
}

// Write splits p into lines; the last one, unless p ends with a newline,
// waits for the next Write or for Flush. It always consumes all of p.
func (t *stderrTail) Write(p []byte) (int, error) {
	n := len(p)
	var done [][]byte
	t.mu.Lock()
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		chunk := p
		if i >= 0 {
			chunk = p[:i]
		}
		// Take what fits in the current piece.
		room := stderrPieceBytes - len(t.partial)
		if len(chunk) > room {
			chunk = chunk[:room]
			i = -2 // the piece is full: end it, and go on with the rest of the line
		}
		t.partial = append(t.partial, chunk...)
		p = p[len(chunk):]
		switch {
		case i >= 0:
			p = p[1:] // the newline
			done = append(done, t.endLine())
		case i == -2:
			done = append(done, t.endLine())
		}
	}
	t.mu.Unlock()
	t.deliver(done)
	return n, nil
}

// Flush ends the line being written, if any: at the end of the stream, a
// last line need not end with a newline.
func (t *stderrTail) Flush() {
	t.mu.Lock()
	var done [][]byte
	if len(t.partial) > 0 {
		done = append(done, t.endLine())
	}
	t.mu.Unlock()
	t.deliver(done)
}

// endLine keeps the line being written in the ring and returns a copy of
// it for the receiver. It must be called with t.mu held.
func (t *stderrTail) endLine() []byte {
	line := t.partial
	if len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	t.keep(cutLine(t.redacted(cleanLine(line))))
	var out []byte
	if t.line != nil {
		if t.redact == nil {
			out = append([]byte(nil), line...)
		} else {
			out = []byte(t.redact(string(line)))
		}
	}
	t.partial = t.partial[:0]
	return out
}

// redacted returns a cleaned line without its secrets, still valid UTF-8.
func (t *stderrTail) redacted(line string) string {
	if t.redact == nil {
		return line
	}
	return strings.ToValidUTF8(t.redact(line), "\uFFFD")
}

// deliver passes complete lines to the receiver.
func (t *stderrTail) deliver(lines [][]byte) {
	if t.line == nil {
		return
	}
	for _, l := range lines {
		t.line(l)
	}
}

// keep adds a cleaned line to the ring, dropping the oldest lines beyond
// the bounds. It must be called with t.mu held.
func (t *stderrTail) keep(line string) {
	if strings.TrimSpace(line) == "" {
		return
	}
	if t.n == stderrTailLines {
		t.drop()
	}
	t.ring[(t.start+t.n)%stderrTailLines] = line
	t.n++
	t.size += len(line)
	for t.size > stderrTailBytes {
		t.drop()
	}
}

// drop forgets the oldest line. It must be called with t.mu held.
func (t *stderrTail) drop() {
	t.size -= len(t.ring[t.start])
	t.ring[t.start] = ""
	t.start = (t.start + 1) % stderrTailLines
	t.n--
}

// Lines returns the last lines kept, at most limit of them, oldest first.
func (t *stderrTail) Lines(limit int) []string {
	t.mu.Lock()
	defer t.mu.Unlock()
	k := min(limit, t.n)
	out := make([]string, 0, k)
	for i := t.n - k; i < t.n; i++ {
		out = append(out, t.ring[(t.start+i)%stderrTailLines])
	}
	return out
}

// summary returns the last lines for an error message or a log record,
// at most limit of them, on one line, or "" when the process wrote
// nothing.
func (t *stderrTail) summary(limit int) string {
	return strings.Join(t.Lines(limit), " | ")
}

// cleanLine returns a line of standard error fit to quote: escape
// sequences (such as the colours of a terminal) and control characters
// other than tabs removed, and invalid UTF-8 replaced by U+FFFD.
func cleanLine(line []byte) string {
	if plain(line) {
		return string(line)
	}
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == 0x1b:
			i = skipEscape(line, i)
		case c == '\t' || c >= 0x20 && c != 0x7f:
			b.WriteByte(c)
		}
	}
	return strings.ToValidUTF8(b.String(), "\uFFFD")
}

// cutLine cuts a cleaned line at [stderrLineBytes], ending it with "…".
func cutLine(s string) string {
	if len(s) <= stderrLineBytes {
		return s
	}
	return toolmodel.CutUTF8(s, stderrLineBytes-len("…")) + "…"
}

// plain reports whether a line holds printable ASCII and tabs only.
func plain(line []byte) bool {
	for _, c := range line {
		if c != '\t' && (c < 0x20 || c >= 0x7f) {
			return false
		}
	}
	return true
}

// skipEscape returns the index of the last byte of the escape sequence
// that starts at line[i] (an ESC): a control sequence ESC [ ... ending
// with a byte from '@' to '~', or ESC and one more byte.
func skipEscape(line []byte, i int) int {
	if i+1 >= len(line) {
		return i
	}
	if line[i+1] != '[' {
		return i + 1
	}
	for j := i + 2; j < len(line); j++ {
		if '@' <= line[j] && line[j] <= '~' {
			return j
		}
	}
	return len(line) - 1
}
