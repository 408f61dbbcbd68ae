package toolrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// recorder is an extension that records the order of the pipeline's
// stages and the events it receives.
type recorder struct {
	toolrun.BaseExtension
	name   string
	mu     sync.Mutex
	log    *[]string
	events []toolrun.Event
}

func (r *recorder) note(stage string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	*r.log = append(*r.log, r.name+"."+stage)
}

func (r *recorder) Authorize(context.Context, *toolrun.Call) error { r.note("authorize"); return nil }

func (r *recorder) BeforeExecution(ctx context.Context, _ string, _ map[string]any) (context.Context, error) {
	r.note("before")
	return ctx, nil
}

func (r *recorder) PreCall(context.Context, *toolrun.Call) error { r.note("pre"); return nil }

func (r *recorder) PostCall(context.Context, *toolrun.Call, *toolrun.RunResult) error {
	r.note("post")
	return nil
}

func (r *recorder) AfterExecution(context.Context, string, *toolrun.RunResult, error) error {
	r.note("after")
	return nil
}

func (r *recorder) Publish(_ context.Context, e toolrun.Event) {
	r.note("event:" + string(e.Kind))
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
}

func TestPipelineOrder(t *testing.T) {
	f := newFixture(t)
	var log []string
	a, b := &recorder{name: "a", log: &log}, &recorder{name: "b", log: &log}
	_, err := f.runner(toolrun.WithExtension(a), toolrun.WithExtension(b)).Run(context.Background(), "demo:echo", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{
		"a.authorize", "b.authorize", "a.before", "b.before", "a.pre", "b.pre",
		"a.event:start", "b.event:start", "a.post", "b.post", "a.after", "b.after",
		"a.event:result", "b.event:result",
	}, log)
}

type failingAfter struct {
	toolrun.BaseExtension
	seen error
}

func (h *failingAfter) AfterExecution(_ context.Context, _ string, _ *toolrun.RunResult, err error) error {
	h.seen = err
	return errors.New("audit log unavailable")
}

func TestAfterExecutionSeesFailuresAndCanFail(t *testing.T) {
	f := newFixture(t)
	h := &failingAfter{}
	res, err := f.runner(toolrun.WithExtension(h)).Run(context.Background(), "math:add", map[string]any{"a": "x"})
	assert.Nil(t, res)
	require.ErrorIs(t, h.seen, errors.ErrValidation, "the hook saw the validation failure")
	require.ErrorIs(t, err, errors.ErrValidation)
	assert.Contains(t, err.Error(), "audit log unavailable")

	_, err = f.runner(toolrun.WithHook(h)).Run(context.Background(), "demo:echo", nil)
	require.Error(t, err, "a failing after-hook fails a successful run")
	assert.Equal(t, toolrun.OpAfterExec, opOf(err))
}

func opOf(err error) string {
	var e *errors.Error
	if errors.As(err, &e) {
		return e.Op
	}
	return ""
}

func TestPostCallRewritesResult(t *testing.T) {
	f := newFixture(t)
	redact := toolrun.PostCallFunc(func(_ context.Context, _ *toolrun.Call, res *toolrun.RunResult) error {
		if m, ok := res.Structured.(map[string]any); ok {
			m["text"] = "[redacted]"
		}
		return nil
	})
	res, err := f.runner(toolrun.WithPostCall(redact)).Run(context.Background(), "demo:echo", map[string]any{"text": "secret plan"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"text": "[redacted]"}, res.Structured)
}

