package mcpexec

import (
	"context"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolrun/mcpotel"
)

// Client is the MCP client on whose behalf a call runs, when the call is
// made by a server that puts MCP servers behind its own: a gateway. What
// a server asks of its client during the call — sampling, elicitation —
// and the log messages it sends reach this client, so that the gateway is
// transparent. [*mcp.ServerSession] implements it: a gateway built on the
// go-sdk passes the session of the request it serves ([WithClient]).
//
// A Client is used concurrently by the calls made on its behalf; its
// methods take the context of the call that the server's request belongs
// to, when there is one.
type Client interface {
	// InitializeParams returns what the client declared when it
	// connected; its capabilities decide what is forwarded to it. It may
	// return nil (a client that did not initialize).
	InitializeParams() *mcp.InitializeParams
	// CreateMessage asks the client to sample its model.
	CreateMessage(context.Context, *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error)
	// CreateMessageWithTools asks the client to sample its model, with
	// tools, when the client declared that it can.
	CreateMessageWithTools(context.Context, *mcp.CreateMessageWithToolsParams) (*mcp.CreateMessageWithToolsResult, error)
	// Elicit asks the client's user for input.
	Elicit(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error)
	// ListRoots asks the client for its roots, when it declared that it
	// has them.
	ListRoots(context.Context, *mcp.ListRootsParams) (*mcp.ListRootsResult, error)
	// NotifyElicitationComplete tells the client that an elicitation in
	// URL mode completed.
	NotifyElicitationComplete(context.Context, *mcp.ElicitationCompleteParams) error
	// Log sends the client a log message, which the client's own logging
	// level filters.
	Log(context.Context, *mcp.LoggingMessageParams) error
	// Wait blocks until the client's session ends. The manager then
	// closes the sessions it opened for the client.
	Wait() error
}

var _ Client = (*mcp.ServerSession)(nil)

type clientKey struct{}

// WithClient returns a context whose calls run on behalf of c: a call of
// [Manager.Execute] with this context forwards to c what the server asks
// of its client during the call, and the log messages it sends.
//
// When c declared that it can answer sampling or elicitation requests,
// its calls run on a session of the server opened for c alone, which
// declares c's capabilities, no more, and ends when c's session ends
// ([Client.Wait]): every request the server sends on it is c's. Other
// clients' calls share one session (see [WithSharedCapabilities]); the
// log messages it receives reach the client whose calls are in flight on
// it, when they all belong to one client, and the manager's logger
// otherwise, so that no client ever sees another's.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

type logLevelKey struct{}

// WithLogLevel returns a context whose calls ask their servers for the
// log messages of level and above: the level a client of protocol
// 2026-07-28 or later gave its own request, which a server of that
// protocol needs on each request to send any. A call on behalf of a
// client without it ([WithClient]) asks for every message when the
// client speaks an earlier protocol, whose level the client set for its
// session and which filters the messages forwarded to it, and for none
// otherwise.
func WithLogLevel(ctx context.Context, level mcp.LoggingLevel) context.Context {
	return context.WithValue(ctx, logLevelKey{}, level)
}

// logLevelFor returns the log level to ask a server for on a request made
// with ctx, or "".
func logLevelFor(ctx context.Context) mcp.LoggingLevel {
	if level, ok := ctx.Value(logLevelKey{}).(mcp.LoggingLevel); ok {
		return level
	}
	if caller := clientFrom(ctx); caller != nil && !RetriesForInput(caller) {
		return "debug"
	}
	return ""
}

// clientFrom returns the client of the calls made with ctx, or nil.
func clientFrom(ctx context.Context) Client {
	c, _ := ctx.Value(clientKey{}).(Client)
	return c
}

// firstResultInputVersion is the first protocol version whose servers ask
// their clients for input in a call's result, not by requests of their
// own.
const firstResultInputVersion = "2026-07-28"

// RetriesForInput reports whether a client answers a server's requests
// for input by making the call again with its answers (protocol
// 2026-07-28 on), rather than by answering requests the server sends
// during the call: a gateway gives its calls a [toolrun.CallOptions.Input]
// for such a client.
func RetriesForInput(c Client) bool {
	p := c.InitializeParams()
	return p != nil && p.ProtocolVersion >= firstResultInputVersion
}

// capabilitiesOf returns the capabilities a client declared, never nil.
func capabilitiesOf(c Client) *mcp.ClientCapabilities {
	if p := c.InitializeParams(); p != nil && p.Capabilities != nil {
		return p.Capabilities
	}
	return &mcp.ClientCapabilities{}
}

// receivesRequests reports whether a client can be sent a server's own
// requests during a call, and so gets a connection of its own: it declared
// sampling or elicitation, and speaks a protocol before 2026-07-28. From
// 2026-07-28 on, a server asks for input in a call's result instead, and
// a client of its own would only cost a connection (a process, for a
// command server) for each of its calls, which a stateless server sees
// as clients of their own.
func receivesRequests(c Client) bool {
	if RetriesForInput(c) {
		return false
	}
	caps := capabilitiesOf(c)
	return caps.Sampling != nil || caps.Elicitation != nil
}

