package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// StdioOptions configure [ServeLines].
type StdioOptions struct {
	// MaxLine is the longest line read, in bytes; a longer one is
	// answered with a parse error.
	MaxLine int
	// ShutdownTimeout bounds the wait, once the client has closed its
	// input, for the calls still running to answer.
	ShutdownTimeout time.Duration
	// Logger reports the calls abandoned at the end.
	Logger *slog.Logger
}

// ServeLines serves one client of server, reading its messages from r
// and writing the server's to w, one JSON-RPC message per line, until the
// client closes its input or ctx is done.
//
// A line that is not JSON, is longer than opts.MaxLine or nests too
// deeply is answered with a parse error (-32700), and one that is JSON
// but no JSON-RPC message with an invalid-request error (-32600), both
// with a null id; reading goes on with the next line, where the SDK alone
// would end the connection. Once the client closes its input, the calls
// still running are let finish and answer, for at most
// opts.ShutdownTimeout.
func ServeLines(ctx context.Context, server *mcp.Server, r io.Reader, w io.Writer, opts StdioOptions) error {
	out := &stdioWriter{w: w, calls: newRunningCalls()}
	in := &stdioReader{
		lines:   bufio.NewReaderSize(r, 64<<10),
		maxLine: opts.MaxLine,
		source:  r,
		out:     out,
		ctx:     ctx,
		timeout: opts.ShutdownTimeout,
		logger:  opts.Logger,
	}
	// The reader bounds lines itself, so the SDK's own bound is lifted.
	return server.Run(ctx, &mcp.IOTransport{Reader: in, Writer: out, MaxLineLength: -1})
}

// runningCalls are the IDs of the client's requests not answered yet, and
// of those it cancelled, which it expects no answer to.
type runningCalls struct {
	mu        sync.Mutex
	ids       map[any]bool
	cancelled map[any]bool
	drained   chan struct{} // closed when ids empties, while someone waits
}

func newRunningCalls() *runningCalls {
	return &runningCalls{ids: map[any]bool{}, cancelled: map[any]bool{}}
}

// cancel notes that the client cancelled a request it is waiting for: the
// end of the input does not wait for it, and its answer is not sent.
func (c *runningCalls) cancel(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.ids[id.Raw()] {
		c.cancelled[id.Raw()] = true
		c.endLocked(id)
	}
}

// dropAnswer reports whether the answer to a request is to be dropped,
// since the client cancelled the request, and forgets the request.
func (c *runningCalls) dropAnswer(id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.cancelled[id.Raw()] {
		delete(c.cancelled, id.Raw())
		return true
	}
	return false
}

func (c *runningCalls) start(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ids[id.Raw()] = true
}

func (c *runningCalls) end(id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.endLocked(id)
}

func (c *runningCalls) endLocked(id jsonrpc.ID) {
	delete(c.ids, id.Raw())
	if len(c.ids) == 0 && c.drained != nil {
		close(c.drained)
		c.drained = nil
	}
}

// wait waits until every call has answered, timeout passed or ctx is done,
// and returns the number of calls still running.
func (c *runningCalls) wait(ctx context.Context, timeout time.Duration) int {
	c.mu.Lock()
	if len(c.ids) == 0 {
		c.mu.Unlock()
		return 0
	}
	if c.drained == nil {
		c.drained = make(chan struct{})
	}
	drained := c.drained
	c.mu.Unlock()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-timer.C:
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.ids)
}

// stdioWriter writes the server's messages, one per Write as the SDK
// sends them, and the reader's answers to bad lines, never interleaving
// them; it notes the calls that have been answered, and drops the answers
// to requests the client cancelled, which MCP says are not to be sent
// (the SDK sends them).
type stdioWriter struct {
	mu    sync.Mutex
	w     io.Writer
	calls *runningCalls
}

func (o *stdioWriter) Write(p []byte) (int, error) {
	msgs, _, _ := decodeLine(bytes.TrimSpace(p))
	if len(msgs) == 1 {
		if resp, ok := msgs[0].(*jsonrpc.Response); ok && o.calls.dropAnswer(resp.ID) {
			return len(p), nil
		}
	}
	o.mu.Lock()
	n, err := o.w.Write(p)
	o.mu.Unlock()
	for _, msg := range msgs {
		if resp, ok := msg.(*jsonrpc.Response); ok {
			o.calls.end(resp.ID)
		}
	}
	return n, err
}

// Close does not close the output, which belongs to the process.
func (o *stdioWriter) Close() error { return nil }

