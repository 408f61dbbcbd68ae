package toolserver

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
)

// ServeLines serves one client reading from r and writing to w, as
// ServeStdio does with standard input and output.
func (s *Server) ServeLines(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.serveLines(ctx, r, w)
}

// FilterLines runs input through the stdio reader with lines of at most
// maxLine bytes, and returns what it hands the SDK and what it answers.
func FilterLines(input []byte, maxLine int) (handed, answered []byte, err error) {
	var out bytes.Buffer
	w := &stdioWriter{w: &out, calls: newRunningCalls()}
	r := &stdioReader{
		lines: bufio.NewReaderSize(bytes.NewReader(input), 16), maxLine: maxLine,
		out: w, ctx: context.Background(), timeout: 1, logger: slog.New(slog.DiscardHandler),
	}
	handed, err = io.ReadAll(r)
	return handed, out.Bytes(), err
}

// OriginAllowed reports whether origin may reach the server at host.
var OriginAllowed = originAllowed
