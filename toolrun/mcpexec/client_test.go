package mcpexec_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// upstream is a server whose tools ask their client for things during a
// call by requests of their own, as servers do before protocol
// 2026-07-28. It is served over streamable HTTP (url) and in memory
// (inMemory).
type upstream struct {
	srv *mcp.Server
	url string
	// canceled receives the error of a "wait" call's context once the
	// call ends.
	canceled chan error
	// started is closed when a "wait" call is under way.
	started chan struct{}
	// sessions receives the session of each "capabilities" call.
	sessions chan *mcp.ServerSession
}

func newUpstream(t *testing.T) *upstream {
	u := &upstream{canceled: make(chan error, 1), started: make(chan struct{}), sessions: make(chan *mcp.ServerSession, 4)}
	srv := mcp.NewServer(&mcp.Implementation{Name: "upstream", Version: "1"}, nil)
	u.srv = srv
	object := map[string]any{"type": "object"}
	srv.AddTool(&mcp.Tool{Name: "ask", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: "ask", Data: "asking"}); err != nil {
			return nil, err
		}
		sample, err := req.Session.CreateMessage(ctx, &mcp.CreateMessageParams{MaxTokens: 5,
			Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}}})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		answer, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Message: "your name?", RequestedSchema: map[string]any{
			"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}})
		if err != nil {
			return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}, nil
		}
		text := sample.Content.(*mcp.TextContent).Text + " " + answer.Content["name"].(string)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "capabilities", InputSchema: object}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		u.sessions <- req.Session
		params := req.Session.InitializeParams()
		caps := params.Capabilities
		return &mcp.CallToolResult{StructuredContent: map[string]any{"sampling": caps.Sampling != nil, "elicitation": caps.Elicitation != nil,
			"protocolVersion": params.ProtocolVersion}, Content: []mcp.Content{}}, nil
	})
	srv.AddTool(&mcp.Tool{Name: "wait", InputSchema: object}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(u.started)
		<-ctx.Done()
		u.canceled <- ctx.Err()
		return nil, ctx.Err()
	})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(h.Close)
	u.url = h.URL
	return u
}

// inMemory is the configuration of the upstream served in memory, where
// the SDK's latest protocol is negotiated unless the client asks for an
// earlier one.
func (u *upstream) inMemory(t *testing.T) mcpexec.ServerConfig {
	return mcpexec.ServerConfig{Transport: func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		ss, err := u.srv.Connect(ctx, server, nil)
		if err != nil {
			return nil, err
		}
		t.Cleanup(func() { _ = ss.Close() })
		return client, nil
	}}
}

// gateway is a server with one tool per upstream tool, each run through
// a manager on behalf of the client that calls it.
func gateway(m *mcpexec.Manager) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	for _, name := range []string{"ask", "capabilities", "wait"} {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			out, err := m.Execute(mcpexec.WithClient(ctx, req.Session), mcpCall("up", name, nil))
			if err != nil {
				return nil, err
			}
			return &mcp.CallToolResult{Content: out.Content, StructuredContent: out.Structured, IsError: out.IsError}, nil
		})
	}
	return srv
}

// downstream is a client of the gateway: what it was asked and told.
type downstream struct {
	session *mcp.ClientSession
	logs    chan *mcp.LoggingMessageParams
	samples chan *mcp.CreateMessageParams
}

// connectDownstream connects a client to the gateway, at a protocol
// version where servers send their own requests; it answers sampling and
// elicitation when capable.
func connectDownstream(t *testing.T, gw *mcp.Server, capable bool) *downstream {
	return connectDownstreamAt(t, gw, capable, "2025-11-25")
}

// connectDownstreamAt connects a client of the gateway that asks for
// protocol version.
func connectDownstreamAt(t *testing.T, gw *mcp.Server, capable bool, version string) *downstream {
	d := &downstream{logs: make(chan *mcp.LoggingMessageParams, 10), samples: make(chan *mcp.CreateMessageParams, 10)}
	opts := &mcp.ClientOptions{
		LoggingMessageHandler: func(_ context.Context, req *mcp.LoggingMessageRequest) { d.logs <- req.Params },
	}
	if capable {
		opts.CreateMessageHandler = func(_ context.Context, req *mcp.CreateMessageRequest) (*mcp.CreateMessageResult, error) {
			d.samples <- req.Params
			return &mcp.CreateMessageResult{Model: "m", Role: "assistant", Content: &mcp.TextContent{Text: "hi"}}, nil
		}
		opts.ElicitationHandler = func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
		}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "1"}, opts)
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	d.session, err = client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	require.NoError(t, err)
	t.Cleanup(func() {
		_ = d.session.Close()
		_ = ss.Wait()
	})
	require.NoError(t, d.session.SetLoggingLevel(t.Context(), &mcp.SetLoggingLevelParams{Level: "debug"}))
	return d
}

