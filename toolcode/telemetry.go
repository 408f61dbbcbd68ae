package toolcode

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
)

// InstrumentationName is the name of the executor's tracer and meter.
const InstrumentationName = "github.com/metatools-go/metatools/toolcode"

// SpanExecute is the name of the span of an execution.
const SpanExecute = "execute_code"

// MetricExecuteDuration is the histogram of the durations of the
// executions, in seconds, by language ([AttrLanguage]), security profile
// ([AttrProfile]) and outcome (error.type, absent for a success).
const MetricExecuteDuration = "metatools.code.duration"

// MetricSandboxStart is the histogram of the time engines took to get
// their sandboxes ready before the programs ran ([Isolation.Startup]), in
// seconds, by backend ([AttrBackend]) and security profile: recorded for
// each execution in an engine that reports its isolation.
const MetricSandboxStart = "metatools.sandbox.start.duration"

// The attributes of an execution's span and measure.
const (
	// AttrLanguage is the program's language.
	AttrLanguage = attribute.Key("metatools.code.language")
	// AttrProfile is the security profile the engine reported
	// ([Isolation.Profile]), when it reports one.
	AttrProfile = attribute.Key("metatools.code.profile")
	// AttrBackend is what ran the program ([Isolation.Backend]), when
	// the engine reports it.
	AttrBackend = attribute.Key("metatools.code.backend")
	// AttrToolCalls is how many tool calls the program made.
	AttrToolCalls = attribute.Key("metatools.code.tool_calls")
)

// ErrorTypeInputRequired is the error.type of an execution that stopped
// for its caller's input ([Result.InputRequired]).
const ErrorTypeInputRequired = "input_required"

// WithTracerProvider makes the executor trace its executions with tp: a
// span [SpanExecute] per execution, whose children are the spans of the
// program's tool calls, in every engine (an engine's calls come back to
// the executor in the server's process, whatever the sandbox). The
// program's code, arguments and values are not recorded.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(x *Executor) {
		if tp != nil {
			x.tracer = tp.Tracer(InstrumentationName)
		}
	}
}

// WithMeterProvider makes the executor record the duration of its
// executions ([MetricExecuteDuration]) and of their sandboxes' start
// ([MetricSandboxStart]) with mp.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(x *Executor) {
		if mp == nil {
			return
		}
		meter := mp.Meter(InstrumentationName)
		// An instrument the meter refuses is left out: telemetry never
		// stops a program.
		if h, err := meter.Float64Histogram(MetricExecuteDuration, metric.WithUnit("s"),
			metric.WithDescription("Duration of the programs code mode ran, by language, security profile and outcome.")); err == nil {
			x.durations = h
		}
		if h, err := meter.Float64Histogram(MetricSandboxStart, metric.WithUnit("s"),
			metric.WithDescription("Time taken to get a sandbox ready before a program ran in it, by backend and security profile.")); err == nil {
			x.starts = h
		}
	}
}

// startSpan starts the span of an execution, when the executor traces.
func (x *Executor) startSpan(ctx context.Context) (context.Context, trace.Span) {
	if x.tracer == nil {
		return ctx, nil
	}
	return x.tracer.Start(ctx, SpanExecute, trace.WithSpanKind(trace.SpanKindInternal))
}

// observe ends the span of an execution and records its duration.
func (x *Executor) observe(ctx context.Context, span trace.Span, res *Result, err error) {
	attrs := []attribute.KeyValue{AttrLanguage.String(res.Language)}
	if iso := res.Isolation; iso != nil {
		if iso.Profile != "" {
			attrs = append(attrs, AttrProfile.String(iso.Profile))
		}
		if iso.Backend != "" {
			attrs = append(attrs, AttrBackend.String(iso.Backend))
		}
		if x.starts != nil {
			x.starts.Record(ctx, iso.Startup.Seconds(), metric.WithAttributes(AttrBackend.String(iso.Backend), AttrProfile.String(iso.Profile)))
		}
	}
	errType := ""
	switch {
	case err != nil:
		errType = string(errors.CodeOf(err))
	case res.InputRequired != nil:
		errType = ErrorTypeInputRequired
	}
	if errType != "" {
		attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
	}
	if x.durations != nil {
		x.durations.Record(ctx, res.Duration.Seconds(), metric.WithAttributes(attrs...))
	}
	if span == nil {
		return
	}
	span.SetAttributes(append(attrs, AttrToolCalls.Int(len(res.Trace)))...)
	if err != nil {
		// The code says why; the message may quote the program's values.
		span.SetStatus(codes.Error, errType)
	}
	span.End()
}
