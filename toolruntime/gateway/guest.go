package gateway

import (
	"context"
	"encoding/json"
	"io"
	"runtime"
	"sync"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolops"
)

// RunFunc runs one execution in the guest with tools, the guest's side of
// the gateway.
type RunFunc func(ctx context.Context, ex Execution, tools toolcode.Tools) (json.RawMessage, error)

// GuestOptions configure [Serve].
type GuestOptions struct {
	// MaxMessageBytes bounds a message from the host
	// ([DefaultMaxMessageBytes] when zero).
	MaxMessageBytes int
	// Sequential reads the host's answers only while a call waits for
	// one, one call reading at a time, with no goroutine reading ahead.
	// A guest whose reads block every goroutine (a WebAssembly module on
	// WASI) needs it: calls started together still go to the host
	// together (each sends its request before any blocks in a read), but
	// the guest does nothing else while it waits for an answer.
	// Elsewhere, a goroutine reads the answers as they come.
	Sequential bool
	// Ready sends a [MethodReady] notification before reading the
	// execution: a host that starts guests ahead of their executions
	// learns that the guest's start is over ([AwaitReady]). The write
	// must not block until the host reads: over a pipe without a buffer
	// (io.Pipe), the host must read it before it sends the execution.
	Ready bool
}

// Serve is the guest's side of the protocol: it reads the host's
// execution from r, runs it with run, forwarding every tool call and log
// line of the program to the host over w, and writes the outcome. It
// returns an error only when the protocol itself fails; the program's
// failure goes to the host.
//
// Unless opts.Sequential is set, a goroutine reads the host's answers; it
// ends when r ends, which the host causes by closing the guest's stdin or
// ending the guest.
func Serve(ctx context.Context, r io.Reader, w io.Writer, run RunFunc, opts GuestOptions) error {
	out := NewWriter(w)
	if opts.Ready {
		if err := out.Write(Message{Method: MethodReady}); err != nil {
			return err
		}
	}
	in := NewReader(r, opts.MaxMessageBytes)
	m, err := in.Read()
	if err != nil {
		return err
	}
	if !m.IsRequest() || m.Method != MethodExecute {
		return errors.Opf("gateway.Serve", errors.InvalidArgument, "expected an %s request, got %q", MethodExecute, m.Method)
	}
	var ex Execution
	if err := json.Unmarshal(m.Params, &ex); err != nil {
		return out.Write(Message{ID: m.ID, Error: errors.ToWire(errors.Opf("gateway.Serve", errors.InvalidArgument, "malformed execution: %v", err))})
	}
	c := &client{
		out: out, in: in, sequential: opts.Sequential, next: executeID,
		pending: map[int64]chan Message{}, waiting: map[int64]bool{}, answers: map[int64]Message{},
	}
	c.turn = sync.NewCond(&c.mu)
	if !opts.Sequential {
		go c.readAnswers()
	}
	value, err := run(ctx, ex, c)
	reply := Message{ID: m.ID}
	if err != nil {
		reply.Error = errors.ToWire(err)
	} else {
		if len(value) == 0 {
			value = json.RawMessage("null")
		}
		reply.Result, err = json.Marshal(ExecuteResult{Value: value})
		if err != nil {
			reply.Error = errors.ToWire(errors.Opf("gateway.Serve", errors.Internal, "encode value: %v", err))
		}
	}
	return out.Write(reply)
}

// client is the guest's [toolcode.Tools]: every method is a call to the
// host.
type client struct {
	out        *Writer
	in         *Reader
	sequential bool

	mu      sync.Mutex // guards the fields below
	next    int64
	pending map[int64]chan Message
	failed  error

	// When sequential: the calls waiting for their answer, the answers
	// read for a call that has not taken it yet, whether a call is
	// reading, and the signal that the reader is done.
	waiting map[int64]bool
	answers map[int64]Message
	reading bool
	turn    *sync.Cond
}

var _ toolcode.Tools = (*client)(nil)

// readAnswers hands each answer to the call waiting for it, until the
// stream ends; then every waiting and later call fails.
func (c *client) readAnswers() {
	for {
		m, err := c.in.Read()
		if err == nil && (!m.IsResponse() || m.ID == executeID) {
			err = errors.Opf("gateway.Serve", errors.InvalidArgument, "unexpected message %q from the host", m.Method)
		}
		c.mu.Lock()
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = errors.Opf("gateway.Serve", errors.Unavailable, "the host closed the gateway")
			}
			c.failed = err
			for id, ch := range c.pending {
				close(ch)
				delete(c.pending, id)
			}
			c.mu.Unlock()
			return
		}
		ch := c.pending[m.ID]
		delete(c.pending, m.ID)
		c.mu.Unlock()
		if ch != nil {
			ch <- m
		}
	}
}