func (d *downstream) call(t *testing.T, name string) *mcp.CallToolResult {
	t.Helper()
	res, err := d.session.CallTool(t.Context(), &mcp.CallToolParams{Name: name})
	require.NoError(t, err)
	return res
}

func TestRequestsReachTheClientOfTheCall(t *testing.T) {
	up := newUpstream(t)
	// The server's key is the word its log message says.
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url, Headers: map[string]string{"X-API-Key": "asking"}}))
	d := connectDownstream(t, gateway(m), true)

	res := d.call(t, "ask")
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "hi Ada", res.Content[0].(*mcp.TextContent).Text)
	sample := <-d.samples
	assert.Equal(t, "say hi", sample.Messages[0].Content.(*mcp.TextContent).Text)
	log := <-d.logs
	assert.Equal(t, "***", log.Data, "a log message reaches the client without the secrets the server is given")
	assert.Equal(t, "up/ask", log.Logger, "the log names the server it came from")
}

func TestSessionsDeclareTheirClientsCapabilities(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}))
	gw := gateway(m)

	capable := connectDownstream(t, gw, true)
	assert.Equal(t, map[string]any{"sampling": true, "elicitation": true, "protocolVersion": "2025-11-25"}, capable.call(t, "capabilities").StructuredContent)
	incapable := connectDownstream(t, gw, false)
	assert.Equal(t, map[string]any{"sampling": false, "elicitation": false, "protocolVersion": "2025-11-25"}, incapable.call(t, "capabilities").StructuredContent)
	// A call on behalf of no client uses the shared session too.
	out, err := m.Execute(t.Context(), mcpCall("up", "capabilities", nil))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"sampling": false, "elicitation": false, "protocolVersion": "2025-11-25"}, out.Structured)
}

// A server that sends requests of its own does so only on a protocol
// before 2026-07-28: a client's own session asks for the client's
// protocol, which the server would otherwise not be held to.
func TestAClientsSessionSpeaksItsProtocol(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)))
	gw := gateway(m)
	d := connectDownstream(t, gw, true)

	assert.Equal(t, "2025-11-25", d.call(t, "capabilities").StructuredContent.(map[string]any)["protocolVersion"])
	res := d.call(t, "ask")
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "hi Ada", res.Content[0].(*mcp.TextContent).Text)
	// The shared session speaks the SDK's latest protocol.
	out, err := m.Execute(t.Context(), mcpCall("up", "capabilities", nil))
	require.NoError(t, err)
	assert.Equal(t, "2026-07-28", out.Structured.(map[string]any)["protocolVersion"])
}

// TestALaterClientSharesTheSession shows that a client of protocol
// 2026-07-28, which a server cannot send requests of its own, gets no
// session of its own even when it can answer sampling: its calls go on
// the shared session, and start no process or connection each.
func TestALaterClientSharesTheSession(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)))
	d := connectDownstreamAt(t, gateway(m), true, "2026-07-28")

	first := d.call(t, "capabilities").StructuredContent.(map[string]any)
	assert.Equal(t, false, first["sampling"], "the shared session declares no sampling")
	d.call(t, "capabilities")
	_, err := m.Execute(t.Context(), mcpCall("up", "capabilities", nil))
	require.NoError(t, err)
	shared := <-up.sessions
	assert.Same(t, shared, <-up.sessions)
	assert.Same(t, shared, <-up.sessions, "the client's calls are on the shared session")
}

func TestARequestNoClientCanAnswerFails(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}),
		mcpexec.WithSharedCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}))
	d := connectDownstream(t, gateway(m), false)

	res := d.call(t, "ask")
	assert.True(t, res.IsError)
	assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "no call of an MCP client that can answer it")
	// The client gets the log messages of its calls on the shared session.
	assert.Equal(t, "asking", (<-d.logs).Data)
	assert.Empty(t, d.samples)
}

