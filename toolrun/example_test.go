package toolrun_test

import (
	"context"
	"fmt"

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
	fmt.Println(e.Kind, e.ToolID, e.Args)
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
