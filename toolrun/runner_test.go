package toolrun_test

import (
	"context"
	"fmt"
	"math"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

func TestRunReturnsTheResult(t *testing.T) {
	f := newFixture(t)
	args := map[string]any{"text": "hi"}
	res, err := f.runner().Run(context.Background(), "demo:echo", args)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"text": "hi"}, res.Structured)
	assert.Equal(t, "demo:echo", res.Tool.ID())
	assert.Equal(t, "local:demo:echo", res.Backend.Identity())
	assert.Equal(t, 1, res.Attempts)
	assert.Positive(t, res.Duration)
	require.NoError(t, res.Err())

	res, err = f.runner().Run(context.Background(), "math:add", map[string]any{"a": 2, "b": 3.5})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"sum": 5.5}, res.Structured)
}

func TestRunFailuresNameTheirStage(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		name    string
		toolID  string
		args    map[string]any
		opts    []toolrun.CallOptions
		runner  []toolrun.Option
		code    errors.Code
		op      string
		message string
	}{
		{name: "unknown tool", toolID: "demo:nope", code: errors.NotFound, op: toolrun.OpResolve, message: `no tool "demo:nope"`},
		{name: "malformed id", toolID: "demo:a b", code: errors.InvalidArgument, op: toolrun.OpResolve},
		{name: "invalid input", toolID: "math:add", args: map[string]any{"a": "two"}, code: errors.Validation, op: toolrun.OpValidateInput, message: "/a: type"},
		{name: "invalid output", toolID: "demo:badout", code: errors.Validation, op: toolrun.OpValidateOutput, message: "/n: type"},
		{name: "denied", toolID: "demo:echo", runner: []toolrun.Option{toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{"demo:*"}})},
			code: errors.PermissionDenied, op: toolrun.OpAuthorize, message: `denied by pattern "demo:*"`},
		{name: "pre-call rejects", toolID: "demo:echo", runner: []toolrun.Option{toolrun.WithPreCall(toolrun.PreCallFunc(func(context.Context, *toolrun.Call) error {
			return errors.Errorf(errors.Unauthenticated, "no session")
		}))}, code: errors.Unauthenticated, op: toolrun.OpPreCall, message: "no session"},
		{name: "post-call fails", toolID: "demo:echo", runner: []toolrun.Option{toolrun.WithPostCall(toolrun.PostCallFunc(func(context.Context, *toolrun.Call, *toolrun.RunResult) error {
			return errors.New("redaction failed")
		}))}, code: errors.Internal, op: toolrun.OpPostCall, message: "redaction failed"},
		{name: "no executor", toolID: "demo:echo", opts: []toolrun.CallOptions{{Prefer: []toolrun.SelectHint{{Kind: toolmodel.BackendHTTP}}}}, runner: []toolrun.Option{toolrun.WithSelector(
			toolrun.BackendSelectorFunc(func(context.Context, *toolmodel.Tool, []toolmodel.ToolBackend, []toolrun.SelectHint) (toolmodel.ToolBackend, error) {
				return toolmodel.ToolBackend{Kind: "queue", Config: map[string]string{"source": "q"}}, nil
			}))}, code: errors.Unsupported, op: toolrun.OpExecute, message: `no executor for backend kind "queue"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, err := f.runner(tt.runner...).Run(context.Background(), tt.toolID, tt.args, tt.opts...)
			require.Error(t, err)
			assert.Nil(t, res)
			var e *errors.Error
			require.ErrorAs(t, err, &e)
			assert.Equal(t, tt.code, e.Code, "error: %v", err)
			assert.Equal(t, tt.op, e.Op)
			assert.Equal(t, tt.toolID, e.ToolID)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

func TestToolFailureIsAResult(t *testing.T) {
	f := newFixture(t)
	res, err := f.runner().Run(context.Background(), "demo:fail", nil)
	require.NoError(t, err)
	require.Error(t, res.Err())
	require.ErrorIs(t, res.Err(), errors.ErrExecution)
	assert.Equal(t, "boom", res.Structured)
	assert.Contains(t, res.Err().Error(), `tool "demo:fail"`)
}

func TestSkipValidation(t *testing.T) {
	f := newFixture(t)
	res, err := f.runner().Run(context.Background(), "demo:badout", nil, toolrun.CallOptions{SkipValidation: true})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"n": "not a number"}, res.Structured)
}

func TestRunDoesNotModifyArgs(t *testing.T) {
	f := newFixture(t)
	args := map[string]any{"text": "hi"}
	r := f.runner(toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, c *toolrun.Call) error {
		c.Args["injected"] = true
		return nil
	})))
	res, err := r.Run(context.Background(), "demo:echo", args)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"text": "hi", "injected": true}, res.Structured)
	assert.Equal(t, map[string]any{"text": "hi"}, args)
}

func TestResolutionOrder(t *testing.T) {
	f := newFixture(t)
	// No index on the runner: the context's index is used.
	r := toolrun.New(f.registry)
	_, err := r.Run(context.Background(), "demo:echo", nil)
	require.ErrorIs(t, err, errors.ErrNotFound)
	res, err := r.Run(toolindex.WithIndex(context.Background(), f.index), "demo:echo", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{}, res.Structured)

	// Resolvers come last, for tools no index knows.
	extra, err := toolmodel.DecodeTool([]byte(`{"name":"extra","inputSchema":{"type":"object"}}`))
	require.NoError(t, err)
	f.local.Register("extra", func(context.Context, map[string]any) (any, error) { return "from resolver", nil })
	r = f.runner(toolrun.WithResolver(toolrun.ResolverFunc(func(_ context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
		if id != "extra" {
			return toolmodel.Tool{}, nil, errors.Errorf(errors.NotFound, "unknown %s", id)
		}
		return extra, []toolmodel.ToolBackend{toolrun.LocalBackendFor("extra")}, nil
	})))
	res, err = r.Run(context.Background(), "extra", nil)
	require.NoError(t, err)
	assert.Equal(t, "from resolver", res.Structured)
	res, err = r.Run(context.Background(), "demo:echo", map[string]any{"text": "x"})
	require.NoError(t, err, "the index answers before the resolver")
	assert.Equal(t, map[string]any{"text": "x"}, res.Structured)
}

func TestBackendPreference(t *testing.T) {
	f := newFixture(t)
	tool, _, err := f.index.GetAll(context.Background(), "demo:echo")
	require.NoError(t, err)
	provider := toolrun.NewProviderExecutor()
	provider.Register("crm", toolrun.ProviderFunc(func(_ context.Context, name string, _ *toolrun.Call) (toolrun.Output, error) {
		return toolrun.Output{Structured: "provider ran " + name}, nil
	}))
	f.registry.Register(toolmodel.BackendProvider, provider)
	require.NoError(t, f.index.Register(context.Background(), toolindex.Registration{Tool: tool,
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "crm", ToolName: "echo_v2"}}}))

	res, err := f.runner().Run(context.Background(), "demo:echo", nil)
	require.NoError(t, err)
	assert.Equal(t, toolmodel.BackendLocal, res.Backend.Kind, "local comes first by default")

	res, err = f.runner().Run(context.Background(), "demo:echo", nil, toolrun.CallOptions{Prefer: []toolrun.SelectHint{{Kind: toolmodel.BackendProvider}}})
	require.NoError(t, err)
	assert.Equal(t, "provider ran echo_v2", res.Structured)

	res, err = f.runner().Run(context.Background(), "demo:echo", nil, toolrun.CallOptions{Prefer: []toolrun.SelectHint{{Backend: "provider:crm"}}})
	require.NoError(t, err)
	assert.Equal(t, "provider:crm", res.Backend.Identity())
}

func TestTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		start := time.Now()
		_, err := f.runner().Run(context.Background(), "demo:block", nil, toolrun.CallOptions{Timeout: toolmodel.Duration(3 * time.Second)})
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err), "error: %v", err)
		assert.Equal(t, 3*time.Second, time.Since(start))
	})
}

func TestRetryWithBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.flaky.Store(2)
		policy := toolrun.ExponentialBackoff{MaxAttempts: 5, Initial: time.Second, Max: time.Minute, Multiplier: 3}
		start := time.Now()
		res, err := f.runner(toolrun.WithRetryPolicy(policy)).Run(context.Background(), "demo:flaky", nil)
		require.NoError(t, err)
		assert.Equal(t, 3, res.Attempts)
		assert.Equal(t, 4*time.Second, time.Since(start), "1s then 3s of backoff")
	})
}

func TestBackoffNeverWrapsRound(t *testing.T) {
	retryable := errors.E(errors.Unavailable, errors.New("down"))
	policy := toolrun.ExponentialBackoff{MaxAttempts: 100, Initial: time.Second, Multiplier: 10}
	d, ok := policy.Backoff(30, retryable)
	require.True(t, ok)
	assert.Equal(t, time.Duration(math.MaxInt64), d, "10^29 seconds is longer than any Duration: the longest, not a negative one")
	d, _ = policy.Backoff(3, retryable)
	assert.Equal(t, 100*time.Second, d)
}

func TestRetryGivesUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.flaky.Store(10)
		_, err := f.runner().Run(context.Background(), "demo:flaky", nil)
		require.ErrorIs(t, err, errors.ErrUnavailable)
		assert.Equal(t, int32(7), f.flaky.Load(), "the default policy makes 3 attempts")
	})
}

func TestRetryOnlyRetryableErrors(t *testing.T) {
	f := newFixture(t)
	calls := 0
	f.local.Register("demo:flaky", func(context.Context, map[string]any) (any, error) {
		calls++
		return nil, errors.Errorf(errors.InvalidArgument, "bad request")
	})
	_, err := f.runner().Run(context.Background(), "demo:flaky", nil)
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
	assert.Equal(t, 1, calls)
}

func TestRetryAfterIsHonoured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		calls := 0
		f.local.Register("demo:flaky", func(context.Context, map[string]any) (any, error) {
			calls++
			if calls == 1 {
				return nil, toolrun.WithRetryAfter(errors.Errorf(errors.RateLimited, "slow down"), 7*time.Second)
			}
			return "ok", nil
		})
		start := time.Now()
		res, err := f.runner().Run(context.Background(), "demo:flaky", nil)
		require.NoError(t, err)
		assert.Equal(t, "ok", res.Structured)
		assert.Equal(t, 7*time.Second, time.Since(start))
	})
}

func TestCancellationDuringBackoff(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.flaky.Store(10)
		policy := toolrun.ExponentialBackoff{MaxAttempts: 5, Initial: time.Hour, Max: time.Hour}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error)
		start := time.Now()
		go func() {
			_, err := f.runner(toolrun.WithRetryPolicy(policy)).Run(ctx, "demo:flaky", nil)
			done <- err
		}()
		synctest.Wait() // the run is waiting out its first backoff
		assert.Equal(t, int32(9), f.flaky.Load(), "one attempt made")
		cancel()
		err := <-done
		require.Error(t, err)
		assert.Equal(t, errors.Canceled, errors.CodeOf(err), "error: %v", err)
		assert.Zero(t, time.Since(start), "the wait ended at once")
	})
}

func TestAllowDeny(t *testing.T) {
	tests := []struct {
		policy toolrun.AllowDeny
		id     string
		allow  bool
	}{
		{toolrun.AllowDeny{}, "a:b", true},
		{toolrun.AllowDeny{Allow: []string{"github:*"}}, "github:create_issue", true},
		{toolrun.AllowDeny{Allow: []string{"github:*"}}, "gitlab:create_issue", false},
		{toolrun.AllowDeny{Allow: []string{"github:*"}}, "github", false},
		{toolrun.AllowDeny{Allow: []string{"*:read_*"}}, "fs:read_file", true},
		{toolrun.AllowDeny{Allow: []string{"*:read_*"}}, "fs:write_file", false},
		{toolrun.AllowDeny{Allow: []string{"now"}}, "now", true},
		{toolrun.AllowDeny{Allow: []string{"*"}, Deny: []string{"github:delete_*"}}, "github:delete_repo", false},
		{toolrun.AllowDeny{Deny: []string{"github:delete_*"}}, "github:create_issue", true},
	}
	for _, tt := range tests {
		t.Run(tt.id, func(t *testing.T) {
			tool := toolmodel.Tool{}
			ns, name, err := toolmodel.ParseToolID(tt.id)
			require.NoError(t, err)
			tool.Namespace, tool.Name = ns, name
			err = tt.policy.Authorize(context.Background(), &toolrun.Call{Tool: tool})
			if tt.allow {
				assert.NoError(t, err)
			} else {
				assert.ErrorIs(t, err, errors.ErrPermissionDenied)
			}
		})
	}
	require.ErrorIs(t, toolrun.AllowDeny{Allow: []string{"a["}}.Validate(), errors.ErrInvalidArgument)
	require.NoError(t, toolrun.AllowDeny{Allow: []string{"a:*"}, Deny: []string{"*:x?"}}.Validate())
}

// FuzzAllowDeny checks the tool patterns: a pattern Validate accepts
// never makes Authorize fail otherwise than by refusing; a tool's own ID,
// and its namespace followed by ":*", always match it; and a refusal
// names the pattern or the allow list.
func FuzzAllowDeny(f *testing.F) {
	f.Add("github:*", "github:create_issue")
	f.Add("*:read_*", "fs:read_file")
	f.Add("a[", "a:b")
	f.Add("x:[!a-c]?", "x:dz")
	f.Add(`ns\:*`, "ns:x")
	f.Fuzz(func(t *testing.T, pattern, id string) {
		ns, name, err := toolmodel.ParseToolID(id)
		if err != nil {
			return
		}
		call := &toolrun.Call{Tool: toolmodel.Tool{Namespace: ns}}
		call.Tool.Name = name
		id = call.ToolID()

		policy := toolrun.AllowDeny{Deny: []string{pattern}}
		if err := policy.Validate(); err != nil {
			require.ErrorIs(t, err, errors.ErrInvalidArgument)
			return
		}
		err = policy.Authorize(t.Context(), call)
		if err != nil {
			require.ErrorIs(t, err, errors.ErrPermissionDenied)
			require.Contains(t, err.Error(), fmt.Sprintf("%q", pattern))
		}
		allow := toolrun.AllowDeny{Allow: []string{pattern}}
		if allowErr := allow.Authorize(t.Context(), call); (err == nil) != (allowErr != nil) {
			t.Fatalf("pattern %q denies %q (%v) but allowing it gives %v", pattern, id, err, allowErr)
		}
		for _, own := range []string{id, ns + ":*"} {
			if own == ":*" {
				continue
			}
			require.NoError(t, toolrun.AllowDeny{Allow: []string{own}}.Validate())
			require.NoError(t, toolrun.AllowDeny{Allow: []string{own}}.Authorize(t.Context(), call), "pattern %q", own)
		}
	})
}

func TestTypedNilIndexCountsAsNone(t *testing.T) {
	f := newFixture(t)
	var typedNil *toolindex.MemoryIndex
	fallback := toolrun.WithResolver(toolrun.ResolverFunc(func(ctx context.Context, id string) (toolmodel.Tool, []toolmodel.ToolBackend, error) {
		return f.index.GetAll(ctx, id)
	}))
	for name, r := range map[string]*toolrun.Runner{
		"in the context": toolrun.New(f.registry, fallback),
		"on the runner":  toolrun.New(f.registry, toolrun.WithIndex(typedNil), fallback),
	} {
		t.Run(name, func(t *testing.T) {
			ctx := toolindex.WithIndex(context.Background(), typedNil)
			res, err := r.Run(ctx, "demo:echo", map[string]any{"text": "x"})
			require.NoError(t, err, "the nil index is skipped and the resolver answers")
			assert.Equal(t, map[string]any{"text": "x"}, res.Structured)
			_, err = r.Run(ctx, "demo:nope", nil)
			require.ErrorIs(t, err, errors.ErrNotFound)
		})
	}
}

func TestAuthorizeAsksThePoliciesWithoutRunning(t *testing.T) {
	f := newFixture(t)
	var seen []*toolrun.Call
	record := toolrun.AuthorizationFunc(func(_ context.Context, call *toolrun.Call) error {
		seen = append(seen, call)
		return nil
	})
	executed := false
	runner := f.runner(
		toolrun.WithAuthorization(record),
		toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{"demo:fail"}}),
		toolrun.WithPreCall(toolrun.PreCallFunc(func(context.Context, *toolrun.Call) error {
			executed = true
			return nil
		})),
	)
	ctx := context.Background()

	require.NoError(t, runner.Authorize(ctx, "demo:echo"))
	require.Len(t, seen, 1)
	assert.Equal(t, "demo:echo", seen[0].ToolID())
	assert.Equal(t, "local:demo:echo", seen[0].Backend.Identity())
	assert.Nil(t, seen[0].Args, "a policy can tell the question from a call")
	assert.False(t, executed, "no hook runs")

	tests := []struct {
		id   string
		code errors.Code
		op   string
	}{
		{"demo:fail", errors.PermissionDenied, toolrun.OpAuthorize},
		{"demo:nope", errors.NotFound, toolrun.OpResolve},
		{"demo:a b", errors.InvalidArgument, toolrun.OpResolve},
	}
	for _, tt := range tests {
		err := runner.Authorize(ctx, tt.id)
		require.Error(t, err, tt.id)
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, tt.code, e.Code, tt.id)
		assert.Equal(t, tt.op, e.Op, tt.id)
	}
	_, err := runner.Run(ctx, "demo:fail", nil)
	require.ErrorIs(t, err, errors.ErrPermissionDenied, "the same policy refuses the call")
}
