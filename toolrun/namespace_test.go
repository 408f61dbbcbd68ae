package toolrun_test

import (
	"context"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

func TestAuthorizeNamespace(t *testing.T) {
	tests := []struct {
		name    string
		policy  toolrun.AllowDeny
		allowed map[string]bool
	}{
		{"no policy", toolrun.AllowDeny{}, map[string]bool{"math": true, "text": true}},
		{"a namespace denied", toolrun.AllowDeny{Deny: []string{"math:*"}}, map[string]bool{"math": false, "text": true}},
		{"one tool denied", toolrun.AllowDeny{Deny: []string{"math:eval"}}, map[string]bool{"math": true}},
		{"everything denied", toolrun.AllowDeny{Deny: []string{"*"}}, map[string]bool{"math": false, "text": false}},
		{"an allow list", toolrun.AllowDeny{Allow: []string{"text:*"}}, map[string]bool{"math": false, "text": true}},
		{"an allow list of one tool", toolrun.AllowDeny{Allow: []string{"text:case"}}, map[string]bool{"text": false}},
	}
	ctx := context.Background()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := toolrun.New(toolrun.NewExecutorRegistry(nil), toolrun.WithAuthorization(tt.policy))
			for ns, want := range tt.allowed {
				err := r.AuthorizeNamespace(ctx, ns)
				if want {
					require.NoError(t, err, ns)
					continue
				}
				require.Error(t, err, ns)
				assert.Equal(t, errors.PermissionDenied, errors.CodeOf(err), ns)
				var e *errors.Error
				require.ErrorAs(t, err, &e)
				assert.Equal(t, toolrun.OpAuthorize, e.Op)
			}
		})
	}

	var seen map[string]string
	byUser := toolrun.AuthorizationFunc(func(_ context.Context, call *toolrun.Call) error {
		seen = call.Metadata
		if call.Tool.Namespace == "admin" && call.Metadata["user"] != "root" {
			return errors.Errorf(errors.PermissionDenied, "admin is for root")
		}
		return nil
	})
	r := toolrun.New(toolrun.NewExecutorRegistry(nil), toolrun.WithAuthorization(byUser))
	require.NoError(t, r.AuthorizeNamespace(ctx, "admin", toolrun.CallOptions{Metadata: map[string]string{"user": "root"}}))
	assert.Equal(t, map[string]string{"user": "root"}, seen, "the policy sees the caller")
	require.Error(t, r.AuthorizeNamespace(ctx, "admin"))

	panicky := toolrun.New(toolrun.NewExecutorRegistry(nil), toolrun.WithAuthorization(toolrun.AuthorizationFunc(
		func(context.Context, *toolrun.Call) error { panic("policy bug") })))
	err := panicky.AuthorizeNamespace(ctx, "math")
	assert.Equal(t, errors.Internal, errors.CodeOf(err), "a policy's panic is an error, not a crash")
}

// TestAuthorizeTool shows the policies asked about a tool no index holds:
// they see the tool, its backend and the caller, as for a call.
func TestAuthorizeTool(t *testing.T) {
	ctx := context.Background()
	tool := toolmodel.Tool{Namespace: "evil", Tool: mcp.Tool{Name: "add"}}
	backend := toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "evil"}}
	var seen *toolrun.Call
	policy := toolrun.AuthorizationFunc(func(_ context.Context, call *toolrun.Call) error {
		seen = call
		return toolrun.AllowDeny{Deny: []string{"evil:add"}}.Authorize(ctx, call)
	})
	r := toolrun.New(toolrun.NewExecutorRegistry(nil), toolrun.WithAuthorization(policy))
	err := r.AuthorizeTool(ctx, tool, backend, toolrun.CallOptions{Metadata: map[string]string{"user": "ada"}})
	require.Error(t, err)
	assert.Equal(t, errors.PermissionDenied, errors.CodeOf(err))
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, toolrun.OpAuthorize, e.Op)
	assert.Equal(t, "evil:add", e.ToolID)
	require.NotNil(t, seen)
	assert.Equal(t, "mcp:evil", seen.Backend.Identity())
	assert.Equal(t, "ada", seen.Metadata["user"])

	tool.Name = "sub"
	require.NoError(t, r.AuthorizeTool(ctx, tool, backend), "a tool the policies allow")
}
