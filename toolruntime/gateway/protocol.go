package gateway

import (
	"encoding/json"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolops"
)

// The methods of the protocol. The host sends one request, [MethodExecute],
// and the guest answers it last; in between, the guest calls the tools
// methods and sends [MethodLog] notifications. A guest may first send a
// [MethodReady] notification, once it has started and before it reads the
// execution.
const (
	MethodReady      = "ready"
	MethodExecute    = "execute"
	MethodSearch     = "tools/search"
	MethodNamespaces = "tools/namespaces"
	MethodDescribe   = "tools/describe"
	MethodExamples   = "tools/examples"
	MethodRun        = "tools/run"
	MethodChain      = "tools/chain"
	MethodLog        = "log"
)

// executeID is the ID of the host's one request.
const executeID = 1

// Execution is what the host asks the guest to run.
type Execution struct {
	// Language names the engine ("javascript", "typescript").
	Language string `json:"language"`
	// Code is the program's source.
	Code string `json:"code"`
	// Limits are the program's limits; the guest's engine enforces wall
	// time and recursion, the host's gateway the others.
	Limits toolcode.Limits `json:"limits"`
}

// ExecuteResult is the guest's answer to [MethodExecute] when the program
// succeeded.
type ExecuteResult struct {
	// Value is the JSON of the value the program returned.
	Value json.RawMessage `json:"value"`
}

// The params of tools/search, tools/describe and tools/examples are the
// requests of the operations themselves (toolops.SearchRequest,
// toolops.DescribeRequest, toolops.ExamplesRequest): the host hands them
// to the same code as every other face.

type runParams struct {
	ID   string         `json:"id"`
	Args map[string]any `json:"args,omitempty"`
}

type chainParams struct {
	Steps []toolops.ChainStep `json:"steps"`
}

type logParams struct {
	Line string `json:"line"`
}