// newConn returns a connection to the server, for one client alone
// (caller) or shared by all (nil). Its MCP client declares the caller's
// sampling and elicitation capabilities, or for the shared connection
// those of [WithSharedCapabilities], and forwards the server's requests
// and notifications.
func (s *server) newConn(caller Client) *conn {
	c := &conn{s: s, caller: caller}
	declared := s.m.opts.shared
	if caller != nil {
		declared = capabilitiesOf(caller)
	}
	caps := &mcp.ClientCapabilities{
		// The SDK's default: roots, with an empty list, since some
		// servers offer root-related tools only to clients that declare
		// them.
		RootsV2:     &mcp.RootCapabilities{ListChanged: true},
		Sampling:    declared.Sampling,
		Elicitation: declared.Elicitation,
	}
	opts := &mcp.ClientOptions{
		Logger:                      s.m.opts.logger,
		Capabilities:                caps,
		ProgressNotificationHandler: s.m.deliverProgress,
		LoggingMessageHandler:       c.forwardLog,
		ElicitationCompleteHandler:  c.forwardElicitationComplete,
	}
	if caller == nil {
		// The calls on the shared session relay a server's requests for
		// input to their callers, or fail (see Manager.Execute), rather
		// than have the SDK answer them.
		opts.MultiRoundTrip = &mcp.MultiRoundTripOptions{Disabled: true}
		// The shared session's tools, resources and prompts are the
		// catalogue's, and subscriptions are made on it.
		opts.ToolListChangedHandler = func(context.Context, *mcp.ToolListChangedRequest) { s.m.toolsChanged(s) }
		s.m.opts.notifications.clientHandlers(s.name, opts)
	}
	switch {
	case caps.Sampling != nil && caps.Sampling.Tools != nil:
		opts.CreateMessageWithToolsHandler = c.sampleWithTools
	case caps.Sampling != nil:
		opts.CreateMessageHandler = c.sample
	}
	if caps.Elicitation != nil {
		opts.ElicitationHandler = c.elicit
	}
	c.client = mcp.NewClient(s.m.opts.client, opts)
	c.client.AddReceivingMiddleware(c.forwardRoots)
	if instrument := mcpotel.Client(s.telemetry()); instrument != nil {
		c.client.AddSendingMiddleware(instrument)
	}
	return c
}

// callInFlight is a call under way on a connection.
type callInFlight struct {
	ctx    context.Context
	caller Client
}

// track records a call in flight on c until the returned function is
// called.
func (c *conn) track(ctx context.Context) (done func()) {
	call := &callInFlight{ctx: ctx, caller: clientFrom(ctx)}
	c.s.mu.Lock()
	c.calls = append(c.calls, call)
	c.s.mu.Unlock()
	return func() {
		c.s.mu.Lock()
		defer c.s.mu.Unlock()
		for i, other := range c.calls {
			if other == call {
				c.calls = append(c.calls[:i], c.calls[i+1:]...)
				return
			}
		}
	}
}

// target returns the client a request or notification of the server,
// received with ctx, is for, and the context to forward it with: the
// context of a call of that client in flight, so that the client's
// transport sends it with that call (on its stream, over HTTP), yet
// ended by the server's own cancellation too. It returns nil when the
// connection cannot tell the client.
func (c *conn) target(ctx context.Context) (Client, context.Context, context.CancelFunc) {
	// A server on a protocol with multi-round-trip requests asks for
	// input in the result of the call, which the SDK fulfils with the
	// call's own context.
	if caller := clientFrom(ctx); caller != nil {
		return caller, ctx, func() {}
	}
	c.s.mu.Lock()
	caller := c.caller
	var call context.Context
	for _, inFlight := range c.calls {
		switch {
		case caller == nil:
			caller = inFlight.caller
		case inFlight.caller != caller:
			// Calls of several clients share the connection.
			c.s.mu.Unlock()
			return nil, nil, nil
		}
		call = inFlight.ctx
	}
	c.s.mu.Unlock()
	if caller == nil {
		return nil, nil, nil
	}
	if call == nil {
		return caller, ctx, func() {}
	}
	fctx, cancel := context.WithCancel(call)
	stop := context.AfterFunc(ctx, cancel)
	return caller, fctx, func() { stop(); cancel() }
}

// noClient is the answer to a request the connection has no client for.
func noClient(method string) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError,
		Message: method + ": no call of an MCP client that can answer it is in flight on this session"}
}

func (c *conn) sample(ctx context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
	if a := c.askerOf(ctx); a != nil {
		return answer[mcp.CreateMessageResult](a, req.Params)
	}
	to, fctx, done := c.target(ctx)
	if to == nil || capabilitiesOf(to).Sampling == nil {
		return nil, noClient("sampling/createMessage")
	}
	defer done()
	return to.CreateMessage(fctx, req.Params)
}

