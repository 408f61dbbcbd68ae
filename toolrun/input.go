package toolrun

import (
	"slices"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
)

// InputRequired is what a call returns, in place of a result, when its
// tool needs input from the caller before it can finish: the user's
// answer to a question (elicitation), a completion of the caller's model
// (sampling), or the caller's roots. It is MCP's multi-round-trip request
// (protocol 2026-07-28): the caller gathers the answers and makes the
// same call again with them ([CallOptions.Input]), and the tool goes on.
//
// An executor returns one only for a caller that can answer, which says
// so with a non-nil [CallOptions.Input] (empty on a first attempt); the
// runner fails any other call that needs input, with code
// [errors.Unsupported], naming what the tool asked for.
type InputRequired struct {
	// Requests are what the caller is asked, under keys the caller
	// answers under. It may be empty when State alone is to come back.
	Requests mcp.InputRequestMap
	// State is what the executor needs again on the next attempt, opaque
	// to the caller, which returns it unchanged ([Input.State]). The
	// runner's caller is answerable for its integrity: a caller that can
	// forge it can make the executor resume a call in any state.
	State string
}

// Input is a caller's answer to an [InputRequired] of an earlier attempt
// of the same call; the zero Input, on a first attempt, says that the
// caller can answer one.
type Input struct {
	// Responses answer the requests, under their keys.
	Responses mcp.InputResponseMap
	// State is [InputRequired.State], as the earlier attempt returned it.
	State string
}

// methods returns the methods of the requests, sorted, once each.
func (r *InputRequired) methods() []string {
	var methods []string
	for _, req := range r.Requests {
		m := inputMethod(req)
		if !slices.Contains(methods, m) {
			methods = append(methods, m)
		}
	}
	slices.Sort(methods)
	return methods
}

// inputMethod is the MCP method of an input request.
func inputMethod(req mcp.InputRequest) string {
	switch req.(type) {
	case *mcp.ElicitParams:
		return "elicitation/create"
	case *mcp.CreateMessageParams, *mcp.CreateMessageWithToolsParams:
		return "sampling/createMessage"
	case *mcp.ListRootsParams:
		return "roots/list"
	}
	return "an unknown request"
}

// Unanswerable is the error of a request whose server needs input, r,
// that its caller cannot give: code [errors.Unsupported], naming the
// methods of the requests.
func (r *InputRequired) Unanswerable() error {
	what := "input"
	if m := r.methods(); len(m) > 0 {
		what = strings.Join(m, ", ")
	}
	return errors.Errorf(errors.Unsupported, "the server needs input from the caller (%s), which this caller cannot give: make the request from an MCP client of protocol 2026-07-28 or later, or one that answers these requests", what)
}
