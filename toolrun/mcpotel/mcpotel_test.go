package mcpotel_test

import (
	"context"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolrun/mcpotel"
)

// TestBothSides connects a client and a server instrumented with the
// package's middleware, in memory, and calls a tool that succeeds and
// one that fails: each request has a CLIENT span and a SERVER span named
// "tools/call {tool}", the server's the child of the client's through
// the request's _meta, which the tool's handler sees; each side measures
// the durations with the conventions' names and attributes.
func TestBothSides(t *testing.T) {
	ctx := context.Background()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	reader := sdkmetric.NewManualReader()
	mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))

	server := mcp.NewServer(&mcp.Implementation{Name: "server", Version: "1"}, nil)
	var seenMeta mcp.Meta
	server.AddTool(&mcp.Tool{Name: "echo", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		seenMeta = req.Params.Meta
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "ok"}}}, nil
	})
	server.AddTool(&mcp.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}}, func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "secret detail"}}}, nil
	})
	server.AddReceivingMiddleware(mcpotel.Server(mcpotel.Config{TracerProvider: tp, MeterProvider: mp, Transport: mcpotel.TransportPipe}))
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
	client.AddSendingMiddleware(mcpotel.Client(mcpotel.Config{TracerProvider: tp, MeterProvider: mp, Transport: mcpotel.TransportPipe}))

	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	require.NoError(t, err)
	defer ss.Close()
	cs, err := client.Connect(ctx, ct, nil)
	require.NoError(t, err)
	defer cs.Close()
	spans.Reset()

	_, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "echo", Arguments: map[string]any{}})
	require.NoError(t, err)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fail", Arguments: map[string]any{}})
	require.NoError(t, err)
	require.True(t, res.IsError)

	byName := map[string][]sdktrace.ReadOnlySpan{}
	for _, s := range spans.Ended() {
		byName[s.Name()] = append(byName[s.Name()], s)
	}
	require.Len(t, byName["tools/call echo"], 2, "a span on each side")
	var clientSpan, serverSpan sdktrace.ReadOnlySpan
	for _, s := range byName["tools/call echo"] {
		if s.SpanKind() == trace.SpanKindClient {
			clientSpan = s
		} else {
			serverSpan = s
		}
	}
	require.NotNil(t, clientSpan)
	require.NotNil(t, serverSpan)
	assert.Equal(t, trace.SpanKindServer, serverSpan.SpanKind())
	assert.Equal(t, clientSpan.SpanContext().TraceID(), serverSpan.SpanContext().TraceID())
	assert.Equal(t, clientSpan.SpanContext().SpanID(), serverSpan.Parent().SpanID(), "the server's span is the client's child")
	assert.True(t, serverSpan.Parent().IsRemote())
	assert.Contains(t, seenMeta["traceparent"], clientSpan.SpanContext().TraceID().String(), "the request's _meta carries the context")
	attrs := attribute.NewSet(serverSpan.Attributes()...)
	for key, want := range map[attribute.Key]string{
		"mcp.method.name": "tools/call", "gen_ai.tool.name": "echo", "gen_ai.operation.name": "execute_tool",
		"network.transport": "pipe", "mcp.protocol.version": "2026-07-28",
	} {
		got, ok := attrs.Value(key)
		assert.True(t, ok, key)
		assert.Equal(t, want, got.AsString(), key)
	}

	for _, s := range byName["tools/call fail"] {
		assert.Equal(t, codes.Error, s.Status().Code)
		assert.Equal(t, "tool_error", s.Status().Description, "the outcome, never the tool's message")
	}

	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(ctx, &rm))
	calls := map[string]uint64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			assert.Equal(t, "s", m.Unit)
			for _, dp := range m.Data.(metricdata.Histogram[float64]).DataPoints {
				method, _ := dp.Attributes.Value("mcp.method.name")
				outcome, _ := dp.Attributes.Value("error.type")
				calls[m.Name+" "+method.AsString()+" "+outcome.AsString()] += dp.Count
			}
		}
	}
	for _, side := range []string{"mcp.client.operation.duration", "mcp.server.operation.duration"} {
		assert.EqualValues(t, 2, calls[side+" tools/call "]+calls[side+" tools/call tool_error"], side)
		assert.EqualValues(t, 1, calls[side+" tools/call tool_error"], side)
	}
}

// TestNothingToAdd shows that without providers there is no middleware.
func TestNothingToAdd(t *testing.T) {
	assert.Nil(t, mcpotel.Client(mcpotel.Config{}))
	assert.Nil(t, mcpotel.Server(mcpotel.Config{Transport: mcpotel.TransportTCP}))
}

// TestSessionsAreMeasured opens a session between an instrumented client
// and server and closes it: each side records the session's duration,
// from its initialize request until it ended, once, with the revision it
// negotiated and its transport.
func TestSessionsAreMeasured(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx := t.Context()
		reader := sdkmetric.NewManualReader()
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
		server := mcp.NewServer(&mcp.Implementation{Name: "server", Version: "1"}, nil)
		server.AddReceivingMiddleware(mcpotel.Server(mcpotel.Config{MeterProvider: mp, Transport: mcpotel.TransportPipe}))
		client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "1"}, nil)
		client.AddSendingMiddleware(mcpotel.Client(mcpotel.Config{MeterProvider: mp, Transport: mcpotel.TransportPipe}))

		st, ct := mcp.NewInMemoryTransports()
		ss, err := server.Connect(ctx, st, nil)
		require.NoError(t, err)
		cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		require.NoError(t, err)
		time.Sleep(90 * time.Second) // the fake clock of the bubble
		sessions := func() map[string]metricdata.HistogramDataPoint[float64] {
			var rm metricdata.ResourceMetrics
			require.NoError(t, reader.Collect(ctx, &rm))
			out := map[string]metricdata.HistogramDataPoint[float64]{}
			for _, sm := range rm.ScopeMetrics {
				for _, m := range sm.Metrics {
					if h, ok := m.Data.(metricdata.Histogram[float64]); ok && strings.HasSuffix(m.Name, ".session.duration") {
						require.Len(t, h.DataPoints, 1, m.Name)
						out[m.Name] = h.DataPoints[0]
					}
				}
			}
			return out
		}
		assert.Empty(t, sessions(), "a session is measured when it ends")

		require.NoError(t, cs.Close())
		require.NoError(t, ss.Wait())
		synctest.Wait()
		got := sessions()
		for _, name := range []string{"mcp.client.session.duration", "mcp.server.session.duration"} {
			dp, ok := got[name]
			require.True(t, ok, name)
			assert.EqualValues(t, 1, dp.Count, name)
			assert.InDelta(t, 90, dp.Sum, 0.001, "%s: from initialize until the end", name)
			version, _ := dp.Attributes.Value("mcp.protocol.version")
			assert.Equal(t, "2025-11-25", version.AsString(), name)
			transport, _ := dp.Attributes.Value("network.transport")
			assert.Equal(t, "pipe", transport.AsString(), name)
		}
	})
}
