package mcpexec

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// A call whose caller can answer the server's requests for input
// ([toolrun.Call.Input]) relays them as a [toolrun.InputRequired]:
//
//   - a server of protocol 2026-07-28 or later asks in the call's result
//     (inputRequests, requestState): its requests, under its own keys, go
//     to the caller as they are, and the caller's answers and the server's
//     state go back to the server on the next attempt;
//   - an older server sends a request of its own during the call
//     (elicitation/create, sampling/createMessage): the call is stopped
//     and the request goes to the caller under a key made of its content.
//     The next attempt calls the tool again, and answers each request the
//     server sends again from the caller's answers, so a server that asks
//     the same questions in the same order gets through; the answers of
//     every round travel in the state.
//
// The state is this package's own, as JSON; the runner's caller protects
// its integrity (see [toolrun.InputRequired.State]).

// inputResult is the result of a request a server of protocol
// 2026-07-28 or later may answer with requests for input: a tool's, a
// prompt's or a resource's.
type inputResult interface {
	NeedsInput() bool
}

// attempt is what one attempt of a request carries for the server's
// requests for input: the caller's answers, the server's state of the
// earlier attempt, and what the caller can answer. All are empty for a
// caller that cannot answer.
type attempt struct {
	Responses mcp.InputResponseMap
	State     string
	caps      map[string]any
	logLevel  mcp.LoggingLevel // see WithLogLevel
}

// Meta returns the request's metadata for the attempt, a map of its own:
// the SDK adds to a request's metadata.
func (at attempt) Meta() mcp.Meta {
	meta := mcp.Meta{}
	if at.caps != nil {
		meta[mcp.MetaKeyClientCapabilities] = at.caps
	}
	if at.logLevel != "" {
		meta[mcp.MetaKeyLogLevel] = at.logLevel
	}
	if len(meta) == 0 {
		return nil
	}
	return meta
}

// relay makes a request of server s, sent by send on a session of s,
// relaying the server's requests for input as the comment above says
// when in is set (the caller answers them by making the request again);
// asks returns the requests and state of a result that needs input. It
// returns the server's result, or the requests for input: with a state,
// for a caller that can answer them, or none (in is nil), for the caller
// to refuse. resend is the rule of [server.do].
func relay[R inputResult](ctx context.Context, s *server, in *toolrun.Input, resend func(error) bool,
	send func(context.Context, *mcp.ClientSession, attempt) (R, error),
	asks func(R) (mcp.InputRequestMap, string),
) (R, *toolrun.InputRequired, error) {
	var zero R
	// The request's own context ends it once an older server asks the
	// caller for input.
	reqCtx, stop := context.WithCancel(ctx)
	defer stop()
	st, ask, err := s.withInput(in, stop)
	if err != nil {
		return zero, nil, err
	}
	at := attempt{logLevel: logLevelFor(ctx)}
	if ask != nil {
		reqCtx = withAsker(reqCtx, ask)
		at.Responses, at.State = in.Responses, st.Upstream
		if caller := clientFrom(ctx); caller != nil {
			at.caps = clientCapabilitiesMeta(caller)
			ask.roots = capabilitiesOf(caller).RootsV2 != nil
		}
	}
	var res R
	err = s.do(reqCtx, resend, func(sess *mcp.ClientSession) error {
		var err error
		res, err = send(reqCtx, sess, at)
		return err
	})
	if asked := ask.requests(); asked != nil {
		// An older server asked during the request, which was stopped.
		ir, err := s.inputRequired(ctx, asked, inputState{Answers: st.Answers})
		return zero, ir, err
	}
	if err != nil {
		return zero, nil, err
	}
	if !res.NeedsInput() {
		return res, nil, nil
	}
	requests, state := asks(res)
	if in == nil {
		return zero, &toolrun.InputRequired{Requests: requests}, nil
	}
	ir, err := s.inputRequired(ctx, requests, inputState{Upstream: state})
	return zero, ir, err
}

// inputState is the state of a call that needs input.
type inputState struct {
	// Upstream is the server's requestState (protocol 2026-07-28 on).
	Upstream string `json:"upstream,omitempty"`
	// Answers are the caller's answers to the requests of an older
	// server, every round's, under the keys of the requests.
	Answers json.RawMessage `json:"answers,omitempty"`
}

// decodeInputState returns the state of an earlier attempt and the
// answers it carries, merged with the caller's new ones.
func decodeInputState(in *toolrun.Input) (inputState, mcp.InputResponseMap, error) {
	var st inputState
	answers := mcp.InputResponseMap{}
	if in.State != "" {
		if err := json.Unmarshal([]byte(in.State), &st); err != nil {
			return st, nil, fmt.Errorf("the state of the earlier attempt is not valid: %w", err)
		}
		if len(st.Answers) > 0 {
			if err := json.Unmarshal(st.Answers, &answers); err != nil {
				return st, nil, fmt.Errorf("the answers of the earlier attempt are not valid: %w", err)
			}
		}
	}
	maps.Copy(answers, in.Responses)
	return st, answers, nil
}

// encode returns the state as the string the caller gets.
func (st inputState) encode() (string, error) {
	b, err := json.Marshal(st)
	if err != nil {
		return "", errors.Errorf(errors.Internal, "encode the state of the call: %v", err)
	}
	return string(b), nil
}

// asker answers an older server's requests for input during one call,
// from the caller's answers, and records those it cannot answer.
type asker struct {
	answers mcp.InputResponseMap
	stop    context.CancelFunc // ends the call once a request is unanswered
	// roots reports that the caller declared roots: a server's roots/list
	// is the caller's to answer; otherwise the connection answers it, as
	// it does for calls of no client (no roots).
	roots bool

	mu    sync.Mutex
	asked mcp.InputRequestMap
}

