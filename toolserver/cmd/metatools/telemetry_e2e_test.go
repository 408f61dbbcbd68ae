package main

import (
	"bytes"
	"compress/gzip"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	colmetricpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an OTLP/HTTP endpoint that keeps the spans and the
// names of the metrics it receives, decoded with OpenTelemetry's own
// protobuf messages.
type otlpReceiver struct {
	url string

	mu       sync.Mutex
	spans    []*tracepb.Span
	services []string
	metrics  map[string]bool
}

func newOTLPReceiver(t *testing.T) *otlpReceiver {
	rx := &otlpReceiver{metrics: map[string]bool{}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body io.Reader = r.Body
		if r.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(r.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var answer proto.Message
		switch r.URL.Path {
		case "/v1/traces":
			var req coltracepb.ExportTraceServiceRequest
			if err := proto.Unmarshal(data, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			rx.mu.Lock()
			for _, rs := range req.ResourceSpans {
				for _, kv := range rs.GetResource().GetAttributes() {
					if kv.Key == "service.name" {
						rx.services = append(rx.services, kv.GetValue().GetStringValue())
					}
				}
				for _, ss := range rs.ScopeSpans {
					rx.spans = append(rx.spans, ss.Spans...)
				}
			}
			rx.mu.Unlock()
			answer = &coltracepb.ExportTraceServiceResponse{}
		case "/v1/metrics":
			var req colmetricpb.ExportMetricsServiceRequest
			if err := proto.Unmarshal(data, &req); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			rx.mu.Lock()
			for _, rm := range req.ResourceMetrics {
				for _, sm := range rm.ScopeMetrics {
					for _, m := range sm.Metrics {
						rx.metrics[m.Name] = true
					}
				}
			}
			rx.mu.Unlock()
			answer = &colmetricpb.ExportMetricsServiceResponse{}
		default:
			http.NotFound(w, r)
			return
		}
		out, _ := proto.Marshal(answer)
		w.Header().Set("Content-Type", "application/x-protobuf")
		_, _ = w.Write(out)
	}))
	t.Cleanup(srv.Close)
	rx.url = srv.URL
	return rx
}

// span returns the span named name of kind, once received.
func (rx *otlpReceiver) span(t *testing.T, name string, kind tracepb.Span_SpanKind) *tracepb.Span {
	t.Helper()
	var found *tracepb.Span
	require.Eventually(t, func() bool {
		rx.mu.Lock()
		defer rx.mu.Unlock()
		for _, s := range rx.spans {
			if s.Name == name && s.Kind == kind {
				found = s
				return true
			}
		}
		return false
	}, 30*time.Second, 20*time.Millisecond, "the span %q reached the endpoint", name)
	return found
}

func attribute(s *tracepb.Span, key string) string {
	for _, kv := range s.Attributes {
		if kv.Key == key {
			return kv.GetValue().GetStringValue()
		}
	}
	return ""
}

// The trace context the e2e client sends in its requests' _meta: its
// trace, and its span that is the parent of metatools' requests.
const clientTraceID, clientSpanID = "4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7"

// tracedSession runs metatools over stdio, exporting its traces and
// metrics over OTLP/HTTP to endpoint as service, from the official
// TypeScript SDK v2 client, whose requests carry the trace context
// clientTraceID/clientSpanID in their _meta: run_tool calls an upstream's
// tool, which answers with the _meta it received, then execute_code runs
// a program calling that tool twice in the standard profile's sandbox.
// It returns the _meta the upstream received in run_tool's call, and the
// audit log's path (arguments audited), once metatools exited.
func tracedSession(t *testing.T, endpoint, service string) (upstreamMeta map[string]any, audit string) {
	t.Helper()
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	upstream, err := filepath.Abs(filepath.Join("testdata", "otel", "upstream.mjs"))
	require.NoError(t, err)
	audit = filepath.Join(t.TempDir(), "audit.jsonl")
	cfg := writeFile(t, "metatools.yaml", fmt.Sprintf("telemetry: {traces: otlp, metrics: otlp, audit: %q, auditArguments: true}\n"+
		"codeMode: {enabled: true, profile: standard}\nmcpServers:\n  - name: echo\n    command: node\n    args: [%q, %q]\n"+
		"    env: {ECHO_API_KEY: sk-planted-upstream-key}\n", audit, upstream, modules))
	cmd := exec.Command("node", filepath.Join("testdata", "otel", "client.mjs"), modules, metatoolsBinary(t), cfg,
		"00-"+clientTraceID+"-"+clientSpanID+"-01", `[{"name":"run_tool","arguments":{"id":"echo:meta"}},`+
			`{"name":"execute_code","arguments":{"code":"await Promise.all([tools.run('echo:meta', {}), tools.run('echo:meta', {})]); return 'done';"}}]`)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+endpoint, "OTEL_SERVICE_NAME="+service)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err)
	var texts []string
	require.NoError(t, json.Unmarshal(out, &texts), string(out))
	require.NoError(t, json.Unmarshal([]byte(texts[0]), &upstreamMeta), texts[0])
	return upstreamMeta, audit
}

