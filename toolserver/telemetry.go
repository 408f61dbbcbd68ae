package toolserver

import (
	"context"
	"fmt"
	"maps"
	"math/rand/v2"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
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

// MetadataSubject is the key of the caller's metadata (toolops.Caller)
// that holds the subject of the request's OAuth token: the runner's
// policies, hooks and audit log see who asked, and the state of a call
// waiting for input is bound to that subject.
const MetadataSubject = "subject"

// identify is the middleware that gives each request's context what
// identifies it (toolrun.RequestInfo: an ID of its own and the client's
// session) and its caller (the subject of its OAuth token, under
// [MetadataSubject]), for the logs, the audit log and the policies.
func identify(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		info := toolrun.RequestInfo{ID: fmt.Sprintf("%016x", rand.Uint64())}
		if s := req.GetSession(); s != nil {
			info.Session = s.ID()
		}
		ctx = toolrun.WithRequestInfo(ctx, info)
		if extra := req.GetExtra(); extra != nil && extra.TokenInfo != nil && extra.TokenInfo.UserID != "" {
			caller := toolops.CallerFrom(ctx)
			metadata := maps.Clone(caller.Metadata)
			if metadata == nil {
				metadata = map[string]string{}
			}
			metadata[MetadataSubject] = extra.TokenInfo.UserID
			ctx = toolops.WithCaller(ctx, toolops.Caller{Metadata: metadata})
		}
		return next(ctx, method, req)
	}
}
