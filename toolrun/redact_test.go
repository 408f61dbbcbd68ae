package toolrun_test

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

const (
	injectedToken = "s3cr3t-t0ken-4711"
	injectedKey   = "k3y-0f-the-api-99"
	callerKey     = "caller-owned-key-1"
)

// secretFixture adds tools that leak their arguments: one whose schema
// refuses the injected header and quotes it, one whose function fails with
// an error echoing the arguments, one whose tool failure echoes them, and
// one that succeeds.
func secretFixture(t *testing.T) *fixture {
	t.Helper()
	f := newFixture(t)
	f.add(t, `{"name":"strict","namespace":"api","inputSchema":{"type":"object",
		"properties":{"Authorization":{"type":"string","pattern":"^Basic "}}}}`,
		func(context.Context, map[string]any) (any, error) { return "unreachable", nil })
	f.add(t, `{"name":"upstream","namespace":"api","inputSchema":{"type":"object"}}`,
		func(_ context.Context, args map[string]any) (any, error) {
			return nil, errors.Errorf(errors.Unavailable, "upstream refused %v (header %q)", args, args["Authorization"])
		})
	f.add(t, `{"name":"badtoken","namespace":"api","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) {
			return nil, errors.Errorf(errors.Unauthenticated, "token %s has expired", injectedToken)
		})
	f.add(t, `{"name":"echofail","namespace":"api","inputSchema":{"type":"object"}}`,
		func(_ context.Context, args map[string]any) (any, error) {
			return nil, fmt.Errorf("bad request: %v", args)
		})
	f.add(t, `{"name":"echoout","namespace":"api","inputSchema":{"type":"object"},
		"outputSchema":{"type":"object","properties":{"Authorization":{"type":"string","pattern":"^Basic "}}}}`,
		func(_ context.Context, args map[string]any) (any, error) { return args, nil })
	f.add(t, `{"name":"ok","namespace":"api","inputSchema":{"type":"object"}}`,
		func(context.Context, map[string]any) (any, error) { return "fine", nil })
	return f
}

// injectCredentials is a pre-call hook adding an Authorization header and
// an API key, as an auth hook does from the session.
var injectCredentials = toolrun.PreCallFunc(func(_ context.Context, c *toolrun.Call) error {
	c.Args["Authorization"] = "Bearer " + injectedToken
	c.Args["api_key"] = injectedKey
	return nil
})

func assertNoSecret(t *testing.T, what, text string) {
	t.Helper()
	for _, s := range []string{injectedToken, injectedKey, callerKey} {
		assert.NotContains(t, text, s, "%s shows a secret", what)
	}
}

func TestMaskingCoversErrorsAndLogs(t *testing.T) {
	maskers := map[string]toolrun.Option{
		"SecretMasker": toolrun.WithMasker(toolrun.SecretMasker{}),
		// A masker without SecretLister: the runner finds what it hides
		// by comparing the arguments before and after.
		"custom masker": toolrun.WithMasker(toolrun.ArgumentMaskerFunc(func(_ string, args any) any {
			m, ok := args.(map[string]any)
			if !ok {
				return args
			}
			out := map[string]any{}
			for k, v := range m {
				out[k] = v
				if k == "Authorization" || k == "api_key" || k == "password" {
					out[k] = "hidden"
				}
			}
			return out
		})),
	}
	tests := []struct {
		tool string
		code errors.Code
		op   string
		// listerOnly: the error quotes the credential without its
		// "Bearer" prefix, which only a SecretLister can tell.
		listerOnly bool
	}{
		{tool: "api:strict", code: errors.Validation, op: toolrun.OpValidateInput},
		{tool: "api:echoout", code: errors.Validation, op: toolrun.OpValidateOutput},
		{tool: "api:upstream", code: errors.Unavailable, op: toolrun.OpExecute},
		{tool: "api:badtoken", code: errors.Unauthenticated, op: toolrun.OpExecute, listerOnly: true},
		{tool: "api:echofail"}, // the tool's own failure: a result
	}
	for name, masker := range maskers {
		for _, tt := range tests {
			if tt.listerOnly && name != "SecretMasker" {
				continue
			}
			t.Run(name+"/"+tt.tool, func(t *testing.T) {
				f := secretFixture(t)
				var logs bytes.Buffer
				logger := slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
				var events []toolrun.Event
				r := f.runner(
					toolrun.WithPreCall(injectCredentials),
					masker,
					toolrun.WithEventPublisher(toolrun.NewSlogPublisher(logger)),
					toolrun.WithEventPublisher(toolrun.EventPublisherFunc(func(_ context.Context, e toolrun.Event) { events = append(events, e) })),
					toolrun.WithRetryPolicy(toolrun.NoRetry),
				)
				res, err := r.Run(context.Background(), tt.tool, map[string]any{"password": callerKey, "q": "weather"})
				if tt.code == "" {
					require.NoError(t, err)
					require.NotNil(t, res.ToolError)
					assert.Contains(t, res.ToolError.Error(), "bad request")
					assertNoSecret(t, "the tool error", res.ToolError.Error())
					assertNoSecret(t, "the tool error's cause", res.Err().Error())
				} else {
					require.Error(t, err)
					assert.Equal(t, tt.code, errors.CodeOf(err), "the code survives redaction")
					assert.Equal(t, tt.op, opOf(err))
					assert.Contains(t, err.Error(), "***", "the secret's place is marked")
					assertNoSecret(t, "the error", err.Error())
					var coded *errors.Error
					require.ErrorAs(t, err, &coded)
					assertNoSecret(t, "the *errors.Error found by As", coded.Error())
				}
				if tt.op == toolrun.OpValidateInput {
					require.Len(t, events, 1, "a call refused before it started has one event")
					assert.Equal(t, toolrun.EventRefused, events[0].Kind)
					assert.Empty(t, events[0].Args, "and shows no argument")
					return
				}
				require.Len(t, events, 2)
				for _, e := range events {
					assertNoSecret(t, "the event's arguments", e.Args)
					if e.Err != nil {
						assertNoSecret(t, "the event's error", e.Err.Error())
					}
				}
				assert.Contains(t, logs.String(), "level=WARN")
				assertNoSecret(t, "the log", logs.String())
			})
		}
	}
}

func TestMaskingCoversChainsAndBatches(t *testing.T) {
	f := secretFixture(t)
	var logs bytes.Buffer
	r := f.runner(toolrun.WithPreCall(injectCredentials), toolrun.WithMasker(toolrun.SecretMasker{}),
		toolrun.WithEventPublisher(toolrun.NewSlogPublisher(slog.New(slog.NewJSONHandler(&logs, nil)))),
		toolrun.WithRetryPolicy(toolrun.NoRetry))
	ctx := context.Background()

	steps, err := r.RunChain(ctx, []toolrun.ChainStep{
		{ToolID: "api:ok"}, {ToolID: "api:upstream", Args: map[string]any{"password": callerKey}},
	})
	require.Error(t, err)
	require.Len(t, steps, 2)
	assertNoSecret(t, "the chain's error", err.Error())
	assertNoSecret(t, "the step's error", steps[1].Err.Error())

	batch, err := r.RunBatch(ctx, []toolrun.BatchCall{
		{ToolID: "api:strict"}, {ToolID: "api:echofail"}, {ToolID: "api:ok"},
	}, toolrun.WithBatchMode(toolrun.BatchAbortOnError), toolrun.WithParallelism(1))
	require.Error(t, err)
	assertNoSecret(t, "the batch's error", err.Error())
	for i, b := range batch {
		if b.Err != nil {
			assertNoSecret(t, fmt.Sprintf("call %d's error", i), b.Err.Error())
		}
		if b.Result != nil && b.Result.ToolError != nil {
			assertNoSecret(t, fmt.Sprintf("call %d's tool error", i), b.Result.ToolError.Error())
		}
	}
	assertNoSecret(t, "the log", logs.String())
}

func TestRedactionKeepsTheErrorChain(t *testing.T) {
	f := secretFixture(t)
	cause := errors.New("the socket said no")
	f.local.Register("api:upstream", func(_ context.Context, args map[string]any) (any, error) {
		return nil, errors.E(errors.Unavailable, fmt.Errorf("sending %v: %w", args, cause))
	})
	r := f.runner(toolrun.WithPreCall(injectCredentials), toolrun.WithMasker(toolrun.SecretMasker{}), toolrun.WithRetryPolicy(toolrun.NoRetry))
	_, err := r.Run(context.Background(), "api:upstream", nil)
	require.Error(t, err)
	assertNoSecret(t, "the error", err.Error())
	require.ErrorIs(t, err, cause, "errors.Is still finds the cause")
	require.ErrorIs(t, err, errors.ErrUnavailable)
	assert.True(t, errors.IsRetryable(err))
}

func TestNoMaskerNoRedaction(t *testing.T) {
	f := secretFixture(t)
	_, err := f.runner(toolrun.WithPreCall(injectCredentials), toolrun.WithRetryPolicy(toolrun.NoRetry)).
		Run(context.Background(), "api:upstream", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), injectedToken, "without a masker nothing is secret")
}

func TestSecretMaskerSecrets(t *testing.T) {
	got := toolrun.SecretMasker{}.Secrets("t", map[string]any{
		"query":   "weather",
		"headers": map[string]any{"Authorization": "Bearer abc.def"},
		"note":    "use token zyx-123 here",
		"pin":     1234.0,
		"list":    []any{map[string]any{"password": "hunter2"}},
	})
	assert.ElementsMatch(t, []string{"Bearer abc.def", "abc.def", "zyx-123", "hunter2"}, got)
	assert.ElementsMatch(t, []string{"1234"}, toolrun.SecretMasker{Keys: []string{"pin"}}.Secrets("t", map[string]any{"pin": 1234.0}))
}

func TestRedactor(t *testing.T) {
	rd := toolrun.NewRedactor([]string{"abc", "tok-1234", "tok-1234-long", `q"uote`})
	assert.Equal(t, "*** then ***, and abc", rd.Redact("tok-1234-long then tok-1234, and abc"),
		"the longest first, and nothing shorter than MinSecretLen")
	assert.Equal(t, `message: "***" refused`, rd.Redact(`message: "q\"uote" refused`), "a secret in its quoted form too")
	assert.Nil(t, toolrun.NewRedactor([]string{"abc", ""}), "no secret to search for")
	var none *toolrun.Redactor
	assert.Equal(t, "tok-1234", none.Redact("tok-1234"), "a nil Redactor changes nothing")
}

func TestRedactURL(t *testing.T) {
	tests := []struct{ in, want string }{
		{"https://api.example.com/v1/spec.yaml", "https://api.example.com/v1/spec.yaml"},
		{"https://api.example.com/spec.yaml?api_key=" + injectedKey, "https://api.example.com/spec.yaml"},
		{"https://ann:" + injectedKey + "@api.example.com/x#frag", "https://api.example.com/x"},
		{"https://api.example.com/x?", "https://api.example.com/x"},
		{"http://[::1/x?api_key=" + injectedKey, "(invalid URL)"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, toolrun.RedactURL(tt.in), tt.in)
	}
}

// FuzzRedactURL checks that a redacted URL never shows the user info, the
// query or the fragment of the URL it came from.
func FuzzRedactURL(f *testing.F) {
	f.Add("https://ann:pw@api.example.com/spec.yaml?api_key=k#f")
	f.Add("http://[::1/x?k=v")
	f.Add("/relative?x=1")
	f.Fuzz(func(t *testing.T, raw string) {
		got := toolrun.RedactURL(raw)
		if got == "(invalid URL)" {
			return
		}
		u, err := url.Parse(got)
		require.NoError(t, err, "a redacted URL parses")
		assert.Nil(t, u.User)
		assert.Empty(t, u.RawQuery)
		assert.Empty(t, u.Fragment)
	})
}
