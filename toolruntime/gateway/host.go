package gateway

import (
	"context"
	"encoding/json"
	"io"
	"sync"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolops"
)

// Host runs one execution in a guest that speaks the protocol over a pair
// of pipes: it reads the guest's messages from r (the guest's stdout) and
// writes to w (the guest's stdin). It sends ex, answers every tool call of
// the guest through tools (the gateway: the only way the guest reaches a
// tool, counted and bounded by tools itself), hands the guest's log lines to
// tools.Log, and returns the guest's answer.
//
// The guest's errors keep their codes. A stream that ends before the
// answer fails with code [errors.Unavailable]; a malformed or oversized
// message, or a response to nothing, with [errors.InvalidArgument] or
// [errors.ResourceExhausted] — a guest that breaks the protocol is not
// trusted further. When ctx is done Host closes r and w, those that are
// io.Closers, and returns the context's error once the read or write
// blocked on them ends; the caller stops the guest. Host returns only after every tool call it started has returned.
func Host(ctx context.Context, r io.Reader, w io.Writer, ex Execution, tools toolcode.Tools, maxMessage int) (json.RawMessage, error) {
	ctx, cancel := context.WithCancel(ctx)
	var calls sync.WaitGroup
	defer calls.Wait()
	defer cancel()
	// A read or a write blocked on a guest that does not take part ends
	// when its stream is closed.
	for _, stream := range []any{r, w} {
		if c, ok := stream.(io.Closer); ok {
			stop := context.AfterFunc(ctx, func() { _ = c.Close() })
			defer stop()
		}
	}

	out := NewWriter(w)
	params, err := json.Marshal(ex)
	if err != nil {
		return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "encode execution: %v", err)
	}
	if err := out.Write(Message{ID: executeID, Method: MethodExecute, Params: params}); err != nil {
		return nil, hostError(ctx, err)
	}
	in := NewReader(r, maxMessage)
	for first := true; ; first = false {
		m, err := in.Read()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.Opf("gateway.Host", errors.Unavailable, "the guest ended without answering")
			}
			return nil, hostError(ctx, err)
		}
		switch {
		case m.IsResponse() && m.ID == executeID:
			if m.Error != nil {
				return nil, errors.FromWire(m.Error)
			}
			var res ExecuteResult
			if err := json.Unmarshal(m.Result, &res); err != nil {
				return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "malformed answer: %v", err)
			}
			return res.Value, nil
		case m.IsResponse():
			return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "the guest answered request %d, which the host never sent", m.ID)
		case first && m.IsNotification() && m.Method == MethodReady:
			// A guest started on demand announces its start too: only as
			// its first message, so that it cannot keep the host busy
			// with it.
		case m.IsNotification() && m.Method == MethodLog:
			var p logParams
			if err := json.Unmarshal(m.Params, &p); err != nil {
				return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "malformed log: %v", err)
			}
			if err := tools.Log(ctx, p.Line); err != nil {
				return nil, err
			}
		case m.IsNotification():
			return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "unknown notification %q", m.Method)
		default:
			calls.Add(1)
			go func() {
				defer calls.Done()
				result, err := serveCall(ctx, tools, m.Method, m.Params)
				reply := Message{ID: m.ID}
				if err != nil {
					reply.Error = errors.ToWire(err)
				} else {
					reply.Result = result
				}
				// A guest gone cannot be answered; the read loop sees it end.
				_ = out.Write(reply)
			}()
		}
	}
}

// maxReadyBytes bounds what [AwaitReady] reads: a ready notification is
// a few tens of bytes.
const maxReadyBytes = 256

// AwaitReady reads the guest's [MethodReady] notification from r, its
// stdout, and nothing after it, so that r can then be given to [Host]: a
// host that starts guests ahead of their executions learns with it that a
// guest has started and waits for its execution. It reads one byte at a
// time (the guest writes nothing else before the execution). It fails
// with code [errors.Unavailable] when r ends first, and with
// [errors.InvalidArgument] when the guest sends anything else.
func AwaitReady(r io.Reader) error {
	line := make([]byte, 0, 64)
	var b [1]byte
	for len(line) < maxReadyBytes {
		n, err := r.Read(b[:])
		if n == 1 {
			if b[0] == '\n' {
				m, err := Decode(line)
				if err != nil {
					return err
				}
				if !m.IsNotification() || m.Method != MethodReady {
					return errors.Opf("gateway.AwaitReady", errors.InvalidArgument, "expected a %s notification, got %q", MethodReady, m.Method)
				}
				return nil
			}
			line = append(line, b[0])
			continue
		}
		if err != nil {
			return errors.Opf("gateway.AwaitReady", errors.Unavailable, "the guest ended before it was ready: %v", err)
		}
	}
	return errors.Opf("gateway.AwaitReady", errors.InvalidArgument, "no %s notification in the first %d bytes", MethodReady, maxReadyBytes)
}

// hostError prefers the context's error: when ctx is done the stream was
// closed on purpose, and its end says nothing more.
func hostError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return errors.FromContext(ctx, "gateway.Host", context.Cause(ctx))
	}
	return err
}

// serveCall runs one tool method of the guest and returns its result as
// JSON.
func serveCall(ctx context.Context, tools toolcode.Tools, method string, params json.RawMessage) (json.RawMessage, error) {
	var (
		out any
		err error
	)
	switch method {
	case MethodSearch:
		var p toolops.SearchRequest
		if err = decodeParams(method, params, &p); err == nil {
			out, err = tools.Search(ctx, p)
		}
	case MethodNamespaces:
		out, err = tools.Namespaces(ctx)
	case MethodDescribe:
		var p toolops.DescribeRequest
		if err = decodeParams(method, params, &p); err == nil {
			out, err = tools.Describe(ctx, p)
		}
	case MethodExamples:
		var p toolops.ExamplesRequest
		if err = decodeParams(method, params, &p); err == nil {
			out, err = tools.Examples(ctx, p)
		}
	case MethodRun:
		var p runParams
		if err = decodeParams(method, params, &p); err == nil {
			out, err = tools.Run(ctx, p.ID, p.Args)
		}
	case MethodChain:
		var p chainParams
		if err = decodeParams(method, params, &p); err == nil {
			out, err = tools.Chain(ctx, p.Steps)
		}
	default:
		return nil, errors.Opf("gateway.Host", errors.InvalidArgument, "unknown method %q", method)
	}
	if err != nil {
		return nil, err
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, errors.Opf("gateway.Host", errors.Internal, "encode %s result: %v", method, err)
	}
	return b, nil
}

func decodeParams(method string, params json.RawMessage, v any) error {
	if len(params) == 0 {
		return errors.Opf("gateway.Host", errors.InvalidArgument, "%s: missing params", method)
	}
	if err := json.Unmarshal(params, v); err != nil {
		return errors.Opf("gateway.Host", errors.InvalidArgument, "%s: malformed params: %v", method, err)
	}
	return nil
}
