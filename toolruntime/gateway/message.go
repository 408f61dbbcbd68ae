package gateway

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"sync"

	"github.com/metatools-go/metatools/errors"
)

// DefaultMaxMessageBytes bounds the size of one message, so that a guest
// that writes without end cannot make the host buffer without end.
const DefaultMaxMessageBytes = 32 << 20

// Message is one JSON-RPC 2.0 message: a request (ID and Method), a
// notification (Method, no ID) or a response (ID and either Result or
// Error). IDs are positive; 0 means "no ID".
type Message struct {
	JSONRPC string            `json:"jsonrpc"`
	ID      int64             `json:"id,omitempty"`
	Method  string            `json:"method,omitempty"`
	Params  json.RawMessage   `json:"params,omitempty"`
	Result  json.RawMessage   `json:"result,omitempty"`
	Error   *errors.WireError `json:"error,omitempty"`
}

// IsRequest reports whether m asks for a response.
func (m *Message) IsRequest() bool { return m.Method != "" && m.ID > 0 }

// IsNotification reports whether m is a method call without response.
func (m *Message) IsNotification() bool { return m.Method != "" && m.ID == 0 }

// IsResponse reports whether m answers a request.
func (m *Message) IsResponse() bool { return m.Method == "" }

// Decode parses one message and checks its shape. It fails with code
// [errors.InvalidArgument], saying what is wrong, on anything but a
// well-formed request, notification or response.
func Decode(line []byte) (Message, error) {
	var m Message
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: %v", err)
	}
	if dec.More() {
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: data after the message")
	}
	switch {
	case m.JSONRPC != "2.0":
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: jsonrpc is %q, not \"2.0\"", m.JSONRPC)
	case m.ID < 0:
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: negative id %d", m.ID)
	case m.Method != "" && (m.Result != nil || m.Error != nil):
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: a call carries a result or an error")
	case m.Method == "" && m.ID == 0:
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: neither a method nor an id")
	case m.Method == "" && (m.Result == nil) == (m.Error == nil):
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: a response carries exactly one of result and error")
	case m.Method == "" && m.Params != nil:
		return Message{}, errors.Opf("gateway.Decode", errors.InvalidArgument, "malformed message: a response carries params")
	}
	return m, nil
}

// Reader reads messages, one JSON object per line.
type Reader struct {
	br  *bufio.Reader
	max int
}

// NewReader returns a Reader of r that refuses a message longer than limit
// bytes ([DefaultMaxMessageBytes] when max <= 0).
func NewReader(r io.Reader, limit int) *Reader {
	if limit <= 0 {
		limit = DefaultMaxMessageBytes
	}
	return &Reader{br: bufio.NewReaderSize(r, 64<<10), max: limit}
}

// Read returns the next message. It returns io.EOF when r ends between
// messages, an error of code [errors.InvalidArgument] for a malformed
// message or one cut short, and one of code [errors.ResourceExhausted] for
// a message longer than the bound; after an error the stream is not
// usable.
func (r *Reader) Read() (Message, error) {
	var line []byte
	for {
		chunk, err := r.br.ReadSlice('\n')
		if len(line)+len(chunk) > r.max+1 {
			return Message{}, errors.Opf("gateway.Read", errors.ResourceExhausted, "message longer than %d bytes", r.max)
		}
		line = append(line, chunk...)
		switch {
		case err == nil:
			if len(bytes.TrimSpace(line)) == 0 {
				line = line[:0]
				continue
			}
			return Decode(line)
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF) && len(bytes.TrimSpace(line)) == 0:
			return Message{}, io.EOF
		case errors.Is(err, io.EOF):
			return Message{}, errors.Opf("gateway.Read", errors.InvalidArgument, "message cut short by the end of the stream")
		default:
			return Message{}, errors.E(errors.Unavailable, err)
		}
	}
}

// Writer writes messages, one JSON object per line. It is safe for
// concurrent use.
type Writer struct {
	mu sync.Mutex
	w  io.Writer
}

// NewWriter returns a Writer to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes m. JSON never holds a raw newline, so a message is a line.
func (w *Writer) Write(m Message) error {
	m.JSONRPC = "2.0"
	b, err := json.Marshal(m)
	if err != nil {
		return errors.Opf("gateway.Write", errors.Internal, "encode message: %v", err)
	}
	b = append(b, '\n')
	w.mu.Lock()
	defer w.mu.Unlock()
	if _, err := w.w.Write(b); err != nil {
		return errors.E(errors.Unavailable, err)
	}
	return nil
}
