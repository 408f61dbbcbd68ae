package toolserver_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolserver"
)

// withTraceparent is an HTTP transport that sends a trace context in
// the headers of every request, as a client instrumented at the HTTP
// layer does.
type withTraceparent struct{ value string }

func (w withTraceparent) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("traceparent", w.value)
	return http.DefaultTransport.RoundTrip(r)
}

// TestHTTPHeadersCarryTheTraceContext shows that over streamable HTTP,
// with sessions or without, the span of a request whose _meta carries no
// trace context is the child of the one its HTTP headers carry.
func TestHTTPHeadersCarryTheTraceContext(t *testing.T) {
	const traceID, parent = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"
	for _, stateless := range []bool{false, true} {
		spans := tracetest.NewSpanRecorder()
		srv := newCatalogue(t).server(toolserver.WithTracerProvider(sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))))
		ts := httptest.NewServer(srv.HTTPHandler(toolserver.HTTPOptions{Stateless: stateless}))
		t.Cleanup(ts.Close)
		transport := &mcp.StreamableClientTransport{Endpoint: ts.URL,
			HTTPClient: &http.Client{Transport: withTraceparent{"00-" + traceID + "-" + parent + "-01"}}}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), transport, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = cs.Close() })
		call(t, cs, "list_namespaces", map[string]any{})

		var found trace.SpanContext
		var parentID trace.SpanID
		for _, s := range spans.Ended() {
			if s.Name() == "tools/call list_namespaces" {
				found, parentID = s.SpanContext(), s.Parent().SpanID()
			}
		}
		require.True(t, found.IsValid(), "stateless %v: the request has its span", stateless)
		assert.Equal(t, traceID, found.TraceID().String(), "stateless %v", stateless)
		assert.Equal(t, parent, parentID.String(), "stateless %v", stateless)
	}
}
