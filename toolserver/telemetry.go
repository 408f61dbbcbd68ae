package toolserver

import (
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolrun/mcpotel"
)

// WithTracerProvider makes the server trace the MCP requests it receives
// with tp: a span of kind SERVER per request, named "{mcp.method.name}
// {target}" as OpenTelemetry's conventions for MCP say, the child of the
// trace context the request's _meta carries (see toolrun/mcpotel).
// Arguments, results and error messages are not recorded. Give the same
// provider to the runner (toolrun.WithTracerProvider) and to the
// upstreams' manager (mcpexec.WithTracerProvider), as the catalog package
// does, so that a request's tool calls and their upstream requests are
// its children.
func WithTracerProvider(tp trace.TracerProvider) Option {
	return func(s *Server) { s.telemetry.TracerProvider = tp }
}

// WithMeterProvider makes the server measure the MCP requests it
// receives with mp (mcp.server.operation.duration).
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Server) { s.telemetry.MeterProvider = mp }
}

// instrument adds the server's telemetry, the first time it is served:
// its requests arrive on transport (mcpotel.TransportPipe or
// mcpotel.TransportTCP). Added last, it sees every request, those other
// middleware refuse included.
func (s *Server) instrument(transport string) {
	s.instrumented.Do(func() {
		cfg := s.telemetry
		cfg.Transport = transport
		if mw := mcpotel.Server(cfg); mw != nil {
			s.mcp.AddReceivingMiddleware(mw)
		}
	})
}
