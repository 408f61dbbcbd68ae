package mcpexec

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// Execute implements [toolrun.Executor]: it calls the tool named by
// call.Backend.MCP.ToolName, or else call.Tool.Name, on the server named by
// call.Backend.MCP.Server, with call.Args as its arguments.
//
// The [mcp.CallToolResult] maps to an Output field for field: Content is
// its content, Structured its structured content (a decoded JSON value)
// and IsError its isError flag, so a tool's own failure is an
// Output, not an error.
//
// When call.OnProgress is set, the request carries a progress token and
// the server's progress notifications for it reach call.OnProgress, one
// at a time and in order, all of them before Execute returns: the SDK
// hands a call its result as soon as it reads it, while it handles
// notifications on a queue of their own, so Execute waits for the
// notifications read before the result (for at most [ProgressDrainTimeout]).
// Over streamable HTTP, where the connection cannot be observed, a
// notification sent just before the result may still be handled after
// it, and is then dropped: OnProgress is never called after Execute
// returns.
//
// A session that turns out to be closed before the request left is
// replaced, and the call sent on a new one. A session that breaks while
// the call is under way is replaced too, but the call is sent again only
// when [toolrun.SafeToRepeat] allows it (the tool is annotated read-only
// or idempotent, or call.Idempotent is set): otherwise it may already
// have had its effect, and it fails as unavailable, which the runner does
// not retry either. A failure to connect to the server is marked
// [toolrun.MarkNotSent].
//
// Errors: [errors.NotFound] for a server the manager does not know;
// [errors.InvalidArgument] for a backend that is not an MCP one or
// arguments that cannot be encoded; a JSON-RPC error of the server keeps
// its code ([errors.FromWire]); a server that cannot be reached, or that
// went away during the call, is [errors.Unavailable] and retryable;
// the context's end is [errors.Timeout] or [errors.Canceled].
func (m *Manager) Execute(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
	backend := call.Backend.MCP
	if call.Backend.Kind != toolmodel.BackendMCP || backend == nil {
		return toolrun.Output{}, errors.Errorf(errors.InvalidArgument, "backend %s is not an MCP backend", call.Backend.Identity())
	}
	s, err := m.server(backend.Server)
	if err != nil {
		return toolrun.Output{}, err
	}
	name := backend.ToolName
	if name == "" {
		name = call.Tool.Name
	}
	var token string
	var sink *progressSink
	if call.OnProgress != nil {
		token, sink = m.trackProgress(call.OnProgress)
		defer m.untrackProgress(token, sink)
	}
	resend := func(err error) bool { return toolrun.SafeToRepeat(call, err) }
	res, ir, err := relay(ctx, s, call.Input, resend,
		func(ctx context.Context, sess *mcp.ClientSession, at attempt) (*mcp.CallToolResult, error) {
			params := &mcp.CallToolParams{Name: name, Arguments: call.Args,
				InputResponses: at.Responses, RequestState: at.State, Meta: at.Meta()}
			if token != "" {
				params.SetProgressToken(token)
			}
			return sess.CallTool(ctx, params)
		},
		func(res *mcp.CallToolResult) (mcp.InputRequestMap, string) {
			return res.InputRequests, res.RequestState
		})
	if token != "" {
		sink.await(ctx)
	}
	if err != nil {
		return toolrun.Output{}, s.explainRefusal(ctx, name, err)
	}
	if ir != nil {
		return toolrun.Output{InputRequired: ir}, nil
	}
	out := toolrun.Output{Content: res.Content, Structured: res.StructuredContent, IsError: res.IsError}
	if res.IsError {
		// A tool's failure reaches a model as the server's errors do:
		// without the secrets the server is given.
		out = s.redactFailure(out)
	}
	return out, nil
}