func TestTheClientsCancellationReachesTheServer(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}))
	d := connectDownstream(t, gateway(m), true)

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan error, 1)
	go func() {
		_, err := d.session.CallTool(ctx, &mcp.CallToolParams{Name: "wait"})
		done <- err
	}()
	<-up.started
	cancel()
	require.ErrorIs(t, <-up.canceled, context.Canceled, "the server's call ended")
	require.Error(t, <-done)
}

func TestAClientsSessionEndsWithIt(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}))
	gw := gateway(m)
	d := connectDownstream(t, gw, true)
	d.call(t, "capabilities")
	own := <-up.sessions
	require.NoError(t, d.session.Close())
	_ = own.Wait() // returns once the manager closed the client's session

	// The next client gets a session of its own.
	other := connectDownstream(t, gw, true)
	other.call(t, "capabilities")
	assert.NotEqual(t, own.ID(), (<-up.sessions).ID())
}

// TestAToolOfferedForACapabilityTheClientLacks calls, for a client that
// can answer elicitation but not sampling, a tool the server offers only
// to clients that declare sampling (as server-everything does): the
// catalogue, listed on the shared session that declares both, has it, the
// client's own session does not, and the error says why.
func TestAToolOfferedForACapabilityTheClientLacks(t *testing.T) {
	object := map[string]any{"type": "object"}
	// The server offers needs_sampling only to sessions whose client
	// declared sampling: the others neither list nor call it.
	srv := mcp.NewServer(&mcp.Implementation{Name: "picky", Version: "1"}, nil)
	srv.AddTool(&mcp.Tool{Name: "needs_sampling", InputSchema: object}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "sampled"}}}, nil
	})
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			ss, ok := req.GetSession().(*mcp.ServerSession)
			if !ok || ss.InitializeParams() == nil || ss.InitializeParams().Capabilities.Sampling != nil {
				return next(ctx, method, req)
			}
			switch r := req.(type) {
			case *mcp.CallToolRequest:
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf("Tool %s not found", r.Params.Name)}
			case *mcp.ListToolsRequest:
				return &mcp.ListToolsResult{Tools: []*mcp.Tool{}}, nil
			}
			return next(ctx, method, req)
		}
	})
	cfg := mcpexec.InMemory(srv)
	m := newManager(t, mcpexec.WithServer("picky", cfg), mcpexec.WithSharedCapabilities(mcp.ClientCapabilities{
		Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}}))

	out, err := m.Execute(t.Context(), mcpCall("picky", "needs_sampling", nil))
	require.NoError(t, err, "the shared session has the tool")
	assert.Equal(t, "sampled", toolrun.OutputText(out))

	gw := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	gw.AddTool(&mcp.Tool{Name: "needs_sampling", InputSchema: object}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		_, err := m.Execute(mcpexec.WithClient(ctx, req.Session), mcpCall("picky", "needs_sampling", nil))
		require.Error(t, err)
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: string(errors.CodeOf(err)) + ": " + err.Error()}}}, nil
	})
	client := mcp.NewClient(&mcp.Implementation{Name: "elicits-only", Version: "1"}, &mcp.ClientOptions{
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	ct, st := mcp.NewInMemoryTransports()
	ss, err := gw.Connect(t.Context(), st, nil)
	require.NoError(t, err)
	cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close(); _ = ss.Wait() })

	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "needs_sampling"})
	require.NoError(t, err)
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Equal(t, `unsupported: (backend mcp:picky): the server offers tool "needs_sampling" only to clients that declare sampling, which the calling client does not (its own session lists no such tool)`, text)
}