// TestTracesReachAnOTLPEndpoint runs [tracedSession] against a receiver
// that decodes what it gets with OpenTelemetry's own protobuf messages:
// one trace goes from the client's context through metatools' SERVER
// span of the request, its execute_tool span and its CLIENT span of the
// upstream's request, whose _meta, as the upstream received it, carries
// that span's context. An execute_code program's calls, run in the
// standard profile's sandbox, are its execution's children. The metrics
// arrive too, and the audit log has a line per call, without the
// upstream's secret.
func TestTracesReachAnOTLPEndpoint(t *testing.T) {
	rx := newOTLPReceiver(t)
	upstreamMeta, audit := tracedSession(t, rx.url, "metatools-e2e")
	server := rx.span(t, "tools/call run_tool", tracepb.Span_SPAN_KIND_SERVER)
	assert.Equal(t, clientTraceID, hex.EncodeToString(server.TraceId), "the request's span is in the client's trace")
	assert.Equal(t, clientSpanID, hex.EncodeToString(server.ParentSpanId), "and the child of the client's span")
	assert.Equal(t, "run_tool", attribute(server, "gen_ai.tool.name"))
	assert.Equal(t, "pipe", attribute(server, "network.transport"))

	call := rx.span(t, "execute_tool echo:meta", tracepb.Span_SPAN_KIND_INTERNAL)
	assert.Equal(t, server.SpanId, call.ParentSpanId, "the tool call is the request's child")
	assert.Equal(t, "mcp:echo", attribute(call, "metatools.backend"))

	upstreamCall := rx.span(t, "tools/call meta", tracepb.Span_SPAN_KIND_CLIENT)
	assert.Equal(t, call.SpanId, upstreamCall.ParentSpanId, "the upstream's request is the tool call's child")
	assert.Equal(t, "00-"+clientTraceID+"-"+hex.EncodeToString(upstreamCall.SpanId)+"-01", upstreamMeta["traceparent"],
		"the upstream received the context of metatools' request in its _meta")

	// A program's calls, in the standard profile's sandboxed process, are
	// the children of its execution, itself the request's child.
	program := rx.span(t, "tools/call execute_code", tracepb.Span_SPAN_KIND_SERVER)
	assert.Equal(t, clientTraceID, hex.EncodeToString(program.TraceId))
	execution := rx.span(t, "execute_code", tracepb.Span_SPAN_KIND_INTERNAL)
	assert.Equal(t, program.SpanId, execution.ParentSpanId)
	assert.Equal(t, "standard", attribute(execution, "metatools.code.profile"))
	require.Eventually(t, func() bool {
		rx.mu.Lock()
		defer rx.mu.Unlock()
		n := 0
		for _, s := range rx.spans {
			if s.Name == "execute_tool echo:meta" && bytes.Equal(s.ParentSpanId, execution.SpanId) {
				n++
			}
		}
		return n == 2
	}, 30*time.Second, 20*time.Millisecond, "both calls of the program are its execution's children")

	// The metrics are exported last, as metatools exits.
	require.Eventually(t, func() bool {
		rx.mu.Lock()
		defer rx.mu.Unlock()
		return rx.metrics["mcp.server.operation.duration"] && rx.metrics["mcp.client.operation.duration"] &&
			rx.metrics["metatools.tool.duration"] && rx.metrics["metatools.code.duration"]
	}, 30*time.Second, 20*time.Millisecond, "the duration metrics of both sides, of the tool calls and of the program reached the endpoint")
	rx.mu.Lock()
	assert.Contains(t, rx.services, "metatools-e2e", "OTEL_SERVICE_NAME names the service")
	rx.mu.Unlock()

	// The audit log has a line per tool call, in the client's trace, and
	// no secret.
	data, err := os.ReadFile(audit)
	require.NoError(t, err)
	assert.NotContains(t, string(data), "sk-planted-upstream-key")
	lines := bytes.Split(bytes.TrimSpace(data), []byte("\n"))
	require.Len(t, lines, 3, "run_tool's call and the program's two:\n%s", data)
	requests := map[string]bool{}
	for _, line := range lines {
		var rec struct {
			Request, Trace, Tool, Backend, Outcome string
			Args                                   json.RawMessage
		}
		require.NoError(t, json.Unmarshal(line, &rec), string(line))
		assert.Len(t, rec.Request, 16)
		requests[rec.Request] = true
		assert.Equal(t, clientTraceID, rec.Trace)
		assert.Equal(t, "echo:meta", rec.Tool)
		assert.Equal(t, "mcp:echo", rec.Backend)
		assert.Equal(t, "ok", rec.Outcome)
		assert.JSONEq(t, "{}", string(rec.Args))
	}
	assert.Len(t, requests, 2, "the program's two calls belong to its one request")
}