func TestEventsShowMaskedArguments(t *testing.T) {
	f := newFixture(t)
	var log []string
	rec := &recorder{name: "r", log: &log}
	r := f.runner(
		toolrun.WithPreCall(toolrun.PreCallFunc(func(_ context.Context, c *toolrun.Call) error {
			c.Args["auth"] = map[string]any{"header": "Bearer s3cr3t-t0ken"}
			return nil
		})),
		toolrun.WithMasker(toolrun.SecretMasker{}),
		toolrun.WithExtension(rec),
	)
	res, err := r.Run(context.Background(), "demo:echo", map[string]any{"text": "call with Bearer abc.def-ghi please", "api_key": "k-123"},
		toolrun.CallOptions{Metadata: map[string]string{"user": "ada"}})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"header": "Bearer s3cr3t-t0ken"}, res.Structured.(map[string]any)["auth"], "the tool gets the real secret")

	require.Len(t, rec.events, 2)
	for _, e := range rec.events {
		assert.JSONEq(t, `{"api_key":"***","auth":"***","text":"call with Bearer *** please"}`, e.Args)
		assert.NotContains(t, e.Args, "s3cr3t")
		assert.Equal(t, "demo:echo", e.ToolID)
		assert.Equal(t, "local:demo:echo", e.Backend)
		assert.Equal(t, map[string]string{"user": "ada"}, e.Metadata)
	}
	assert.Equal(t, toolrun.EventResult, rec.events[1].Kind)
	assert.Equal(t, 1, rec.events[1].Attempts)
	assert.Positive(t, rec.events[1].Duration)
}

func TestDefaultMaskingCompactsJSON(t *testing.T) {
	f := newFixture(t)
	var log []string
	rec := &recorder{name: "r", log: &log}
	_, err := f.runner(toolrun.WithExtension(rec)).Run(context.Background(), "demo:echo", map[string]any{"text": "a b", "n": 1})
	require.NoError(t, err)
	assert.Equal(t, `{"n":1,"text":"a b"}`, rec.events[0].Args) //nolint:testifylint // the exact compact text is what is tested
}

func TestSecretMasker(t *testing.T) {
	in := map[string]any{
		"query":    "weather",
		"Password": "hunter2",
		"nested":   []any{map[string]any{"x-api-key": "k", "note": "token abcdef"}},
		"headers":  map[string]any{"Authorization": "Basic dXNlcjpwYXNz"},
	}
	got := toolrun.SecretMasker{}.Mask("t", in)
	assert.Equal(t, map[string]any{
		"query":    "weather",
		"Password": "***",
		"nested":   []any{map[string]any{"x-api-key": "***", "note": "token ***"}},
		"headers":  map[string]any{"Authorization": "***"},
	}, got)
	assert.Equal(t, "hunter2", in["Password"], "the arguments are not modified")
	assert.Equal(t, map[string]any{"x-api-key": "k", "note": "token abcdef"}, in["nested"].([]any)[0], "nor are their members")
	assert.Equal(t, map[string]any{"Authorization": "Basic dXNlcjpwYXNz"}, in["headers"])
	plain := map[string]any{"query": "weather", "days": 3.0, "where": []any{map[string]any{"city": "Oslo"}}}
	shown, ok := toolrun.SecretMasker{}.Mask("t", plain).(map[string]any)
	require.True(t, ok)
	assert.Equal(t, reflect.ValueOf(plain).Pointer(), reflect.ValueOf(shown).Pointer(), "arguments without secrets are not copied")
	partly, ok := toolrun.SecretMasker{}.Mask("t", map[string]any{"token": "t", "where": plain["where"]}).(map[string]any)
	require.True(t, ok)
	assert.Equal(t, reflect.ValueOf(plain["where"]).Pointer(), reflect.ValueOf(partly["where"]).Pointer(), "nor is a member without secrets next to one")
	assert.Equal(t, map[string]any{"pin": "***", "token": "t"}, toolrun.SecretMasker{Keys: []string{"pin"}}.Mask("t", map[string]any{"pin": "1234", "token": "t"}))
}

