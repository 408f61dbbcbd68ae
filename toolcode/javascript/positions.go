package javascript

import (
	"strconv"
	"strings"

	"github.com/go-sourcemap/sourcemap"

	"github.com/metatools-go/metatools/errors"
)

// positionMap maps a position in the JavaScript that runs (1-based line and
// column) to the program's own. The program runs inside a wrapper
// (wrapPrefix, wrapSuffix): its first line's columns are shifted by the
// prefix, and the suffix adds a closing line after the program's last. A
// TypeScript program has, besides, the transpiler's source map, whose
// source is the wrapped TypeScript.
type positionMap struct {
	// code is the program's source.
	code string
	// consumer maps the JavaScript that runs to the wrapped source; nil
	// for a JavaScript program, which runs as it is written.
	consumer *sourcemap.Consumer
}

// original returns the program's position of a position of the source
// that runs. A position past the program's last line lies in the
// wrapper's closing line: a parser reports there a program that ends too
// early (an unclosed brace, a "return (" on the last line), and the
// position returned is then the one just after the program's last
// character that is not white space, with end set.
func (m *positionMap) original(line, col int) (origLine, origCol int, end bool) {
	if line <= 0 {
		return line, col, false
	}
	if m.consumer != nil {
		if _, _, l, c, ok := m.consumer.Source(line, max(col-1, 0)); ok {
			line, col = l, c+1
		}
	}
	if line > strings.Count(m.code, "\n")+1 {
		line, col = m.end()
		return line, col, true
	}
	if line == 1 {
		col = max(col-len(wrapPrefix), 1)
	}
	return line, col, false
}

// end returns the position just after the program's last character that
// is not white space (line 1, column 1 for an empty program). Columns
// count bytes, as the parsers' do.
func (m *positionMap) end() (line, col int) {
	code := strings.TrimRight(m.code, " \t\r\n\v\f")
	start := strings.LastIndexByte(code, '\n') + 1
	return strings.Count(code, "\n") + 1, len(code) - start + 1
}

// syntaxError returns the error of a program that does not compile, at
// the program's position of (line, col) in the source that runs. An error
// past the program's end names no token of the program (the parser
// stopped on the wrapper's), so its message says what happened instead.
func (m *positionMap) syntaxError(line, col int, msg string) error {
	line, col, end := m.original(line, col)
	msg = strings.TrimSpace(msg)
	if end {
		msg = "unexpected end of the program (is a brace, bracket or parenthesis left open?)"
	}
	e := errors.Errorf(errors.InvalidArgument, "syntax error at line %d, column %d: %s", line, col, msg)
	e.Op = "compile"
	e.Meta = map[string]string{"line": strconv.Itoa(line), "column": strconv.Itoa(col)}
	return e
}
