package toolcode_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolrun"
)

// TestTelemetry shows an execution traced: one execute_code span whose
// children are the spans of the program's tool calls, made at once, and
// the execution's duration by language and outcome.
func TestTelemetry(t *testing.T) {
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	f := toolcodetest.NewFixture(t, toolrun.WithTracerProvider(tp))
	x := toolcode.New(f.Ops, toolcode.WithEngine(javascript.New()),
		toolcode.WithTracerProvider(tp), toolcode.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	ctx := context.Background()

	res, err := x.Execute(ctx, toolcode.ExecuteParams{Code: `
		const [a, b] = await Promise.all([tools.math.add({a: 1, b: 2}), tools.math.add({a: 3, b: 4})]);
		return a.sum + b.sum;`})
	require.NoError(t, err)
	assert.JSONEq(t, "10", string(res.Value))
	_, err = x.Execute(ctx, toolcode.ExecuteParams{Code: `throw new Error("no")`})
	require.Error(t, err)

	var executions []sdktrace.ReadOnlySpan
	children := map[string]int{}
	for _, s := range spans.Ended() {
		if s.Name() == toolcode.SpanExecute {
			executions = append(executions, s)
		} else {
			children[s.Parent().SpanID().String()+" "+s.Name()]++
		}
	}
	require.Len(t, executions, 2)
	first := executions[0]
	assert.Equal(t, 2, children[first.SpanContext().SpanID().String()+" execute_tool math:add"], "the program's calls are the execution's children")
	assert.Contains(t, first.Attributes(), attribute.Int("metatools.code.tool_calls", 2))
	assert.Contains(t, first.Attributes(), attribute.String("metatools.code.language", "javascript"))
	assert.Contains(t, executions[1].Attributes(), attribute.String("error.type", "execution"))

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	require.Len(t, rm.ScopeMetrics, 1)
	m := rm.ScopeMetrics[0].Metrics[0]
	assert.Equal(t, toolcode.MetricExecuteDuration, m.Name)
	var total uint64
	for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
		total += dp.Count
	}
	assert.EqualValues(t, 2, total)
}

// confined is an engine that runs nothing in a sandbox that took startup
// to start, and reports it.
type confined struct{ startup time.Duration }

func (confined) Language() string { return "javascript" }

func (e confined) Execute(_ context.Context, prog toolcode.Program) (json.RawMessage, error) {
	prog.Report(toolcode.Isolation{Backend: "process", Profile: "standard", Startup: e.startup})
	return json.RawMessage("1"), nil
}

// TestSandboxStartIsMeasured shows the start of an engine's sandbox
// recorded by backend and profile, as the engine reported it.
func TestSandboxStartIsMeasured(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	f := toolcodetest.NewFixture(t)
	x := toolcode.New(f.Ops, toolcode.WithEngine(confined{startup: 30 * time.Millisecond}),
		toolcode.WithMeterProvider(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))))
	for range 2 {
		_, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: "return 1"})
		require.NoError(t, err)
	}
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(t.Context(), &rm))
	var starts *metricdata.HistogramDataPoint[float64]
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == toolcode.MetricSandboxStart {
			points := m.Data.(metricdata.Histogram[float64]).DataPoints
			require.Len(t, points, 1)
			starts = &points[0]
		}
	}
	require.NotNil(t, starts, "the starts are measured")
	assert.EqualValues(t, 2, starts.Count)
	assert.InDelta(t, 0.060, starts.Sum, 1e-9)
	backend, _ := starts.Attributes.Value(toolcode.AttrBackend)
	profile, _ := starts.Attributes.Value(toolcode.AttrProfile)
	assert.Equal(t, "process", backend.AsString())
	assert.Equal(t, "standard", profile.AsString())
}
