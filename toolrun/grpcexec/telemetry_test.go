package grpcexec_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolrun/grpcexec"
	"github.com/metatools-go/metatools/toolrun/grpcexec/internal/testservice"
)

// TestTracing shows traced calls: a CLIENT span per call, named by its
// method, whose context reaches the service in the call's metadata; a
// stream's span lasts until its last message.
func TestTracing(t *testing.T) {
	s := start(t)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	e := newExecutor(t, grpcexec.WithTracerProvider(tp))

	out, err := e.Execute(context.Background(), call(backend(s.Addr, "Headers"), map[string]any{}))
	require.NoError(t, err)
	_, err = e.Execute(context.Background(), call(backend(s.Addr, "Count"), map[string]any{"n": 2.0}))
	require.NoError(t, err)

	byName := map[string]sdktrace.ReadOnlySpan{}
	for _, span := range spans.Ended() {
		if span.SpanKind() == trace.SpanKindClient {
			byName[span.Name()] = span
		}
	}
	require.Len(t, byName, 2, "one span per call, none for the reflection")
	headers := byName[strings.TrimPrefix(testservice.Method("Headers"), "/")]
	require.NotNil(t, headers, "%v", byName)
	sc := headers.SpanContext()
	assert.Equal(t, "00-"+sc.TraceID().String()+"-"+sc.SpanID().String()+"-01", out.Structured.(map[string]any)["traceparent"],
		"the service gets the call's context")
	attrs := attribute.NewSet(headers.Attributes()...)
	system, _ := attrs.Value("rpc.system.name")
	assert.Equal(t, "grpc", system.AsString())
	code, _ := attrs.Value("rpc.response.status_code")
	assert.Equal(t, "OK", code.AsString())
	assert.NotNil(t, byName[strings.TrimPrefix(testservice.Method("Count"), "/")])
}