// TestExecTracesTheProgram runs a program with `metatools exec` under
// the standard profile, exporting over OTLP/HTTP: the program's
// execution has a span of its own, whose children are its tool calls,
// as it has when execute_code runs it.
func TestExecTracesTheProgram(t *testing.T) {
	rx := newOTLPReceiver(t)
	cfg := writeFile(t, "metatools.yaml", "telemetry: {traces: otlp}\ncodeMode: {enabled: true, profile: standard}\n")
	program := writeFile(t, "program.js", "return [await tools.run('math:eval', {expression: '1+1'}), await tools.run('math:eval', {expression: '2*3'})];")
	cmd := exec.Command(metatoolsBinary(t), "exec", "--config", cfg, "--json", program)
	cmd.Env = append(os.Environ(), "OTEL_EXPORTER_OTLP_ENDPOINT="+rx.url)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err, string(out))

	// The spans are exported as metatools exits, so they are all there.
	execution := rx.span(t, "execute_code", tracepb.Span_SPAN_KIND_INTERNAL)
	assert.Equal(t, "standard", attribute(execution, "metatools.code.profile"))
	rx.mu.Lock()
	defer rx.mu.Unlock()
	var children int
	for _, s := range rx.spans {
		if s.Name == "execute_tool math:eval" {
			assert.Equal(t, execution.SpanId, s.ParentSpanId, "the program's call is its execution's child")
			children++
		}
	}
	assert.Equal(t, 2, children, "one span per call the program made")
}

