package grpcexec

import (
	"context"
	"net"
	"strconv"
	"strings"

	"go.opentelemetry.io/otel/codes"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/metatools-go/metatools/toolrun"
)

// InstrumentationName is the name of the executor's tracer.
const InstrumentationName = "github.com/metatools-go/metatools/toolrun/grpcexec"

// WithTracerProvider makes the executor trace its calls with tp: a span
// of kind CLIENT per call of a method, named "package.Service/Method" as
// OpenTelemetry's conventions for RPC say (rpc.system.name "grpc",
// rpc.method, server.address, server.port, rpc.response.status_code,
// error.type), which lasts until a stream's last message, and whose W3C
// trace context and baggage go to the service in the call's metadata.
// Messages are not recorded.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(e *Executor) {
		if tp != nil {
			e.tracer = tp.Tracer(InstrumentationName)
		}
	}
}

// startSpan starts the span of a call to address, when the executor
// traces, and returns the context to call with, its metadata carrying
// the span's context.
func (e *Executor) startSpan(ctx context.Context, address, fullMethod string) (context.Context, trace.Span) {
	if e.tracer == nil {
		return ctx, nil
	}
	method := strings.TrimPrefix(fullMethod, "/")
	attrs := []trace.SpanStartOption{trace.WithSpanKind(trace.SpanKindClient), trace.WithAttributes(semconv.RPCSystemNameGRPC, semconv.RPCMethod(method))}
	if host, port, err := net.SplitHostPort(address); err == nil {
		attrs = append(attrs, trace.WithAttributes(semconv.ServerAddress(host)))
		if n, err := strconv.Atoi(port); err == nil {
			attrs = append(attrs, trace.WithAttributes(semconv.ServerPort(n)))
		}
	}
	ctx, span := e.tracer.Start(ctx, method, attrs...)
	md, _ := metadata.FromOutgoingContext(ctx)
	md = md.Copy()
	toolrun.TracePropagator().Inject(ctx, metadataCarrier(md))
	return metadata.NewOutgoingContext(ctx, md), span
}

// endSpan ends the span of a call that ended with the gRPC error err.
func endSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	code := status.Code(err)
	span.SetAttributes(semconv.RPCResponseStatusCode(code.String()))
	if err != nil {
		span.SetAttributes(semconv.ErrorTypeKey.String(code.String()))
		span.SetStatus(codes.Error, code.String())
	}
	span.End()
}

// metadataCarrier writes a trace context into gRPC metadata.
type metadataCarrier metadata.MD

func (m metadataCarrier) Get(key string) string {
	if v := metadata.MD(m).Get(key); len(v) > 0 {
		return v[0]
	}
	return ""
}

func (m metadataCarrier) Set(key, value string) { metadata.MD(m).Set(key, value) }

func (m metadataCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}