// FuzzSecretMasker masks arbitrary JSON arguments: the arguments are
// never modified, no member named like a secret keeps its value, and
// masking what was masked changes nothing.
func FuzzSecretMasker(f *testing.F) {
	f.Add(`{"query":"weather","Password":"hunter2","nested":[{"x-api-key":"k","note":"token abcdef"}]}`)
	f.Add(`{"headers":{"Authorization":"Basic dXNlcjpwYXNz"},"list":[1,"bearer x",null,true]}`)
	f.Add(`["token a", {"session": {"id": 1}}, "plain"]`)
	f.Fuzz(func(t *testing.T, text string) {
		var args any
		if json.Unmarshal([]byte(text), &args) != nil {
			return // only JSON arguments reach a masker
		}
		before, err := json.Marshal(args)
		require.NoError(t, err)
		masker := toolrun.SecretMasker{}
		masked := masker.Mask("t", args)
		after, err := json.Marshal(args)
		require.NoError(t, err)
		require.JSONEq(t, string(before), string(after), "the arguments are not modified")
		requireNoSecretMember(t, masked)
		again, err := json.Marshal(masker.Mask("t", masked))
		require.NoError(t, err)
		shown, err := json.Marshal(masked)
		require.NoError(t, err)
		require.JSONEq(t, string(shown), string(again), "masking is idempotent")
	})
}

// requireNoSecretMember fails when a member named like a secret holds
// anything but the mask.
func requireNoSecretMember(t *testing.T, v any) {
	t.Helper()
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			lower := strings.ToLower(k)
			if slices.ContainsFunc(toolrun.DefaultSecretKeys, func(s string) bool { return strings.Contains(lower, s) }) {
				require.Equal(t, toolrun.Masked, e, "member %q", k)
				continue
			}
			requireNoSecretMember(t, e)
		}
	case []any:
		for _, e := range x {
			requireNoSecretMember(t, e)
		}
	}
}

func TestSlogPublisher(t *testing.T) {
	f := newFixture(t)
	var buf bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}))
	r := f.runner(toolrun.WithEventPublisher(toolrun.NewSlogPublisher(logger)), toolrun.WithMasker(toolrun.SecretMasker{}))
	_, err := r.Run(context.Background(), "demo:echo", map[string]any{"token": "abc"})
	require.NoError(t, err)
	_, err = r.Run(context.Background(), "demo:fail", nil)
	require.NoError(t, err)
	_, err = r.Run(context.Background(), "math:add", map[string]any{"a": "x"})
	require.Error(t, err)

	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 5, "start and result for the two calls that ran; the refusal of the one refused before it started")
	assert.Contains(t, lines[0], `msg="tool call started" tool=demo:echo backend=local:demo:echo args="{\"token\":\"***\"}"`)
	assert.Contains(t, lines[1], `level=INFO msg="tool call finished" tool=demo:echo`)
	assert.Contains(t, lines[3], `level=WARN msg="tool reported an error" tool=demo:fail`)
	assert.Contains(t, lines[4], `level=INFO msg="tool call refused" tool=math:add backend=local:math.add code=validation`)
	assert.NotContains(t, lines[4], `"x"`, "without the arguments")
}

func TestResultEventCountsAttemptsOfFailedRuns(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		f := newFixture(t)
		f.flaky.Store(10)
		var log []string
		rec := &recorder{name: "r", log: &log}
		_, err := f.runner(toolrun.WithExtension(rec)).Run(context.Background(), "demo:flaky", nil)
		require.ErrorIs(t, err, errors.ErrUnavailable)
		require.Len(t, rec.events, 2)
		assert.Equal(t, toolrun.EventResult, rec.events[1].Kind)
		assert.Equal(t, 3, rec.events[1].Attempts, "the default policy made 3 attempts")
		assert.Equal(t, int32(7), f.flaky.Load())

		rec.events = nil
		_, err = f.runner(toolrun.WithExtension(rec)).Run(context.Background(), "demo:badout", nil)
		require.ErrorIs(t, err, errors.ErrValidation)
		require.Len(t, rec.events, 2)
		assert.Equal(t, 1, rec.events[1].Attempts, "a result refused after one execution")
	})
}
