package mcpexec

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// DefaultDiscoverTimeout is how long a connection waits for the answer to
// server/discover before it takes the server for one of a protocol before
// 2026-07-28 (see [WithDiscoverTimeout]).
const DefaultDiscoverTimeout = 5 * time.Second

// WithDiscoverTimeout bounds the wait for a server's answer to
// server/discover, the request by which a connection of protocol
// 2026-07-28 starts. A server of an earlier protocol answers it with an
// error, and the connection falls back to the initialize handshake; one
// that ignores requests it does not know would hold the connection until
// its timeout ([WithConnectTimeout]) and fail it. When the bound passes
// with no answer, the connection falls back as for an error. The default
// is [DefaultDiscoverTimeout]. It applies to servers over standard I/O
// and configured transports; a server over streamable HTTP answers an
// unknown request with an HTTP error.
func WithDiscoverTimeout(d time.Duration) Option {
	return func(o *options) { o.discoverTimeout = d }
}

// methodDiscover is the request a connection of protocol 2026-07-28 starts
// with.
const methodDiscover = "server/discover"

// discoverTransport is a transport whose connections bound the wait for
// the answer to server/discover (see [WithDiscoverTimeout]).
type discoverTransport struct {
	mcp.Transport
	timeout time.Duration
}

func (t discoverTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &discoverConn{Connection: conn, timeout: t.timeout, started: make(chan struct{}, 1)}, nil
}

// discoverConn answers a server/discover request itself, with the error
// of an unknown method, when the server has not answered it in time; the
// server's late answer is dropped. Until the handshake is past
// server/discover (the connection writes another request), the server's
// messages are read on a goroutine of their own, so that a read can end
// when the bound passes; after it, reads go straight to the connection.
//
// The SDK reads a connection from one goroutine at a time, so Read keeps
// its own state without a lock; Write, which the SDK may call from any
// goroutine, shares the probe's under mu.
type discoverConn struct {
	mcp.Connection
	timeout time.Duration
	started chan struct{} // a probe began; buffered, never closed

	mu      sync.Mutex
	probe   *probe // the server/discover awaiting its answer, or nil
	settled bool   // the handshake is past server/discover

	// Owned by Read.
	pending <-chan readResult // a read of the connection not returned yet
	late    jsonrpc.ID        // a request answered here, whose answer is dropped
}

// probe is a server/discover request awaiting its answer.
type probe struct {
	id    jsonrpc.ID
	timer *time.Timer
}

// readResult is what a read of the connection returned.
type readResult struct {
	msg jsonrpc.Message
	err error
}

func (c *discoverConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if req, ok := msg.(*jsonrpc.Request); ok && req.ID.IsValid() {
		c.mu.Lock()
		if req.Method != methodDiscover {
			c.settled = true
		} else {
			if c.probe != nil {
				c.probe.timer.Stop()
			}
			c.probe = &probe{id: req.ID, timer: time.NewTimer(c.timeout)}
			select {
			case c.started <- struct{}{}:
			default:
			}
		}
		c.mu.Unlock()
	}
	return c.Connection.Write(ctx, msg)
}

func (c *discoverConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		r, synthetic := c.read(ctx)
		if resp, ok := r.msg.(*jsonrpc.Response); ok && !synthetic && c.late.IsValid() && resp.ID == c.late {
			// The server's late answer to a probe answered here.
			c.late = jsonrpc.ID{}
			continue
		}
		return r.msg, r.err
	}
}

// read returns the next message: the server's, or the answer to a probe
// the server did not answer in time (synthetic).
func (c *discoverConn) read(ctx context.Context) (r readResult, synthetic bool) {
	for {
		c.mu.Lock()
		p, settled := c.probe, c.settled
		c.mu.Unlock()
		if settled && p == nil && c.pending == nil {
			msg, err := c.Connection.Read(ctx)
			return readResult{msg, err}, false
		}
		if c.pending == nil {
			ch := make(chan readResult, 1)
			go func() {
				msg, err := c.Connection.Read(ctx)
				ch <- readResult{msg, err}
			}()
			c.pending = ch
		}
		var expired <-chan time.Time
		if p != nil {
			expired = p.timer.C
		}
		select {
		case r := <-c.pending:
			c.pending = nil
			if resp, ok := r.msg.(*jsonrpc.Response); ok && p != nil && resp.ID == p.id {
				c.endProbe(p)
			}
			return r, false
		case <-expired:
			c.endProbe(p)
			c.late = p.id
			return readResult{msg: &jsonrpc.Response{ID: p.id, Error: &jsonrpc.Error{
				Code:    jsonrpc.CodeMethodNotFound,
				Message: fmt.Sprintf("%s: no answer within %s; taken for a server of a protocol before 2026-07-28", methodDiscover, c.timeout),
			}}}, true
		case <-c.started:
			// A probe began: wait for its answer with its bound.
		case <-ctx.Done():
			return readResult{err: ctx.Err()}, false
		}
	}
}

// endProbe ends the wait for p, unless a later probe replaced it.
func (c *discoverConn) endProbe(p *probe) {
	c.mu.Lock()
	defer c.mu.Unlock()
	p.timer.Stop()
	if c.probe == p {
		c.probe = nil
	}
}
