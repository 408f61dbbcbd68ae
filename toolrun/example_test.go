package toolrun_test

import (
	"context"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

func Example() {
	type addArgs struct {
		A float64 `json:"a"`
		B float64 `json:"b"`
	}
	type sum struct {
		Sum float64 `json:"sum"`
	}
	tool, fn, err := toolrun.NewLocalTool("add", "Add two numbers.", func(_ context.Context, in addArgs) (sum, error) {
		return sum{Sum: in.A + in.B}, nil
	})
	if err != nil {
		panic(err)
	}
	local := toolrun.NewLocalExecutor()
	local.Register("add", fn)
	idx := toolindex.New()
	ctx := context.Background()
	if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("add")}); err != nil {
		panic(err)
	}

	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))
	res, err := runner.Run(ctx, "add", map[string]any{"a": 2, "b": 40})
	fmt.Println(res.Structured, err)

	_, err = runner.Run(ctx, "add", map[string]any{"a": "two"})
	fmt.Println(err)
	// Output:
	// map[sum:42] <nil>
	// validate_input: tool "add" (backend local:add): /b: required property is missing; /a: type: two has type "string", want "number"
}

// The "authorized executor": each call carries the credentials of the
// session in its context, only allowed tools run, and events never show
// the token. These two examples build it in the two styles the runner
// supports: separate hooks, and one extension type.

type sessionKey struct{}

// session is the caller's identity, put in the context by the server.
type session struct {
	User  string
	Token string
}

// crmRunner returns a runner over a CRM tool that demands a bearer token.
func crmRunner(opts ...toolrun.Option) *toolrun.Runner {
	local := toolrun.NewLocalExecutor()
	local.Register("lookup", func(_ context.Context, args map[string]any) (any, error) {
		if args["auth"] != "Bearer t0k3n-for-ada" {
			return nil, errors.Errorf(errors.Unauthenticated, "bad token")
		}
		return map[string]any{"customer": args["email"], "plan": "pro"}, nil
	})
	idx := toolindex.New()
	for _, name := range []string{"lookup_customer", "delete_customer"} {
		tool, _ := toolmodel.DecodeTool([]byte(`{"name":"` + name + `","namespace":"crm","inputSchema":{"type":"object","properties":{"email":{"type":"string"}}}}`))
		_ = idx.Register(context.Background(), toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor("lookup")})
	}
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local})
	return toolrun.New(reg, append([]toolrun.Option{toolrun.WithIndex(idx)}, opts...)...)
}

func injectAuth(ctx context.Context, call *toolrun.Call) error {
	s, ok := ctx.Value(sessionKey{}).(session)
	if !ok {
		return errors.Errorf(errors.Unauthenticated, "no session")
	}
	call.Args["auth"] = "Bearer " + s.Token
	return nil
}

func printEvent(_ context.Context, e toolrun.Event) {
	line := string(e.Kind) + " " + e.ToolID
	if e.Args != "" {
		line += " " + e.Args
	}
	fmt.Println(line)
}

func Example_authorizedExecutorWithHooks() {
	runner := crmRunner(
		toolrun.WithAuthorization(toolrun.AllowDeny{Allow: []string{"crm:lookup_*"}}),
		toolrun.WithPreCall(toolrun.PreCallFunc(injectAuth)),
		toolrun.WithMasker(toolrun.SecretMasker{}),
		toolrun.WithEventPublisher(toolrun.EventPublisherFunc(printEvent)),
	)
	ctx := context.WithValue(context.Background(), sessionKey{}, session{User: "ada", Token: "t0k3n-for-ada"})

	res, err := runner.Run(ctx, "crm:lookup_customer", map[string]any{"email": "ada@example.com"})
	fmt.Println(res.Structured, err)

	_, err = runner.Run(ctx, "crm:delete_customer", map[string]any{"email": "ada@example.com"})
	fmt.Println(err)
	// Output:
	// start crm:lookup_customer {"auth":"***","email":"ada@example.com"}
	// result crm:lookup_customer {"auth":"***","email":"ada@example.com"}
	// map[customer:ada@example.com plan:pro] <nil>
	// refused crm:delete_customer
	// authorize: tool "crm:delete_customer" (backend local:lookup): tool "crm:delete_customer" is not in the allow list
}

// authorizedExecutor is the same behaviour as one extension: it embeds
// BaseExtension and overrides what it needs.
type authorizedExecutor struct {
	toolrun.BaseExtension
	policy toolrun.AllowDeny
}

func (a authorizedExecutor) Authorize(ctx context.Context, call *toolrun.Call) error {
	return a.policy.Authorize(ctx, call)
}

func (authorizedExecutor) PreCall(ctx context.Context, call *toolrun.Call) error {
	return injectAuth(ctx, call)
}