// withInput returns the state of the earlier attempt of a call whose
// caller can answer the server's requests for input (in is set), and the
// asker that answers an older server's requests during the call, which
// stop ends. For any other call, it returns a nil asker.
func (s *server) withInput(in *toolrun.Input, stop context.CancelFunc) (inputState, *asker, error) {
	if in == nil {
		return inputState{}, nil, nil
	}
	st, answers, err := decodeInputState(in)
	if err == nil && len(answers) > 0 {
		st.Answers, err = json.Marshal(answers)
	}
	if err != nil {
		e := errors.Errorf(errors.InvalidArgument, "the answers to the server's requests: %w", err)
		e.Backend = identity(s.name)
		return st, nil, e
	}
	return st, &asker{answers: answers, stop: stop, asked: mcp.InputRequestMap{}}, nil
}

// inputRequired is what a request that needs the caller's answers to
// requests before it can go on returns, with the state the next attempt
// needs. A request the caller did not declare it can answer fails it
// instead, with code [errors.Unsupported].
func (s *server) inputRequired(ctx context.Context, requests mcp.InputRequestMap, st inputState) (*toolrun.InputRequired, error) {
	if caller := clientFrom(ctx); caller != nil {
		if method, missing := undeclared(capabilitiesOf(caller), requests); method != "" {
			e := missingCapability(method, missing)
			e.Backend = identity(s.name)
			return nil, e
		}
	}
	state, err := st.encode()
	if err != nil {
		return nil, err
	}
	return &toolrun.InputRequired{Requests: requests, State: state}, nil
}

// explainRefusal returns the error of a call the server refused, naming
// what the calling client lacks when that is why: a server may offer a
// tool only to clients that declare a capability (sampling, elicitation),
// and a client with a session of its own declares its own capabilities,
// not the shared session's, with which the catalogue was listed. When the
// server refused the call as a request and the client's session lists no
// such tool, the error is [errors.Unsupported] and names the capabilities;
// any other error is returned as it is.
func (s *server) explainRefusal(ctx context.Context, name string, err error) error {
	caller := clientFrom(ctx)
	if caller == nil || !receivesRequests(caller) || !refusedAsRequest(err) {
		return err
	}
	missing := missingCapabilities(s.m.opts.shared, capabilitiesOf(caller))
	if len(missing) == 0 {
		return err
	}
	listed := false
	lerr := s.do(ctx, nil, func(sess *mcp.ClientSession) error {
		for tool, err := range sess.Tools(ctx, nil) {
			if err != nil {
				return err
			}
			if tool.Name == name {
				listed = true
				return nil
			}
		}
		return nil
	})
	if lerr != nil || listed {
		return err
	}
	e := errors.Errorf(errors.Unsupported,
		"the server offers tool %q only to clients that declare %s, which the calling client does not (its own session lists no such tool)",
		name, strings.Join(missing, " and "))
	e.Backend = identity(s.name)
	return e
}

// refusedAsRequest reports whether err is a server's answer to the
// request (a JSON-RPC error with the code of bad arguments or of an
// unknown method or name), not a failure to reach the server.
func refusedAsRequest(err error) bool {
	switch errors.CodeOf(err) {
	case errors.InvalidArgument, errors.NotFound:
		return true
	}
	return false
}

// missingCapabilities names the capabilities of the shared session that
// a client does not declare.
func missingCapabilities(shared, client *mcp.ClientCapabilities) []string {
	if shared == nil {
		return nil
	}
	var missing []string
	if shared.Sampling != nil && client.Sampling == nil {
		missing = append(missing, "sampling")
	}
	if shared.Elicitation != nil && client.Elicitation == nil {
		missing = append(missing, "elicitation")
	}
	return missing
}

