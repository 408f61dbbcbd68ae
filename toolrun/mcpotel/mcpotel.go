// Package mcpotel traces and measures MCP messages with OpenTelemetry,
// following its semantic conventions for MCP, on either side of a
// session, and carries the W3C trace context and baggage in the
// messages' _meta (traceparent, tracestate, baggage), as MCP 2026-07-28
// specifies: a server's span is the child of the context its client sent,
// and a client's request carries its span to the server.
//
// Both sides are go-sdk middleware: [Client] for what a client sends
// ([mcp.Client.AddSendingMiddleware]), [Server] for what a server
// receives ([mcp.Server.AddReceivingMiddleware]). Arguments, results and
// error messages are never recorded.
package mcpotel

import (
	"context"
	"maps"
	"net/http"
	"reflect"
	"strconv"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/semconv/v1.40.0/mcpconv"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// InstrumentationName is the name of the tracer and the meter.
const InstrumentationName = "github.com/metatools-go/metatools/toolrun/mcpotel"

// ErrorTypeToolError is the error.type of a tools/call whose result
// reports the tool's failure (isError).
const ErrorTypeToolError = "tool_error"

// The values of network.transport ([Config.Transport]).
const (
	TransportPipe = "pipe" // stdio
	TransportTCP  = "tcp"  // streamable HTTP
)

// Config says where the spans and the measures go.
type Config struct {
	// TracerProvider traces the messages; nil traces none.
	TracerProvider trace.TracerProvider
	// MeterProvider measures their durations
	// (mcp.client.operation.duration, mcp.server.operation.duration) and
	// those of the sessions (mcp.client.session.duration,
	// mcp.server.session.duration); nil measures none.
	MeterProvider metric.MeterProvider
	// Propagator reads and writes the context in _meta; nil means W3C
	// trace context and baggage.
	Propagator propagation.TextMapPropagator
	// Transport is the network.transport of the session: [TransportPipe]
	// or [TransportTCP]; empty leaves it out.
	Transport string
}

// Client returns the middleware that instruments what a client sends: a
// span of kind CLIENT per message, named "{mcp.method.name} {target}"
// (the tool's or the prompt's name, when there is one), whose context the
// message's _meta carries, and the message's duration until its answer
// in mcp.client.operation.duration. A session it initializes is measured
// in mcp.client.session.duration when it ends. It returns nil when cfg
// has neither provider: there is nothing to add.
func Client(cfg Config) mcp.Middleware {
	in := newInstrument(cfg, trace.SpanKindClient)
	if in == nil {
		return nil
	}
	return in.middleware
}

// Server returns the middleware that instruments what a server receives:
// a span of kind SERVER per message, the child of the context the
// message's _meta carries (else of the context the server gives it),
// named and described as [Client]'s, and the message's duration until
// the server's answer in mcp.server.operation.duration. A session from
// its initialize request until it ends is measured in
// mcp.server.session.duration (a 2026-07-28 request has no session). It
// returns nil when cfg has neither provider.
func Server(cfg Config) mcp.Middleware {
	in := newInstrument(cfg, trace.SpanKindServer)
	if in == nil {
		return nil
	}
	return in.middleware
}

// instrument is one side's instrumentation.
type instrument struct {
	kind       trace.SpanKind
	tracer     trace.Tracer
	durations  metric.Float64Histogram
	sessions   metric.Float64Histogram
	propagator propagation.TextMapPropagator
	transport  string
}

func newInstrument(cfg Config, kind trace.SpanKind) *instrument {
	if cfg.TracerProvider == nil && cfg.MeterProvider == nil {
		return nil
	}
	in := &instrument{kind: kind, propagator: cfg.propagator(), transport: cfg.Transport}
	if cfg.TracerProvider != nil {
		in.tracer = cfg.TracerProvider.Tracer(InstrumentationName)
	}
	if cfg.MeterProvider != nil {
		meter := cfg.MeterProvider.Meter(InstrumentationName)
		// An instrument the meter refuses is left out: telemetry never
		// stops a message.
		if kind == trace.SpanKindClient {
			if h, err := mcpconv.NewClientOperationDuration(meter); err == nil {
				in.durations = h.Inst()
			}
			if h, err := mcpconv.NewClientSessionDuration(meter); err == nil {
				in.sessions = h.Inst()
			}
		} else {
			if h, err := mcpconv.NewServerOperationDuration(meter); err == nil {
				in.durations = h.Inst()
			}
			if h, err := mcpconv.NewServerSessionDuration(meter); err == nil {
				in.sessions = h.Inst()
			}
		}
	}
	return in
}

func (in *instrument) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		start := time.Now()
		params := req.GetParams()
		if params != nil && reflect.ValueOf(params).IsNil() {
			params = nil // a request without params, such as tools/list
		}
		attrs, target := describe(method, req, params)
		if in.transport != "" {
			attrs = append(attrs, semconv.NetworkTransportKey.String(in.transport))
		}
		var span trace.Span
		if in.tracer != nil {
			if in.kind == trace.SpanKindServer && params != nil {
				ctx = in.propagator.Extract(ctx, metaCarrier(params.GetMeta()))
			}
			name := method
			if target != "" {
				name += " " + target
			}
			ctx, span = in.tracer.Start(ctx, name, trace.WithSpanKind(in.kind), trace.WithAttributes(attrs...))
			if in.kind == trace.SpanKindClient && params != nil {
				// The caller's params may be shared: the context goes in a
				// copy of their _meta.
				meta := maps.Clone(params.GetMeta())
				if meta == nil {
					meta = map[string]any{}
				}
				in.propagator.Inject(ctx, metaCarrier(meta))
				params.SetMeta(meta)
			}
		}
		res, err := next(ctx, method, req)
		if errType, rpcCode := outcome(res, err); errType != "" {
			attrs = append(attrs, semconv.ErrorTypeKey.String(errType))
			if rpcCode != "" {
				attrs = append(attrs, semconv.RPCResponseStatusCodeKey.String(rpcCode))
			}
			if span != nil {
				span.SetStatus(codes.Error, errType)
			}
		}
		if in.durations != nil {
			in.durations.Record(ctx, time.Since(start).Seconds(), metric.WithAttributes(attrs...))
		}
		if in.sessions != nil && method == methodInitialize && err == nil {
			in.measureSession(req.GetSession(), res, start)
		}
		if span != nil {
			span.SetAttributes(attrs...)
			span.End()
		}
		return res, err
	}
}