// TestALaterServersLogsReachTheClientThatAsksForThem shows the log
// messages of a server of protocol 2026-07-28, which logs only for a
// request that carries a log level, reaching a client of that protocol
// through a gateway: the client's level goes to the server with the
// call, and messages below it do not come back.
func TestALaterServersLogsReachTheClientThatAsksForThem(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "later", Version: "1"}, nil)
	var calls atomic.Int32
	srv.AddTool(&mcp.Tool{Name: "chatty", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		call := calls.Add(1)
		for _, level := range []mcp.LoggingLevel{"debug", "warning"} {
			if err := req.Session.Log(ctx, &mcp.LoggingMessageParams{Level: level, Logger: "chatty", Data: fmt.Sprintf("%s %d", level, call)}); err != nil {
				return nil, err
			}
		}
		return &mcp.CallToolResult{Content: []mcp.Content{}}, nil
	})
	up := &upstream{srv: srv}
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)))
	gw := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	gw.AddTool(&mcp.Tool{Name: "chatty", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		ctx = mcpexec.WithClient(ctx, req.Session)
		if level, ok := req.Params.GetMeta()[mcp.MetaKeyLogLevel].(string); ok {
			ctx = mcpexec.WithLogLevel(ctx, mcp.LoggingLevel(level))
		}
		_, err := m.Execute(ctx, mcpCall("up", "chatty", nil))
		return &mcp.CallToolResult{Content: []mcp.Content{}}, err
	})
	d := connectDownstreamAt(t, gw, false, "2026-07-28")

	params := &mcp.CallToolParams{Name: "chatty", Meta: mcp.Meta{mcp.MetaKeyLogLevel: "info"}}
	_, err := d.session.CallTool(t.Context(), params)
	require.NoError(t, err)
	log := nextLog(t, d)
	assert.Equal(t, "warning 1", log.Data, "the message at the client's level; the one below it stays behind")
	assert.Equal(t, "up/chatty", log.Logger)

	// Without a level, the server sends nothing.
	_, err = d.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "chatty"})
	require.NoError(t, err)
	_, err = d.session.CallTool(t.Context(), params)
	require.NoError(t, err)
	assert.Equal(t, "warning 3", nextLog(t, d).Data, "the next message is the third call's")
}

// nextLog returns the next log message the downstream client received.
// The gateway forwards a message before the call's result; the client's
// SDK hands it to its handler on a goroutine of its own, which may run
// after the result is back, so the wait is bounded rather than none.
func nextLog(t *testing.T, d *downstream) *mcp.LoggingMessageParams {
	t.Helper()
	select {
	case log := <-d.logs:
		return log
	case <-time.After(10 * time.Second):
		t.Fatal("no log message reached the client")
		return nil
	}
}

// TestAnOlderServersRootsRequestReachesTheClient shows a server of
// protocol 2025-11-25 that asks its client for its roots during a call,
// behind a gateway: the roots are those of the gateway's client, asked by
// a request for a client of that protocol and in a result for a client
// of 2026-07-28, not the gateway's own (none).
func TestAnOlderServersRootsRequestReachesTheClient(t *testing.T) {
	up := newUpstream(t)
	up.srv.AddTool(&mcp.Tool{Name: "roots", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := req.Session.ListRoots(ctx, nil)
		if err != nil {
			return nil, err
		}
		var uris []string
		for _, r := range res.Roots {
			uris = append(uris, r.URI)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: strings.Join(uris, " ")}}}, nil
	})
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}))
	var calls atomic.Int32
	gw := inputGateway(m, &calls, "roots")
	// rootsOf calls the tool for a client of version with opts and roots,
	// and returns the roots it saw.
	rootsOf := func(t *testing.T, version string, opts *mcp.ClientOptions, roots ...*mcp.Root) string {
		client := mcp.NewClient(&mcp.Implementation{Name: "downstream", Version: "1"}, opts)
		client.AddRoots(roots...)
		ct, st := mcp.NewInMemoryTransports()
		ss, err := gw.Connect(t.Context(), st, nil)
		require.NoError(t, err)
		cs, err := client.Connect(t.Context(), ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
		require.NoError(t, err)
		t.Cleanup(func() {
			_ = cs.Close()
			_ = ss.Wait()
		})
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "roots"})
		require.NoError(t, err)
		require.False(t, res.IsError, "%v", res.Content)
		return res.Content[0].(*mcp.TextContent).Text
	}
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) {
			assert.Equal(t, "file:///work/project", rootsOf(t, version, nil, &mcp.Root{URI: "file:///work/project", Name: "project"}))
		})
		// A server may ask for roots whenever it likes: a client that
		// declared none has none, and its call goes on.
		t.Run(version+"/no roots", func(t *testing.T) {
			assert.Empty(t, rootsOf(t, version, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}))
		})
	}
}