// redactFailure returns a tool's failure without the server's secrets: its
// text contents and its structured content, as [server.redactValue]
// redacts a value. The contents are copied, never changed in place.
func (s *server) redactFailure(out toolrun.Output) toolrun.Output {
	if s.redact == nil {
		return out
	}
	content := make([]mcp.Content, len(out.Content))
	for i, c := range out.Content {
		if text, ok := c.(*mcp.TextContent); ok {
			redacted := *text
			redacted.Text = s.redact.Redact(text.Text)
			c = &redacted
		}
		content[i] = c
	}
	out.Content = content
	out.Structured = s.redactValue(out.Structured)
	return out
}

// ProgressDrainTimeout bounds how long a call that has its result waits
// for the progress notifications read before it to be handled.
const ProgressDrainTimeout = time.Second

// progressSink passes a call's progress notifications to its callback
// until the call returns.
type progressSink struct {
	mu sync.Mutex
	fn func(toolrun.Progress) // nil once the call returned

	backlog
}

// backlog counts the notifications read from a server (see progressConn)
// and not handled yet, for a call that has its result to wait for them:
// the SDK hands a call its result as soon as it reads it, while its
// handlers may take the notifications read before it later.
type backlog struct {
	mu      sync.Mutex
	queued  int
	drained chan struct{} // while a call waits, closed when queued falls to zero
}

// read counts a notification read from the server.
func (b *backlog) read() {
	b.mu.Lock()
	b.queued++
	b.mu.Unlock()
}

// handled counts a notification handled.
func (b *backlog) handled() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.queued > 0 {
		b.queued--
	}
	if b.queued == 0 && b.drained != nil {
		close(b.drained)
		b.drained = nil
	}
}

// await returns once the notifications read so far are handled, ctx is
// done or ProgressDrainTimeout has passed: a notification that is never
// handled (its connection closed with it queued) does not hold the call.
func (b *backlog) await(ctx context.Context) {
	b.mu.Lock()
	if b.queued == 0 {
		b.mu.Unlock()
		return
	}
	if b.drained == nil {
		b.drained = make(chan struct{})
	}
	drained := b.drained
	b.mu.Unlock()
	timer := time.NewTimer(ProgressDrainTimeout)
	defer timer.Stop()
	select {
	case <-drained:
	case <-ctx.Done():
	case <-timer.C:
	}
}

// trackProgress returns a new progress token and the sink its
// notifications go to.
func (m *Manager) trackProgress(fn func(toolrun.Progress)) (string, *progressSink) {
	token := "mcpexec-" + strconv.FormatUint(m.tokens.Add(1), 36)
	sink := &progressSink{fn: fn}
	m.progress.Store(token, sink)
	return token, sink
}

// untrackProgress ends a call's progress: once it returns, the callback is
// not running and will not run again.
func (m *Manager) untrackProgress(token string, sink *progressSink) {
	m.progress.Delete(token)
	sink.mu.Lock()
	sink.fn = nil
	sink.mu.Unlock()
}

// progressRead counts a progress notification the connection has read,
// before the SDK queues it for deliverProgress.
func (m *Manager) progressRead(params json.RawMessage) {
	var p struct {
		ProgressToken any `json:"progressToken"`
	}
	if json.Unmarshal(params, &p) != nil {
		return
	}
	token, ok := p.ProgressToken.(string)
	if !ok {
		return
	}
	if v, ok := m.progress.Load(token); ok {
		v.(*progressSink).read()
	}
}

// deliverProgress is the clients' handler of progress notifications.
func (m *Manager) deliverProgress(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
	if req.Params == nil {
		return
	}
	token, ok := req.Params.ProgressToken.(string)
	if !ok {
		return
	}
	v, ok := m.progress.Load(token)
	if !ok {
		return
	}
	sink := v.(*progressSink)
	defer sink.handled()
	// The lock is held while the callback runs, so that untrackProgress
	// waits for it.
	sink.mu.Lock()
	defer sink.mu.Unlock()
	if sink.fn != nil {
		sink.fn(toolrun.Progress{Progress: req.Params.Progress, Total: req.Params.Total, Message: req.Params.Message})
	}
}
