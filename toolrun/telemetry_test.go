package toolrun_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolrun"
)

// TestTelemetry shows what a runner given OpenTelemetry providers
// records: a span per call, named and described as OpenTelemetry's
// conventions for tool execution say, whose children are the spans the
// executor starts, and the calls' durations by tool, backend and
// outcome.
func TestTelemetry(t *testing.T) {
	f := newFixture(t)
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	f.add(t, `{"name":"traced","namespace":"demo","inputSchema":{"type":"object"}}`, func(ctx context.Context, _ map[string]any) (any, error) {
		_, span := tp.Tracer("executor").Start(ctx, "the executor's own span", trace.WithSpanKind(trace.SpanKindClient))
		span.End()
		return "ok", nil
	})
	r := f.runner(toolrun.WithTracerProvider(tp), toolrun.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	ctx := context.Background()

	_, err := r.Run(ctx, "demo:traced", nil)
	require.NoError(t, err)
	res, err := r.Run(ctx, "demo:fail", nil)
	require.NoError(t, err)
	require.NotNil(t, res.ToolError)
	_, err = r.Run(ctx, "demo:missing", nil)
	require.Error(t, err)

	ended := spans.Ended()
	require.Len(t, ended, 4)
	executor, traced, failed, missing := ended[0], ended[1], ended[2], ended[3]
	assert.Equal(t, "execute_tool demo:traced", traced.Name())
	assert.Equal(t, trace.SpanKindInternal, traced.SpanKind())
	assert.Equal(t, traced.SpanContext().SpanID(), executor.Parent().SpanID(), "the executor's span is the call's child")
	assert.Equal(t, map[attribute.Key]attribute.Value{
		"gen_ai.operation.name": attribute.StringValue("execute_tool"),
		"gen_ai.tool.name":      attribute.StringValue("demo:traced"),
		"metatools.backend":     attribute.StringValue("local:demo:traced"),
		"metatools.attempts":    attribute.IntValue(1),
	}, attrMap(traced.Attributes()))
	assert.Equal(t, codes.Unset, traced.Status().Code)

	assert.Equal(t, "tool_error", attrMap(failed.Attributes())["error.type"].AsString())
	assert.Equal(t, codes.Error, failed.Status().Code)
	assert.Equal(t, "not_found", attrMap(missing.Attributes())["error.type"].AsString())
	assert.Equal(t, "resolve: not_found", missing.Status().Description, "the code and the stage, never the message")

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	assert.Equal(t, toolrun.InstrumentationName, rm.ScopeMetrics[0].Scope.Name)
	m := rm.ScopeMetrics[0].Metrics[0]
	assert.Equal(t, toolrun.MetricToolDuration, m.Name)
	assert.Equal(t, "s", m.Unit)
	counts := map[string]uint64{}
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		tool, _ := dp.Attributes.Value("gen_ai.tool.name")
		outcome, _ := dp.Attributes.Value("error.type")
		counts[tool.AsString()+" "+outcome.AsString()] += dp.Count
	}
	assert.Equal(t, map[string]uint64{"demo:traced ": 1, "demo:fail tool_error": 1, "demo:missing not_found": 1}, counts)
}

func attrMap(kvs []attribute.KeyValue) map[attribute.Key]attribute.Value {
	m := map[attribute.Key]attribute.Value{}
	for _, kv := range kvs {
		m[kv.Key] = kv.Value
	}
	return m
}