func (authorizedExecutor) MaskArguments(toolID string, args any) any {
	return toolrun.SecretMasker{}.Mask(toolID, args)
}

func (authorizedExecutor) Publish(ctx context.Context, e toolrun.Event) { printEvent(ctx, e) }

func Example_authorizedExecutorAsExtension() {
	runner := crmRunner(toolrun.WithExtension(authorizedExecutor{policy: toolrun.AllowDeny{Allow: []string{"crm:lookup_*"}}}))
	ctx := context.WithValue(context.Background(), sessionKey{}, session{User: "ada", Token: "t0k3n-for-ada"})

	res, err := runner.Run(ctx, "crm:lookup_customer", map[string]any{"email": "ada@example.com"})
	fmt.Println(res.Structured, err)

	_, err = runner.Run(context.Background(), "crm:lookup_customer", map[string]any{"email": "ada@example.com"})
	fmt.Println(err)
	// Output:
	// start crm:lookup_customer {"auth":"***","email":"ada@example.com"}
	// result crm:lookup_customer {"auth":"***","email":"ada@example.com"}
	// map[customer:ada@example.com plan:pro] <nil>
	// refused crm:lookup_customer
	// pre_call: tool "crm:lookup_customer" (backend local:lookup): no session
}

func ExampleRunner_RunChain() {
	runner := crmRunner(toolrun.WithPreCall(toolrun.PreCallFunc(injectAuth)))
	ctx := context.WithValue(context.Background(), sessionKey{}, session{Token: "t0k3n-for-ada"})
	results, err := runner.RunChain(ctx, []toolrun.ChainStep{
		{ToolID: "crm:lookup_customer", Args: map[string]any{"email": "ada@example.com"}},
		{ToolID: "crm:lookup_customer", Args: map[string]any{"email": "grace@example.com"}, UsePrevious: true},
	})
	for _, r := range results {
		fmt.Println(r.Step, r.Result.Structured)
	}
	fmt.Println(err)
	// Output:
	// 0 map[customer:ada@example.com plan:pro]
	// 1 map[customer:grace@example.com plan:pro]
	// <nil>
}

// kvKind is the backend kind of a third-party executor: tools that read a
// key from a key-value store. A kind outside the built-in ones carries its
// settings in the backend's Config, which names its source.
const kvKind toolmodel.BackendKind = "kv"

// kvExecutor serves the tools of kind "kv" from in-memory stores. They are
// read-only once built, so it is safe for concurrent use.
type kvExecutor struct {
	stores map[string]map[string]string // store -> key -> value
}

var _ toolrun.Executor = (*kvExecutor)(nil)

// Execute reads the key of the call's "key" argument from the store that
// the call's backend names.
func (x *kvExecutor) Execute(ctx context.Context, call *toolrun.Call) (toolrun.Output, error) {
	if err := errors.FromContext(ctx, toolrun.OpExecute, nil); err != nil {
		return toolrun.Output{}, err // canceled or timeout, as the contract asks
	}
	name := call.Backend.Config["source"]
	store, ok := x.stores[name]
	if !ok { // the backend cannot be reached: a Go error with its code
		return toolrun.Output{}, errors.Errorf(errors.Unavailable, "no store %q", name)
	}
	key, _ := call.Args["key"].(string) // the runner validated the arguments
	value, ok := store[key]
	if !ok { // the tool ran and failed: a result the model reads
		return toolrun.Output{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "no key " + key}}}, nil
	}
	return toolrun.Output{Structured: map[string]any{"key": key, "value": value}}, nil
}

// A backend of your own: an Executor registered for its kind. The
// toolruntest package checks an executor against the contract.
func Example_customExecutor() {
	tool, err := toolmodel.DecodeTool([]byte(`{"name":"get","namespace":"prefs",
		"inputSchema":{"type":"object","properties":{"key":{"type":"string"}},"required":["key"]}}`))
	if err != nil {
		panic(err)
	}
	idx := toolindex.New()
	ctx := context.Background()
	backend := toolmodel.ToolBackend{Kind: kvKind, Config: map[string]string{"source": "settings"}}
	if err := idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: backend}); err != nil {
		panic(err)
	}
	kv := &kvExecutor{stores: map[string]map[string]string{"settings": {"theme": "dark"}}}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{kvKind: kv}), toolrun.WithIndex(idx))

	res, err := runner.Run(ctx, "prefs:get", map[string]any{"key": "theme"})
	fmt.Println(res.Structured, err)

	res, err = runner.Run(ctx, "prefs:get", map[string]any{"key": "font"})
	fmt.Println(res.ToolError, err)
	// Output:
	// map[key:theme value:dark] <nil>
	// execute: tool "prefs:get" (backend kv:settings): no key font <nil>
}
