package mcpexec_test

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// addGreet adds to the upstream a tool that asks for input in its
// result, as servers of protocol 2026-07-28 do: the user's name, then,
// in a second round whose requestState carries the name, a model's
// completion. It reports the client capabilities of each request.
func addGreet(up *upstream, caps chan<- *mcp.ClientCapabilities) {
	up.srv.AddTool(&mcp.Tool{Name: "greet", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		caps <- req.ClientCapabilities()
		p := req.Params
		switch p.RequestState {
		case "":
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"name": &mcp.ElicitParams{Message: "your name?",
				RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}},
				RequestState: "round 1"}, nil
		case "round 1":
			name := p.InputResponses["name"].(*mcp.ElicitResult).Content["name"].(string)
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"greeting": &mcp.CreateMessageParams{MaxTokens: 5,
				Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "greet " + name}}}}},
				RequestState: "round 2, " + name}, nil
		}
		name, _ := strings.CutPrefix(p.RequestState, "round 2, ")
		greeting := p.InputResponses["greeting"].(*mcp.CreateMessageWithToolsResult).Content[0].(*mcp.TextContent).Text
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: greeting + " " + name}}}, nil
	})
}

// inputGateway is a server with one tool per upstream tool (by default
// "ask" and "greet"), each run
// through a manager on behalf of the client that calls it, relaying the
// upstream's requests for input to a client of protocol 2026-07-28 as
// that protocol does: in the result, answered in a retry. calls counts
// the calls it receives, retries included.
func inputGateway(m *mcpexec.Manager, calls *atomic.Int32, tools ...string) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	if len(tools) == 0 {
		tools = []string{"ask", "greet"}
	}
	for _, name := range tools {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			calls.Add(1)
			call := mcpCall("up", name, nil)
			if mcpexec.RetriesForInput(req.Session) {
				call.Input = &toolrun.Input{Responses: req.Params.InputResponses, State: req.Params.RequestState}
			}
			out, err := m.Execute(mcpexec.WithClient(ctx, req.Session), call)
			if err != nil {
				return nil, err
			}
			if in := out.InputRequired; in != nil {
				return &mcp.CallToolResult{InputRequests: in.Requests, RequestState: in.State}, nil
			}
			return &mcp.CallToolResult{Content: out.Content, StructuredContent: out.Structured, IsError: out.IsError}, nil
		})
	}
	return srv
}

// asking is the capabilities of the gateway's shared session toward its
// upstreams: it declares what it relays.
var asking = mcpexec.WithSharedCapabilities(mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}, Elicitation: &mcp.ElicitationCapabilities{}})

// TestAnOlderServersRequestsReachALaterClientInResults shows a server of
// protocol 2025-11-25, which asks for sampling and then elicitation by
// requests of its own during the call, behind a gateway whose client
// speaks 2026-07-28: each request reaches the client in a result, the
// client's SDK answers in a retry, and the call is made again with the
// answers of every round until the server has them all.
func TestAnOlderServersRequestsReachALaterClientInResults(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", mcpexec.ServerConfig{URL: up.url}), asking)
	var calls atomic.Int32
	d := connectDownstreamAt(t, inputGateway(m, &calls), true, "2026-07-28")

	res := d.call(t, "ask")
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "hi Ada", res.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, "say hi", (<-d.samples).Messages[0].Content.(*mcp.TextContent).Text)
	assert.Equal(t, int32(3), calls.Load(), "a call, a retry with the sampling, a retry with both answers")
}

// TestALaterServersRequestsReachALaterClientAsTheyAre shows a server of
// protocol 2026-07-28 asking in its results behind a gateway: its
// requests and its state reach the client and come back round after
// round, and the server sees the client's own capabilities.
func TestALaterServersRequestsReachALaterClientAsTheyAre(t *testing.T) {
	up := newUpstream(t)
	caps := make(chan *mcp.ClientCapabilities, 4)
	addGreet(up, caps)
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)), asking)
	var calls atomic.Int32
	d := connectDownstreamAt(t, inputGateway(m, &calls), true, "2026-07-28")

	res := d.call(t, "greet")
	require.False(t, res.IsError, "%v", res.Content)
	assert.Equal(t, "hi Ada", res.Content[0].(*mcp.TextContent).Text)
	assert.Equal(t, "greet Ada", (<-d.samples).Messages[0].Content.(*mcp.TextContent).Text)
	assert.Equal(t, int32(3), calls.Load())
	for range 3 {
		c := <-caps
		assert.NotNil(t, c.Elicitation, "the client's elicitation")
		assert.NotNil(t, c.Sampling, "the client's sampling")
	}
}

// TestARequestTheClientCannotAnswerFailsTheCall shows that a client of
// 2026-07-28 that declares neither sampling nor elicitation is never
// sent a request for them: the server is told so, and a server that asks
// all the same fails the call, naming what it asked.
func TestARequestTheClientCannotAnswerFailsTheCall(t *testing.T) {
	up := newUpstream(t)
	caps := make(chan *mcp.ClientCapabilities, 1)
	addGreet(up, caps)
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)), asking)
	var calls atomic.Int32
	d := connectDownstreamAt(t, inputGateway(m, &calls), false, "2026-07-28")

	_, err := d.session.CallTool(t.Context(), &mcp.CallToolParams{Name: "greet"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the server asks the client for elicitation/create, which the client does not declare it can answer")
	c := <-caps
	assert.Nil(t, c.Elicitation)
	assert.Nil(t, c.Sampling)
}

// TestAStateThatIsNotJSONIsRefused shows that the state of an earlier
// attempt the executor cannot read fails the call before anything is
// sent.
func TestAStateThatIsNotJSONIsRefused(t *testing.T) {
	up := newUpstream(t)
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)))
	call := mcpCall("up", "ask", nil)
	call.Input = &toolrun.Input{State: "not json"}
	_, err := m.Execute(t.Context(), call)
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "the state of the earlier attempt is not valid")
}