func (c *conn) sampleWithTools(ctx context.Context, req *mcp.CreateMessageWithToolsRequest) (*mcp.CreateMessageWithToolsResult, error) {
	if a := c.askerOf(ctx); a != nil {
		return answer[mcp.CreateMessageWithToolsResult](a, req.Params)
	}
	to, fctx, done := c.target(ctx)
	if to == nil || capabilitiesOf(to).Sampling == nil || capabilitiesOf(to).Sampling.Tools == nil {
		return nil, noClient("sampling/createMessage with tools")
	}
	defer done()
	return to.CreateMessageWithTools(fctx, req.Params)
}

func (c *conn) elicit(ctx context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
	if a := c.askerOf(ctx); a != nil {
		return answer[mcp.ElicitResult](a, req.Params)
	}
	to, fctx, done := c.target(ctx)
	if to == nil || capabilitiesOf(to).Elicitation == nil {
		return nil, noClient("elicitation/create")
	}
	defer done()
	return to.Elicit(fctx, req.Params)
}

// forwardRoots answers the server's roots/list with the roots of the
// client of the call, when it declared roots: the SDK's own answer is the
// connection's roots, of which there are none. An older server may ask
// for them at any time (once connected, say): a call in flight whose
// client declared no roots is not failed for it.
func (c *conn) forwardRoots(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		params, ok := req.GetParams().(*mcp.ListRootsParams)
		if method != "roots/list" || !ok {
			return next(ctx, method, req)
		}
		if a := c.askerOf(ctx); a != nil && a.roots {
			return answer[mcp.ListRootsResult](a, params)
		}
		to, fctx, done := c.target(ctx)
		if to == nil || capabilitiesOf(to).RootsV2 == nil {
			return next(ctx, method, req)
		}
		defer done()
		return to.ListRoots(fctx, params)
	}
}

func (c *conn) forwardElicitationComplete(ctx context.Context, req *mcp.ElicitationCompleteNotificationRequest) {
	to, fctx, done := c.target(ctx)
	if to == nil || capabilitiesOf(to).Elicitation == nil {
		return
	}
	defer done()
	if err := to.NotifyElicitationComplete(fctx, req.Params); err != nil {
		c.s.m.opts.logger.Debug("elicitation completion not forwarded", "server", c.s.name, "error", err)
	}
}

// forwardLog passes a log message of the server to the client of the
// calls in flight, naming the server as the message's logger (or its
// prefix), or else to the manager's logger.
func (c *conn) forwardLog(ctx context.Context, req *mcp.LoggingMessageRequest) {
	defer c.logs.handled()
	if req.Params == nil {
		return
	}
	params := *req.Params
	params.Data = c.s.redactValue(params.Data)
	params.Logger = c.s.name
	if req.Params.Logger != "" {
		params.Logger += "/" + req.Params.Logger
	}
	to, fctx, done := c.target(ctx)
	if to == nil {
		c.s.m.opts.logger.Debug("log message of an MCP server", "server", c.s.name,
			"level", params.Level, "logger", req.Params.Logger, "data", params.Data)
		return
	}
	defer done()
	if err := to.Log(fctx, &params); err != nil {
		c.s.m.opts.logger.Debug("log message not forwarded", "server", c.s.name, "error", err)
	}
}

// followLogs asks the server of a new session for every log message, when
// it logs: the client's own level filters what it receives.
func followLogs(ctx context.Context, sess *mcp.ClientSession) {
	if res := sess.InitializeResult(); res == nil || res.Capabilities == nil || res.Capabilities.Logging == nil {
		return
	}
	_ = sess.SetLoggingLevel(ctx, &mcp.SetLoggingLevelParams{Level: "debug"})
}

// clients follows the clients that have sessions of their own, to close
// those sessions when the clients go away.
type clients struct {
	mu       sync.Mutex
	followed map[Client]struct{}
}

// followClient makes the manager close the sessions of a client once the
// client's session ends. The goroutine that waits for it is not the
// manager's: it ends with the client.
func (m *Manager) followClient(caller Client) {
	m.clients.mu.Lock()
	defer m.clients.mu.Unlock()
	if _, ok := m.clients.followed[caller]; ok {
		return
	}
	if m.clients.followed == nil {
		m.clients.followed = map[Client]struct{}{}
	}
	m.clients.followed[caller] = struct{}{}
	go func() {
		_ = caller.Wait()
		m.clients.mu.Lock()
		delete(m.clients.followed, caller)
		m.clients.mu.Unlock()
		m.mu.RLock()
		servers := make([]*server, 0, len(m.servers))
		for _, s := range m.servers {
			servers = append(servers, s)
		}
		m.mu.RUnlock()
		for _, s := range servers {
			s.dropClient(caller)
		}
	}()
}
