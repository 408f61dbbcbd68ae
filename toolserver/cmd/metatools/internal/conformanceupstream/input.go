package main

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tools and the prompt of the input-required-result scenarios ask
// their client for input in their results (protocol 2026-07-28): a first
// call gets the requests, and the retry, with the client's answers and
// the state, completes. Every state is signed, so that a state the client
// changed is refused.

// stateKey signs the states of this process.
var stateKey = func() []byte {
	key := make([]byte, 32)
	_, _ = rand.Read(key)
	return key
}()

// signState returns the state carrying value.
func signState(value string) string {
	h := hmac.New(sha256.New, stateKey)
	h.Write([]byte(value))
	return value + "." + base64.RawURLEncoding.EncodeToString(h.Sum(nil))
}

// openState returns the value of a state signState made, and false for
// any other.
func openState(state string) (string, bool) {
	i := strings.LastIndexByte(state, '.')
	if i < 0 {
		return "", false
	}
	value := state[:i]
	return value, hmac.Equal([]byte(signState(value)), []byte(state))
}

// badState is the error of a retry whose state this process did not make.
var badState = &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "requestState failed its integrity check"}

// askFor is the result of a call that needs input.
func askFor(requests mcp.InputRequestMap, state string) *mcp.CallToolResult {
	return &mcp.CallToolResult{InputRequests: requests, RequestState: state}
}

func askName(message, property string) *mcp.ElicitParams {
	return &mcp.ElicitParams{Message: message, RequestedSchema: object(map[string]any{property: map[string]any{"type": "string"}}, property)}
}

func askModel(prompt string, maxTokens int64) *mcp.CreateMessageParams {
	return &mcp.CreateMessageParams{MaxTokens: maxTokens, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: prompt}}}}
}

var askConfirmation = &mcp.ElicitParams{Message: "Please confirm",
	RequestedSchema: object(map[string]any{"ok": map[string]any{"type": "boolean"}}, "ok")}

// accepted returns a field of an accepted elicitation answered under key.
func accepted(answers mcp.InputResponseMap, key, field string) (any, bool) {
	r, ok := answers[key].(*mcp.ElicitResult)
	if !ok || r.Action != "accept" {
		return nil, false
	}
	v, ok := r.Content[field]
	return v, ok
}

// sampled returns the text of a sampling answered under key.
func sampled(answers mcp.InputResponseMap, key string) (string, bool) {
	r, ok := answers[key].(*mcp.CreateMessageWithToolsResult)
	if !ok {
		return "", false
	}
	for _, c := range r.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "", true
}