// TestMetricsForPrometheus runs a session of tool calls over HTTP, then
// scrapes the diagnostics listener as Prometheus does: the metrics need
// the configured token, and Prometheus' own text parser reads the
// duration histograms of the requests and of the tool calls, with the
// conventions' attributes as labels and a count per call, and the
// duration of a session once it ended.
func TestMetricsForPrometheus(t *testing.T) {
	cfg := writeFile(t, "metatools.yaml", "telemetry: {prometheus: \"127.0.0.1:0\", prometheusToken: scrape-token}\n")
	s := startServed(t, nil, "--config", cfg)
	m := regexp.MustCompile(`metrics at (http://\S+/metrics)`).FindStringSubmatch(s.log.String())
	require.NotNil(t, m, s.log.String())
	metrics := m[1]

	cs := connectHTTP(t, s.endpoint, "")
	for _, expr := range []string{"1+1", "2*3"} {
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"id": "math:eval", "args": map[string]any{"expression": expr}}})
		require.NoError(t, err)
		require.False(t, res.IsError)
	}
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "run_tool", Arguments: map[string]any{"id": "math:eval", "args": map[string]any{"expression": "1/"}}})
	require.NoError(t, err)
	require.True(t, res.IsError)
	_, err = cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search_tools", Arguments: map[string]any{"query": "evaluate an expression"}})
	require.NoError(t, err)

	scrape := func(token string) (status int, body []byte) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, metrics, http.NoBody)
		require.NoError(t, err)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer resp.Body.Close()
		body, err = io.ReadAll(resp.Body)
		require.NoError(t, err)
		return resp.StatusCode, body
	}
	status, _ := scrape("")
	assert.Equal(t, http.StatusUnauthorized, status, "a scrape without the token is refused")
	status, body := scrape("scrape-token")
	require.Equal(t, http.StatusOK, status)
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(body))
	require.NoError(t, err, "Prometheus' parser reads the answer")

	counts := func(family string, labels ...string) map[string]uint64 {
		f, ok := families[family]
		require.True(t, ok, "%s is served:\n%s", family, body)
		require.Equal(t, dto.MetricType_HISTOGRAM, f.GetType())
		out := map[string]uint64{}
		for _, metric := range f.Metric {
			values := map[string]string{}
			for _, l := range metric.Label {
				values[l.GetName()] = l.GetValue()
			}
			var key []string
			for _, l := range labels {
				key = append(key, values[l])
			}
			out[strings.Join(key, " ")] += metric.GetHistogram().GetSampleCount()
		}
		return out
	}
	requests := counts("mcp_server_operation_duration_seconds", "mcp_method_name", "gen_ai_tool_name", "network_transport", "error_type")
	assert.EqualValues(t, 2, requests["tools/call run_tool tcp "], "the requests that succeeded")
	assert.EqualValues(t, 1, requests["tools/call run_tool tcp tool_error"], "the one that failed")
	calls := counts("metatools_tool_duration_seconds", "gen_ai_tool_name", "metatools_backend", "error_type")
	assert.EqualValues(t, 2, calls["math:eval local:builtin.math:eval "])
	assert.EqualValues(t, 1, calls["math:eval local:builtin.math:eval tool_error"])
	assert.EqualValues(t, 1, counts("metatools_search_duration_seconds", "metatools_search_kind")["search"])
	_, sessionsBefore := families["mcp_server_session_duration_seconds"]
	assert.False(t, sessionsBefore, "a session is measured when it ends")

	// A session of an earlier revision is measured when its client ends
	// it; a request of 2026-07-28 has no session.
	client := mcp.NewClient(&mcp.Implementation{Name: "prometheus-e2e", Version: "1"}, nil)
	session, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: s.endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	require.NoError(t, err)
	_, err = session.ListTools(t.Context(), nil)
	require.NoError(t, err)
	require.NoError(t, session.Close())
	require.Eventually(t, func() bool {
		_, body = scrape("scrape-token")
		parser := expfmt.NewTextParser(model.UTF8Validation)
		families, err = parser.TextToMetricFamilies(bytes.NewReader(body))
		require.NoError(t, err)
		_, ok := families["mcp_server_session_duration_seconds"]
		return ok
	}, 30*time.Second, 20*time.Millisecond, "the session's duration is served once it ended")
	assert.Equal(t, map[string]uint64{"2025-11-25 tcp": 1},
		counts("mcp_server_session_duration_seconds", "mcp_protocol_version", "network_transport"))

	upstreams, ok := families["metatools_upstreams"]
	require.True(t, ok, "the upstreams' gauge is served:\n%s", body)
	var builtinUp bool
	for _, metric := range upstreams.Metric {
		labels := map[string]string{}
		for _, l := range metric.Label {
			labels[l.GetName()] = l.GetValue()
		}
		builtinUp = builtinUp || labels["metatools_upstream_kind"] == "builtin" && labels["metatools_upstream_state"] == "up" && metric.GetGauge().GetValue() == 1
	}
	assert.True(t, builtinUp, "the built-in tools are up:\n%s", body)
}

// TestMetricsStayOnLoopbackWithoutToken shows that metatools refuses to
// serve its metrics beyond the loopback interface unless scrapes must
// present a token.
func TestMetricsStayOnLoopbackWithoutToken(t *testing.T) {
	cfg := writeFile(t, "metatools.yaml", "telemetry: {prometheus: \"0.0.0.0:0\"}\n")
	cmd := exec.Command(metatoolsBinary(t), "serve", "--config", cfg)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	require.Error(t, err, string(out))
	assert.Contains(t, string(out), "refusing to serve the metrics on [::]:")
	assert.Contains(t, string(out), "without telemetry.prometheusToken")
}
