package httpexec

import (
	"context"
	"net/http"
	"strconv"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolrun"
)

// InstrumentationName is the name of the executor's tracer.
const InstrumentationName = "github.com/metatools-go/metatools/toolrun/httpexec"

// WithTracerProvider makes the executor trace its requests with tp: a
// span of kind CLIENT per request, named by its method as OpenTelemetry's
// conventions for HTTP say (http.request.method, server.address,
// server.port, url.full without its credentials and query,
// http.response.status_code, error.type), whose W3C trace context and
// baggage go to the API in the request's headers. Bodies and headers are
// not recorded.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(e *Executor) {
		if tp != nil {
			e.tracer = tp.Tracer(InstrumentationName)
		}
	}
}

// startSpan starts the span of req, when the executor traces, and puts
// its context in req's headers.
func (e *Executor) startSpan(ctx context.Context, req *http.Request) trace.Span {
	if e.tracer == nil {
		return nil
	}
	host := req.URL.Hostname()
	port, err := strconv.Atoi(req.URL.Port())
	if err != nil {
		port = 443
		if req.URL.Scheme == "http" {
			port = 80
		}
	}
	ctx, span := e.tracer.Start(ctx, req.Method, trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(
		semconv.HTTPRequestMethodKey.String(req.Method), semconv.ServerAddress(host), semconv.ServerPort(port),
		semconv.URLFull(toolrun.RedactURL(req.URL.String()))))
	toolrun.TracePropagator().Inject(ctx, propagation.HeaderCarrier(req.Header))
	return span
}

// endSpan ends the span of a request that got resp, or failed with err.
func endSpan(span trace.Span, resp *http.Response, err error) {
	if span == nil {
		return
	}
	switch {
	case err != nil:
		span.SetAttributes(semconv.ErrorTypeOther)
		span.SetStatus(codes.Error, "the request failed")
	case resp.StatusCode >= 400:
		status := strconv.Itoa(resp.StatusCode)
		span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode), semconv.ErrorTypeKey.String(status))
		span.SetStatus(codes.Error, status)
	default:
		span.SetAttributes(semconv.HTTPResponseStatusCode(resp.StatusCode))
	}
	span.End()
}