// call sends one request and decodes its answer into out.
func (c *client) call(ctx context.Context, method string, params, out any) error {
	p, err := json.Marshal(params)
	if err != nil {
		return errors.Opf(method, errors.InvalidArgument, "encode params: %v", err)
	}
	var answer Message
	if c.sequential {
		answer, err = c.callSequential(method, p)
	} else {
		answer, err = c.callConcurrent(ctx, method, p)
	}
	if err != nil {
		return err
	}
	if answer.Error != nil {
		return errors.FromWire(answer.Error)
	}
	if err := json.Unmarshal(answer.Result, out); err != nil {
		return errors.Opf(method, errors.InvalidArgument, "malformed answer: %v", err)
	}
	return nil
}

// callSequential sends one request and waits for its answer without a
// goroutine reading ahead: the calls waiting take turns at reading, one
// at a time, and the reader hands the answers of the others to them.
// Before it reads (a read blocks a WebAssembly module whole), the reader
// yields, so that the other calls ready to start send their requests
// first: calls started together are under way in the host together.
func (c *client) callSequential(method string, params json.RawMessage) (Message, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.failed != nil {
		return Message{}, c.failed
	}
	c.next++
	id := c.next
	if err := c.out.Write(Message{ID: id, Method: method, Params: params}); err != nil {
		c.failed = err
		return Message{}, err
	}
	c.waiting[id] = true
	defer delete(c.waiting, id)
	for {
		if m, ok := c.answers[id]; ok {
			delete(c.answers, id)
			return m, nil
		}
		if c.failed != nil {
			return Message{}, c.failed
		}
		if c.reading {
			c.turn.Wait()
			continue
		}
		c.reading = true
		c.mu.Unlock()
		runtime.Gosched()
		m, err := c.in.Read()
		c.mu.Lock()
		c.reading = false
		switch {
		case errors.Is(err, io.EOF):
			err = errors.Opf("gateway.Serve", errors.Unavailable, "the host closed the gateway")
		case err == nil && (!m.IsResponse() || !c.waiting[m.ID] || m.ID == executeID):
			err = errors.Opf("gateway.Serve", errors.InvalidArgument, "unexpected message %d %q from the host", m.ID, m.Method)
		}
		if err != nil {
			c.failed = err
		} else {
			c.answers[m.ID] = m
		}
		c.turn.Broadcast()
	}
}

func (c *client) callConcurrent(ctx context.Context, method string, params json.RawMessage) (Message, error) {
	ch := make(chan Message, 1)
	c.mu.Lock()
	if c.failed != nil {
		c.mu.Unlock()
		return Message{}, c.failed
	}
	c.next++
	id := c.next
	c.pending[id] = ch
	c.mu.Unlock()
	if err := c.out.Write(Message{ID: id, Method: method, Params: params}); err != nil {
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return Message{}, err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			c.mu.Lock()
			defer c.mu.Unlock()
			return Message{}, c.failed
		}
		return m, nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, id)
		c.mu.Unlock()
		return Message{}, errors.FromContext(ctx, method, context.Cause(ctx))
	}
}

func (c *client) Search(ctx context.Context, req toolops.SearchRequest) (toolops.SearchResult, error) {
	var out toolops.SearchResult
	return out, c.call(ctx, MethodSearch, req, &out)
}

func (c *client) Namespaces(ctx context.Context) ([]string, error) {
	var out []string
	return out, c.call(ctx, MethodNamespaces, struct{}{}, &out)
}

func (c *client) Describe(ctx context.Context, req toolops.DescribeRequest) (tooldocs.Doc, error) {
	var out tooldocs.Doc
	return out, c.call(ctx, MethodDescribe, req, &out)
}

func (c *client) Examples(ctx context.Context, req toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	var out []tooldocs.Example
	return out, c.call(ctx, MethodExamples, req, &out)
}

func (c *client) Run(ctx context.Context, id string, args map[string]any) (any, error) {
	var out any
	return out, c.call(ctx, MethodRun, runParams{ID: id, Args: args}, &out)
}

func (c *client) Chain(ctx context.Context, steps []toolops.ChainStep) ([]any, error) {
	var out []any
	return out, c.call(ctx, MethodChain, chainParams{Steps: steps}, &out)
}

// Log sends the line to the host, which counts it against the output
// limit and ends the execution when it is reached.
func (c *client) Log(_ context.Context, line string) error {
	p, err := json.Marshal(logParams{Line: line})
	if err != nil {
		return errors.Opf(MethodLog, errors.InvalidArgument, "encode log: %v", err)
	}
	return c.out.Write(Message{Method: MethodLog, Params: p})
}