func addInputTools(s *mcp.Server) {
	tool := func(name, description string, h mcp.ToolHandler) {
		s.AddTool(&mcp.Tool{Name: name, Description: description, InputSchema: noArgs}, h)
	}
	tool("test_input_required_result_elicitation", "Asks the user's name, then greets them.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if name, ok := accepted(req.Params.InputResponses, "user_name", "name"); ok {
				return text(fmt.Sprintf("Hello, %v!", name)), nil
			}
			return askFor(mcp.InputRequestMap{"user_name": askName("What is your name?", "name")}, ""), nil
		})
	tool("test_input_required_result_sampling", "Asks the client's model a question, then returns its answer.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if answer, ok := sampled(req.Params.InputResponses, "capital_question"); ok {
				return text("The model answered: " + answer), nil
			}
			return askFor(mcp.InputRequestMap{"capital_question": askModel("What is the capital of France?", 100)}, ""), nil
		})
	tool("test_input_required_result_list_roots", "Asks the client's roots, then lists them.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if r, ok := req.Params.InputResponses["client_roots"].(*mcp.ListRootsResult); ok {
				uris := make([]string, len(r.Roots))
				for i, root := range r.Roots {
					uris[i] = root.URI
				}
				return text(fmt.Sprintf("%d root(s): %s", len(r.Roots), strings.Join(uris, ", "))), nil
			}
			return askFor(mcp.InputRequestMap{"client_roots": &mcp.ListRootsParams{}}, ""), nil
		})
	tool("test_input_required_result_request_state", "Asks for a confirmation, with a state that must come back.",
		confirmed("request-state"))
	tool("test_input_required_result_tampered_state", "Asks for a confirmation, with a signed state; a changed state is refused.",
		confirmed("tampered-state"))
	tool("test_input_required_result_multiple_inputs", "Asks for a name, a model's greeting and the roots in one round.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState != "" {
				if _, ok := openState(req.Params.RequestState); !ok {
					return nil, badState
				}
				answers := req.Params.InputResponses
				name, named := accepted(answers, "user_name", "name")
				greeting, greeted := sampled(answers, "greeting")
				roots, rooted := answers["client_roots"].(*mcp.ListRootsResult)
				if named && greeted && rooted {
					return text(fmt.Sprintf("%s %v, with %d root(s)", greeting, name, len(roots.Roots))), nil
				}
			}
			return askFor(mcp.InputRequestMap{
				"user_name":    askName("What is your name?", "name"),
				"greeting":     askModel("Generate a greeting", 50),
				"client_roots": &mcp.ListRootsParams{},
			}, signState("multiple")), nil
		})
	tool("test_input_required_result_multi_round", "Asks a name, then a colour, in two rounds.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if req.Params.RequestState == "" {
				return askFor(mcp.InputRequestMap{"step1": askName("Step 1: What is your name?", "name")}, signState("round 1")), nil
			}
			round, ok := openState(req.Params.RequestState)
			if !ok {
				return nil, badState
			}
			answers := req.Params.InputResponses
			if round == "round 1" {
				name, _ := accepted(answers, "step1", "name")
				return askFor(mcp.InputRequestMap{"step2": askName("Step 2: What is your favorite color?", "color")},
					signState(fmt.Sprintf("round 2 %v", name))), nil
			}
			colour, _ := accepted(answers, "step2", "color")
			return text(fmt.Sprintf("%s likes %v", strings.TrimPrefix(round, "round 2 "), colour)), nil
		})
	tool("test_input_required_result_capabilities", "Asks only for the input the client declares it can give.",
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			if len(req.Params.InputResponses) > 0 {
				return text("answered"), nil
			}
			caps, asks := req.ClientCapabilities(), mcp.InputRequestMap{}
			if caps != nil && caps.Elicitation != nil {
				asks["user_name"] = askName("What is your name?", "name")
			}
			if caps != nil && caps.Sampling != nil {
				asks["greeting"] = askModel("Generate a short greeting", 50)
			}
			if caps != nil && caps.RootsV2 != nil {
				asks["client_roots"] = &mcp.ListRootsParams{}
			}
			if len(asks) == 0 {
				return text("the client can give no input"), nil
			}
			return askFor(asks, ""), nil
		})

	s.AddPrompt(&mcp.Prompt{Name: "test_input_required_result_prompt", Description: "Asks for the context of the prompt first."},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			if context, ok := accepted(req.Params.InputResponses, "user_context", "context"); ok {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{
					{Role: "user", Content: &mcp.TextContent{Text: fmt.Sprintf("Answer within this context: %v", context)}},
				}}, nil
			}
			return &mcp.GetPromptResult{InputRequests: mcp.InputRequestMap{
				"user_context": askName("What context should the prompt use?", "context"),
			}}, nil
		})
}

// confirmed is a tool that asks for a confirmation with a signed state,
// refuses a state it did not make, and says "state-ok" once confirmed.
func confirmed(state string) mcp.ToolHandler {
	return func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if req.Params.RequestState != "" {
			if got, ok := openState(req.Params.RequestState); !ok || got != state {
				return nil, badState
			}
			if _, ok := accepted(req.Params.InputResponses, "confirm", "ok"); ok {
				return text("state-ok: the state came back unchanged and the confirmation was given"), nil
			}
		}
		return askFor(mcp.InputRequestMap{"confirm": askConfirmation}, signState(state)), nil
	}
}