// methodInitialize is the method that opens a session.
const methodInitialize = "initialize"

// measureSession records the duration of the session that initialize
// opened, from start until it ends, with the revision it negotiated.
func (in *instrument) measureSession(session mcp.Session, res mcp.Result, start time.Time) {
	var attrs []attribute.KeyValue
	if r, ok := res.(*mcp.InitializeResult); ok && r != nil && r.ProtocolVersion != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(r.ProtocolVersion))
	}
	if in.transport != "" {
		attrs = append(attrs, semconv.NetworkTransportKey.String(in.transport))
	}
	waiter, ok := session.(interface{ Wait() error })
	if !ok {
		return
	}
	// The session outlives the request: its end is waited for apart, with
	// a context of its own.
	go func() {
		_ = waiter.Wait()
		in.sessions.Record(context.Background(), time.Since(start).Seconds(), metric.WithAttributes(attrs...))
	}()
}

// describe returns the attributes of a message and its target: the
// tool's or the prompt's name.
func describe(method string, req mcp.Request, params mcp.Params) (attrs []attribute.KeyValue, target string) {
	attrs = append(make([]attribute.KeyValue, 0, 8), semconv.McpMethodNameKey.String(method))
	switch p := params.(type) {
	case *mcp.CallToolParams:
		target = p.Name
		attrs = append(attrs, semconv.GenAIToolName(p.Name), semconv.GenAIOperationNameExecuteTool)
	case *mcp.CallToolParamsRaw:
		target = p.Name
		attrs = append(attrs, semconv.GenAIToolName(p.Name), semconv.GenAIOperationNameExecuteTool)
	case *mcp.GetPromptParams:
		target = p.Name
		attrs = append(attrs, semconv.GenAIPromptName(p.Name))
	case *mcp.ReadResourceParams:
		attrs = append(attrs, semconv.McpResourceURI(p.URI))
	case *mcp.SubscribeParams:
		attrs = append(attrs, semconv.McpResourceURI(p.URI))
	}
	if v := protocolVersion(req, params); v != "" {
		attrs = append(attrs, semconv.McpProtocolVersion(v))
	}
	if s := req.GetSession(); s != nil && s.ID() != "" {
		attrs = append(attrs, semconv.McpSessionID(s.ID()))
	}
	return attrs, target
}

// protocolVersion is the MCP revision a message is of: the one its _meta
// names (2026-07-28 on), else the one its session negotiated.
func protocolVersion(req mcp.Request, params mcp.Params) string {
	if params != nil {
		if v, ok := params.GetMeta()[mcp.MetaKeyProtocolVersion].(string); ok {
			return v
		}
	}
	switch s := req.GetSession().(type) {
	case *mcp.ClientSession:
		if r := s.InitializeResult(); r != nil {
			return r.ProtocolVersion
		}
	case *mcp.ServerSession:
		if p := s.InitializeParams(); p != nil {
			return p.ProtocolVersion
		}
	}
	return ""
}

// outcome returns the error.type of a message's answer, and its JSON-RPC
// error code: empty for a success.
func outcome(res mcp.Result, err error) (errType, rpcCode string) {
	var rpcErr *jsonrpc.Error
	switch {
	case errors.As(err, &rpcErr):
		code := strconv.FormatInt(rpcErr.Code, 10)
		return code, code
	case err != nil:
		return string(errors.CodeOf(err)), ""
	}
	if r, ok := res.(*mcp.CallToolResult); ok && r != nil && r.IsError {
		return ErrorTypeToolError, ""
	}
	return "", ""
}

// metaCarrier reads and writes the trace context in a message's _meta.
type metaCarrier map[string]any

func (m metaCarrier) Get(key string) string {
	s, _ := m[key].(string)
	return s
}

func (m metaCarrier) Set(key, value string) { m[key] = value }

func (m metaCarrier) Keys() []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	return keys
}

// HTTPHandler returns h, whose requests' contexts carry the trace context
// and baggage of their HTTP headers: the span of an MCP request whose
// _meta carries none is then the child of the context its HTTP request
// carries, as for a client instrumented at the HTTP layer. It returns h
// unchanged when cfg has no tracer provider.
func HTTPHandler(cfg Config, h http.Handler) http.Handler {
	if cfg.TracerProvider == nil {
		return h
	}
	propagator := cfg.propagator()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h.ServeHTTP(w, r.WithContext(propagator.Extract(r.Context(), propagation.HeaderCarrier(r.Header))))
	})
}

// propagator is cfg's propagator, W3C trace context and baggage by
// default.
func (cfg Config) propagator() propagation.TextMapPropagator {
	if cfg.Propagator != nil {
		return cfg.Propagator
	}
	return toolrun.TracePropagator()
}
