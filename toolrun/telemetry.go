package toolrun

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
)

// InstrumentationName is the name of the tracer and the meter of the
// runner and of its MCP client (toolrun/mcpexec).
const InstrumentationName = "github.com/metatools-go/metatools/toolrun"

// The attributes the runner adds to OpenTelemetry's conventions for the
// execution of a tool.
const (
	// AttrBackend is the identity of the backend that ran a call, such
	// as "mcp:github" ([toolmodel.ToolBackend.Identity]).
	AttrBackend = attribute.Key("metatools.backend")
	// AttrAttempts is how many times the call was executed.
	AttrAttempts = attribute.Key("metatools.attempts")
)

// ErrorTypeToolError is the error.type of a call whose tool ran and
// reported a failure ([RunResult.ToolError]); a call that failed otherwise
// has its error's code ([errors.Code]).
const ErrorTypeToolError = "tool_error"

// MetricToolDuration is the histogram of the durations of the runner's
// calls, in seconds, by tool (gen_ai.tool.name), backend
// ([AttrBackend]) and outcome (error.type, absent for a success).
const MetricToolDuration = "metatools.tool.duration"

// TracePropagator is how the executors pass a call's trace context on to
// the servers they call (an MCP request's _meta, HTTP headers, gRPC
// metadata): W3C trace context and baggage.
func TracePropagator() propagation.TextMapPropagator { return tracePropagator }

var tracePropagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})

// WithTracerProvider makes the runner trace its calls with tp: a span
// "execute_tool {tool}" per call, following OpenTelemetry's conventions
// for generative AI (gen_ai.operation.name "execute_tool",
// gen_ai.tool.name, error.type), with [AttrBackend] and [AttrAttempts].
// The executors' own spans (an MCP server's request) are its children.
// Arguments and results are not recorded. Without it, the runner traces
// nothing and costs nothing more.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(r *Runner) {
		if tp != nil {
			r.tracer = tp.Tracer(InstrumentationName)
		}
	}
}

// WithMeterProvider makes the runner record the duration of its calls
// with mp ([MetricToolDuration]). Without it, the runner measures
// nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(r *Runner) {
		if mp == nil {
			return
		}
		h, err := mp.Meter(InstrumentationName).Float64Histogram(MetricToolDuration,
			metric.WithUnit("s"), metric.WithDescription("Duration of the tool calls the runner made, by tool, backend and outcome."))
		if err == nil {
			r.durations = h
		}
	}
}

// startSpan starts the span of a call, when the runner traces.
func (r *Runner) startSpan(ctx context.Context, toolID string) (context.Context, trace.Span) {
	if r.tracer == nil {
		return ctx, nil
	}
	return r.tracer.Start(ctx, "execute_tool "+toolID, trace.WithSpanKind(trace.SpanKindInternal),
		trace.WithAttributes(semconv.GenAIOperationNameExecuteTool, semconv.GenAIToolName(toolID)))
}

// observe ends the span of a call and records its duration, when the
// runner traces or measures.
func (r *Runner) observe(ctx context.Context, span trace.Span, c *callState, took time.Duration, result *RunResult, err error) {
	if span == nil && r.durations == nil {
		return
	}
	attrs := []attribute.KeyValue{semconv.GenAIToolName(c.toolID)}
	if c.identity != "" {
		attrs = append(attrs, AttrBackend.String(c.identity))
	}
	errType := ""
	switch {
	case err != nil:
		errType = string(errors.CodeOf(err))
	case result != nil && result.ToolError != nil:
		errType = ErrorTypeToolError
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	if r.durations != nil {
		r.durations.Record(ctx, took.Seconds(), metric.WithAttributes(attrs...))
	}
	if span == nil {
		return
	}
	span.SetAttributes(append(attrs[1:], AttrAttempts.Int(c.attempts))...)
	if errType != "" {
		// The code and the stage say why; the message may quote the
		// arguments, which a trace must not hold.
		var e *errors.Error
		why := errType
		if errors.As(err, &e) && e.Op != "" {
			why = e.Op + ": " + errType
		}
		span.SetStatus(codes.Error, why)
	}
	span.End()
}
