package toolrun_test

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"github.com/metatools-go/metatools/toolrun"
)

// TestAuditLog shows the audit log's line for each call that ended or was
// refused: the
// request and trace it served, the caller, the tool, its backend, the
// outcome and the size of the arguments, never a secret of theirs, and
// never an error's message.
func TestAuditLog(t *testing.T) {
	f := newFixture(t)
	var buf bytes.Buffer
	tp := sdktrace.NewTracerProvider()
	r := f.runner(toolrun.WithEventPublisher(toolrun.NewAuditLog(&buf, toolrun.AuditArguments())),
		toolrun.WithMasker(toolrun.SecretMasker{}), toolrun.WithTracerProvider(tp))
	ctx := toolrun.WithRequestInfo(context.Background(), toolrun.RequestInfo{ID: "req-1", Session: "sess-1"})
	caller := toolrun.CallOptions{Metadata: map[string]string{"subject": "alice"}}

	_, err := r.Run(ctx, "demo:echo", map[string]any{"text": "hi", "api_key": "sk-planted-secret"}, caller)
	require.NoError(t, err)
	_, err = r.Run(ctx, "demo:fail", nil, caller)
	require.NoError(t, err)
	_, err = r.Run(ctx, "demo:missing", nil, caller)
	require.Error(t, err)
	_, err = r.Run(ctx, "demo:echo", map[string]any{"text": 42, "api_key": "sk-planted-secret"}, caller)
	require.Error(t, err, "invalid arguments")

	assert.NotContains(t, buf.String(), "sk-planted-secret", "no secret")
	assert.NotContains(t, buf.String(), "boom", "no error message")
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	require.Len(t, lines, 3, "a call of an unknown tool has no line: there is no tool to audit")
	var recs []toolrun.AuditRecord
	for _, line := range lines {
		var rec toolrun.AuditRecord
		require.NoError(t, json.Unmarshal([]byte(line), &rec), line)
		recs = append(recs, rec)
	}
	ok := recs[0]
	assert.Equal(t, "req-1", ok.Request)
	assert.Equal(t, "sess-1", ok.Session)
	assert.Len(t, ok.Trace, 32, "the call's trace")
	assert.Equal(t, map[string]string{"subject": "alice"}, ok.Caller)
	assert.Equal(t, "demo:echo", ok.Tool)
	assert.Equal(t, "local:demo:echo", ok.Backend)
	assert.Equal(t, "ok", ok.Outcome)
	assert.Equal(t, 1, ok.Attempts)
	assert.Equal(t, len(ok.Args), ok.ArgBytes)
	assert.Contains(t, string(ok.Args), `"text":"hi"`, "the arguments, as the masker shows them")
	assert.Equal(t, "tool_error", recs[1].Outcome)
	refused := recs[2]
	assert.Equal(t, "demo:echo", refused.Tool)
	assert.Equal(t, "validation", refused.Outcome, "a call refused before it ran has its line, with the code of why")
	assert.Zero(t, refused.ArgBytes, "the arguments of a refused call are not shown")
	assert.Empty(t, refused.Args)
}

// TestNewAuditRecordIsTheLogsLine checks that the record a publisher
// builds with NewAuditRecord is the audit log's line, arguments aside.
func TestNewAuditRecordIsTheLogsLine(t *testing.T) {
	f := newFixture(t)
	var buf bytes.Buffer
	var kept []toolrun.AuditRecord
	keep := toolrun.EventPublisherFunc(func(ctx context.Context, e toolrun.Event) {
		if e.Kind != toolrun.EventStart {
			kept = append(kept, toolrun.NewAuditRecord(ctx, e))
		}
	})
	r := f.runner(toolrun.WithEventPublisher(toolrun.NewAuditLog(&buf)), toolrun.WithEventPublisher(keep))
	ctx := toolrun.WithRequestInfo(context.Background(), toolrun.RequestInfo{ID: "req-2"})
	_, err := r.Run(ctx, "demo:fail", nil, toolrun.CallOptions{Metadata: map[string]string{"subject": "bob"}})
	require.NoError(t, err)

	var logged toolrun.AuditRecord
	require.NoError(t, json.Unmarshal(buf.Bytes(), &logged))
	require.Len(t, kept, 1)
	assert.Equal(t, logged, kept[0])
	assert.Equal(t, "tool_error", kept[0].Outcome)
	assert.Equal(t, map[string]string{"subject": "bob"}, kept[0].Caller)
}
