package httpexec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// TestTracing shows a traced request: a CLIENT span named by the method,
// the child of the call's context, whose context reaches the API in the
// traceparent header, and whose URL keeps no query.
func TestTracing(t *testing.T) {
	var got string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Get("traceparent")
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	defer srv.Close()
	spans := tracetest.NewSpanRecorder()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSpanProcessor(spans))
	e := httpexec.New(httpexec.WithHTTPClient(srv.Client()), httpexec.WithTracerProvider(tp))
	ctx, parent := tp.Tracer("test").Start(context.Background(), "call")
	call := &toolrun.Call{Args: map[string]any{"api_key": "planted"}, Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{
		Method: http.MethodGet, BaseURL: srv.URL, Path: "/items", QueryParams: []string{"api_key"}}}}

	_, err := e.Execute(ctx, call)
	require.NoError(t, err)
	parent.End()

	ended := spans.Ended()
	require.Len(t, ended, 2)
	span := ended[0]
	assert.Equal(t, "GET", span.Name())
	assert.Equal(t, trace.SpanKindClient, span.SpanKind())
	assert.Equal(t, parent.SpanContext().SpanID(), span.Parent().SpanID())
	assert.Equal(t, "00-"+span.SpanContext().TraceID().String()+"-"+span.SpanContext().SpanID().String()+"-01", got,
		"the API gets the request's context")
	attrs := attribute.NewSet(span.Attributes()...)
	url, _ := attrs.Value("url.full")
	assert.Equal(t, srv.URL+"/items", url.AsString(), "no query, no secret")
	status, _ := attrs.Value("http.response.status_code")
	assert.EqualValues(t, 200, status.AsInt64())
}