// promptGateway is a server that serves prompts (name: server) and
// resources of the server "up" through a manager, as inputGateway serves
// its tools.
func promptGateway(m *mcpexec.Manager, prompts map[string]string, resources []string, calls *atomic.Int32) *mcp.Server {
	srv := mcp.NewServer(&mcp.Implementation{Name: "gateway", Version: "1"}, nil)
	input := func(session *mcp.ServerSession, responses mcp.InputResponseMap, state string) *toolrun.Input {
		if !mcpexec.RetriesForInput(session) {
			return nil
		}
		return &toolrun.Input{Responses: responses, State: state}
	}
	for name, server := range prompts {
		srv.AddPrompt(&mcp.Prompt{Name: name}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			calls.Add(1)
			res, asked, err := m.GetPrompt(mcpexec.WithClient(ctx, req.Session), server, &mcp.GetPromptParams{Name: name},
				input(req.Session, req.Params.InputResponses, req.Params.RequestState))
			if asked != nil {
				return &mcp.GetPromptResult{InputRequests: asked.Requests, RequestState: asked.State}, nil
			}
			return res, err
		})
	}
	for _, uri := range resources {
		srv.AddResource(&mcp.Resource{URI: uri, Name: uri}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			calls.Add(1)
			res, asked, err := m.ReadResource(mcpexec.WithClient(ctx, req.Session), "up", &mcp.ReadResourceParams{URI: uri},
				input(req.Session, req.Params.InputResponses, req.Params.RequestState))
			if asked != nil {
				return &mcp.ReadResourceResult{InputRequests: asked.Requests, RequestState: asked.State}, nil
			}
			return res, err
		})
	}
	return srv
}

// TestPromptsAndResourcesRelayInput shows a prompt and a resource whose
// server asks for input, got and read through the manager by a client of
// 2026-07-28: in a result, as servers of that protocol do, and by a
// request during prompts/get, as older ones do. The client gets the
// requests in a result and answers them in a retry, which completes the
// request. A client that cannot answer gets an error that names what was
// asked.
func TestPromptsAndResourcesRelayInput(t *testing.T) {
	up := newUpstream(t)
	askName := &mcp.ElicitParams{Message: "your name?", RequestedSchema: map[string]any{
		"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}
	named := func(answers mcp.InputResponseMap) (string, bool) {
		r, ok := answers["name"].(*mcp.ElicitResult)
		if !ok {
			return "", false
		}
		return r.Content["name"].(string), true
	}
	up.srv.AddPrompt(&mcp.Prompt{Name: "greeting"}, func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		if name, ok := named(req.Params.InputResponses); ok && req.Params.RequestState == "asked" {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "greet " + name}}}}, nil
		}
		return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{"name": askName}, RequestState: "asked"}, nil
	})
	// An upstream over streamable HTTP speaks 2025-11-25 here.
	old := newUpstream(t)
	old.srv.AddPrompt(&mcp.Prompt{Name: "older"}, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
		answer, err := req.Session.Elicit(ctx, askName)
		if err != nil {
			return nil, err
		}
		return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello " + answer.Content["name"].(string)}}}}, nil
	})
	up.srv.AddResource(&mcp.Resource{URI: "test://diary", Name: "diary"}, func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		if name, ok := named(req.Params.InputResponses); ok {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: "test://diary", Text: name + "'s diary"}}}, nil
		}
		return &mcp.ReadResourceResult{InputRequests: mcp.InputRequestMap{"name": askName}}, nil
	})
	m := newManager(t, mcpexec.WithServer("up", up.inMemory(t)), mcpexec.WithServer("old", mcpexec.ServerConfig{URL: old.url}), asking)
	var calls atomic.Int32
	gw := promptGateway(m, map[string]string{"greeting": "up", "older": "old"}, []string{"test://diary"}, &calls)
	d := connectDownstreamAt(t, gw, true, "2026-07-28")

	for name, want := range map[string]string{"greeting": "greet Ada", "older": "hello Ada"} {
		calls.Store(0)
		res, err := d.session.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name})
		require.NoError(t, err, name)
		assert.Equal(t, want, res.Messages[0].Content.(*mcp.TextContent).Text)
		assert.Equal(t, int32(2), calls.Load(), "%s: a request, and a retry with the answer", name)
	}
	read, err := d.session.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://diary"})
	require.NoError(t, err)
	assert.Equal(t, "Ada's diary", read.Contents[0].Text)

	// A client that declares no elicitation is never asked.
	unable := connectDownstreamAt(t, gw, false, "2026-07-28")
	_, err = unable.session.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greeting"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the server asks the client for elicitation/create, which the client does not declare it can answer")
	// Nor is an older one that cannot be sent requests.
	older := connectDownstreamAt(t, gw, false, "2025-11-25")
	_, err = older.session.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "greeting"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the server needs input from the caller (elicitation/create)")
}