// reply answers a line that cannot be handled with a JSON-RPC error
// whose id is null, as JSON-RPC asks when the request's id is unknown.
func (o *stdioWriter) reply(code int64, message string) error {
	data, err := json.Marshal(errorReply{JSONRPC: "2.0", Error: &jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	_, err = o.w.Write(append(data, '\n'))
	return err
}

// errorReply is a JSON-RPC error response with a null id.
type errorReply struct {
	JSONRPC string         `json:"jsonrpc"`
	ID      *struct{}      `json:"id"`
	Error   *jsonrpc.Error `json:"error"`
}

// stdioReader hands the SDK the client's lines that are JSON-RPC messages,
// one at a time, answers the others itself, and at the end of the input
// holds the end back until the running calls have answered.
type stdioReader struct {
	lines   *bufio.Reader
	maxLine int
	source  io.Reader
	out     *stdioWriter
	ctx     context.Context
	timeout time.Duration
	logger  *slog.Logger

	pending []byte // the rest of the line being handed over
}

func (r *stdioReader) Read(p []byte) (int, error) {
	for len(r.pending) == 0 {
		line, tooLong, err := readLine(r.lines, r.maxLine)
		switch {
		case tooLong:
			if werr := r.out.reply(jsonrpc.CodeParseError, fmt.Sprintf("Parse error: line longer than %d bytes", r.maxLine)); werr != nil {
				return 0, werr
			}
		case len(bytes.TrimSpace(line)) > 0:
			if err := r.accept(line); err != nil {
				return 0, err
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) && len(r.pending) == 0 {
				r.drain()
			}
			if len(r.pending) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, r.pending)
	r.pending = r.pending[n:]
	return n, nil
}

// accept checks one line: a message is handed over, anything else
// answered.
func (r *stdioReader) accept(line []byte) error {
	line = bytes.TrimSpace(line)
	msgs, code, problem := decodeLine(line)
	if problem != "" {
		return r.out.reply(code, problem)
	}
	for _, msg := range msgs {
		switch m := msg.(type) {
		case *jsonrpc.Request:
			if m.IsCall() {
				r.out.calls.start(m.ID)
			} else if m.Method == "notifications/cancelled" {
				r.cancelled(m.Params)
			}
		}
	}
	r.pending = append(line, '\n')
	return nil
}

// cancelled stops waiting for a call the client cancelled: it may never
// be answered, and an answer is not sent.
func (r *stdioReader) cancelled(params json.RawMessage) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	if id, err := jsonrpc.MakeID(p.RequestID); err == nil {
		r.out.calls.cancel(id)
	}
}

// drain waits, at the end of the input, for the running calls to answer.
func (r *stdioReader) drain() {
	if left := r.out.calls.wait(r.ctx, r.timeout); left > 0 {
		r.logger.Warn("input closed; calls still running are abandoned", "calls", left, "shutdownTimeout", r.timeout)
	}
}

// Close closes the input, if it can be closed.
func (r *stdioReader) Close() error {
	if c, ok := r.source.(io.Closer); ok {
		return c.Close()
	}
	return nil
}

// readLine reads one line, without its end, from r. A line longer than
// limit is skipped to its end and reported as tooLong, holding no more
// than limit bytes meanwhile. err is that of the read that ended the line
// (io.EOF for a last line without an end).
func readLine(r *bufio.Reader, limit int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > limit+1 { // +1: the line's end
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// decodeLine returns the messages of a line (one, or a batch), or the
// JSON-RPC error the line calls for: a parse error for what is not JSON
// (or nests deeper than encoding/json allows), an invalid request for JSON
// that is no message nor a batch of them. These are the checks the SDK
// makes, so that it never meets a line that would end the connection.
func decodeLine(line []byte) (msgs []jsonrpc.Message, code int64, problem string) {
	if !json.Valid(line) {
		return nil, jsonrpc.CodeParseError, "Parse error: the line is not a JSON value"
	}
	if line[0] != '[' {
		msg, err := jsonrpc.DecodeMessage(line)
		if err != nil {
			return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
		}
		return []jsonrpc.Message{msg}, 0, ""
	}
	var batch []json.RawMessage
	if err := json.Unmarshal(line, &batch); err != nil || len(batch) == 0 {
		return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an empty batch"
	}
	msgs = make([]jsonrpc.Message, 0, len(batch))
	for _, raw := range batch {
		msg, err := jsonrpc.DecodeMessage(raw)
		if err != nil {
			return nil, jsonrpc.CodeInvalidRequest, "Invalid Request: " + err.Error()
		}
		msgs = append(msgs, msg)
	}
	return msgs, 0, ""
}
