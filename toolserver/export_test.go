package toolserver

import (
	"context"
	"io"
)

// ServeLines serves one client reading from r and writing to w, as
// ServeStdio does with standard input and output.
func (s *Server) ServeLines(ctx context.Context, r io.Reader, w io.Writer) error {
	return s.serveLines(ctx, r, w)
}