type askerKey struct{}

// askerOf returns the asker of the call a server's request, received
// with ctx, belongs to: the call's own, when the SDK hands the request the
// call's context, else that of the one call of a client in flight on the
// connection (the catalogue's own requests, made for no client, cannot
// be asked anything). With calls of several clients in flight, an older
// server's request cannot be told apart: it returns nil.
func (c *conn) askerOf(ctx context.Context) *asker {
	if a := askerFrom(ctx); a != nil {
		return a
	}
	c.s.mu.Lock()
	defer c.s.mu.Unlock()
	var found *asker
	for _, call := range c.calls {
		if call.caller == nil {
			continue
		}
		a := askerFrom(call.ctx)
		if a == nil || (found != nil && a != found) {
			return nil
		}
		found = a
	}
	return found
}

// withAsker returns ctx carrying a.
func withAsker(ctx context.Context, a *asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

// askerFrom returns the asker of the calls made with ctx, or nil.
func askerFrom(ctx context.Context) *asker {
	a, _ := ctx.Value(askerKey{}).(*asker)
	return a
}

// errAsked answers a server's request the caller has not answered yet:
// the call is stopped, and the request goes to the caller.
var errAsked = &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: "the request goes to the client, whose answer comes with the next call"}

// answer returns the caller's answer to req, or records req, stops the
// call and returns errAsked.
func (a *asker) answer(req mcp.InputRequest) (mcp.InputResponse, error) {
	key, err := inputKey(req)
	if err != nil {
		return nil, err
	}
	if r, ok := a.answers[key]; ok {
		return r, nil
	}
	a.mu.Lock()
	a.asked[key] = req
	a.mu.Unlock()
	a.stop()
	return nil, errAsked
}

// answer returns the caller's answer to req, as the result type T of the
// request.
func answer[T any](a *asker, req mcp.InputRequest) (*T, error) {
	r, err := a.answer(req)
	if err != nil {
		return nil, err
	}
	return answerAs[T](r)
}

// requests returns the requests recorded, or nil.
func (a *asker) requests() mcp.InputRequestMap {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.asked) == 0 {
		return nil
	}
	return maps.Clone(a.asked)
}

// inputKey is the key of a request of an older server: its method and a
// digest of its parameters, the same whenever the server asks the same.
func inputKey(req mcp.InputRequest) (string, error) {
	b, err := json.Marshal(mcp.InputRequestMap{"": req})
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:12]), nil
}

// answerAs returns the caller's answer r as the result type T of the
// request: a sampling answer is decoded as one with tools, and a handler
// of the older form gets it as that form.
func answerAs[T any](r mcp.InputResponse) (*T, error) {
	if t, ok := any(r).(*T); ok {
		return t, nil
	}
	b, err := json.Marshal(r)
	if err != nil {
		return nil, err
	}
	var single struct {
		Content []json.RawMessage `json:"content"`
	}
	if json.Unmarshal(b, &single) == nil && len(single.Content) == 1 {
		// A result with one content given as a list, for a type that
		// holds one.
		var m map[string]json.RawMessage
		if json.Unmarshal(b, &m) == nil {
			m["content"] = single.Content[0]
			b, _ = json.Marshal(m)
		}
	}
	t := new(T)
	if err := json.Unmarshal(b, t); err != nil {
		return nil, fmt.Errorf("the client's answer does not fit the request: %w", err)
	}
	return t, nil
}

// clientCapabilitiesMeta is the value of a request's
// io.modelcontextprotocol/clientCapabilities for a caller: what it can
// answer, so that a server of protocol 2026-07-28 asks it nothing else.
func clientCapabilitiesMeta(c Client) map[string]any {
	caps := capabilitiesOf(c)
	meta := map[string]any{}
	if caps.Sampling != nil {
		meta["sampling"] = caps.Sampling
	}
	if caps.Elicitation != nil {
		meta["elicitation"] = caps.Elicitation
	}
	if caps.RootsV2 != nil {
		meta["roots"] = caps.RootsV2
	}
	return meta
}

// undeclared returns the method of a request a client with caps did not
// declare it can answer, and the capability it lacks, or "" and nil.
func undeclared(caps *mcp.ClientCapabilities, requests mcp.InputRequestMap) (string, *mcp.ClientCapabilities) {
	for _, req := range requests {
		switch req.(type) {
		case *mcp.ElicitParams:
			if caps.Elicitation == nil {
				return "elicitation/create", &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{}}
			}
		case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
			if caps.Sampling == nil {
				return "sampling/createMessage", &mcp.ClientCapabilities{Sampling: &mcp.SamplingCapabilities{}}
			}
		case *mcp.ListRootsParams:
			if caps.RootsV2 == nil {
				return "roots/list", &mcp.ClientCapabilities{RootsV2: &mcp.RootCapabilities{}}
			}
		}
	}
	return "", nil
}

// missingCapability is the error of a request that needs a capability
// the client did not declare: code [errors.Unsupported], whose cause is
// MCP's error for it (-32021, naming the capability), which a gateway
// passes on to a client of protocol 2026-07-28 as it is.
func missingCapability(method string, missing *mcp.ClientCapabilities) *errors.Error {
	msg := fmt.Sprintf("the server asks the client for %s, which the client does not declare it can answer", method)
	data, err := json.Marshal(mcp.MissingRequiredClientCapabilityData{RequiredCapabilities: missing})
	if err != nil {
		return errors.Errorf(errors.Internal, "%s: %v", msg, err)
	}
	return errors.E(errors.Unsupported, &jsonrpc.Error{Code: mcp.CodeMissingRequiredClientCapabilities, Message: msg, Data: data})
}
