//go:build e2e_jaeger

package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// jaegerEnv names the Jaeger binary the opt-in test runs: `make
// e2e-jaeger` builds it from the Go module proxy (scripts/jaeger-binary.sh).
const jaegerEnv = "METATOOLS_JAEGER"

// jaegerSpan is a span as Jaeger's query API answers it.
type jaegerSpan struct {
	SpanID        string `json:"spanID"`
	OperationName string `json:"operationName"`
	References    []struct {
		RefType string `json:"refType"`
		SpanID  string `json:"spanID"`
	} `json:"references"`
	Tags []struct {
		Key   string `json:"key"`
		Value any    `json:"value"`
	} `json:"tags"`
	ProcessID string `json:"processID"`
}

func (s jaegerSpan) parent() string {
	for _, r := range s.References {
		if r.RefType == "CHILD_OF" {
			return r.SpanID
		}
	}
	return ""
}

func (s jaegerSpan) tag(key string) string {
	for _, tag := range s.Tags {
		if tag.Key == key {
			return fmt.Sprint(tag.Value)
		}
	}
	return ""
}

// TestTracesReachJaeger runs [tracedSession] against a real Jaeger (v2,
// an OpenTelemetry Collector distribution) receiving OTLP/HTTP, then
// reads the client's trace back from Jaeger's query API: the whole chain
// from the client's span to metatools' request of the upstream, and the
// program's calls under its execution, all under metatools' service.
func TestTracesReachJaeger(t *testing.T) {
	bin := os.Getenv(jaegerEnv)
	require.NotEmpty(t, bin, "%s names the jaeger binary: run `make e2e-jaeger`", jaegerEnv)
	otlp, query := startJaeger(t, bin)

	upstreamMeta, _ := tracedSession(t, "http://"+otlp, "metatools-jaeger")

	// The spans are exported as metatools exits; Jaeger stores them
	// after its own batch.
	var spans map[string]jaegerSpan
	var services []string
	require.Eventually(t, func() bool {
		spans, services = jaegerTrace(t, query, clientTraceID)
		names := map[string]int{}
		for _, s := range spans {
			names[s.OperationName]++
		}
		return names["tools/call run_tool"] == 1 && names["tools/call execute_code"] == 1 &&
			names["execute_code"] == 1 && names["execute_tool echo:meta"] == 3 && names["tools/call meta"] == 3
	}, 60*time.Second, 100*time.Millisecond, "Jaeger holds the client's whole trace")
	assert.Equal(t, []string{"metatools-jaeger"}, services)

	byName := func(name, kind string) []jaegerSpan {
		var out []jaegerSpan
		for _, s := range spans {
			if s.OperationName == name && s.tag("span.kind") == kind {
				out = append(out, s)
			}
		}
		return out
	}
	request := byName("tools/call run_tool", "server")
	require.Len(t, request, 1)
	assert.Equal(t, clientSpanID, request[0].parent(), "the request is the child of the client's span")
	assert.Equal(t, "run_tool", request[0].tag("gen_ai.tool.name"))

	var call jaegerSpan
	for _, s := range byName("execute_tool echo:meta", "internal") {
		if s.parent() == request[0].SpanID {
			call = s
		}
	}
	require.NotEmpty(t, call.SpanID, "run_tool's call is the request's child")
	assert.Equal(t, "mcp:echo", call.tag("metatools.backend"))
	var upstream jaegerSpan
	for _, s := range byName("tools/call meta", "client") {
		if s.parent() == call.SpanID {
			upstream = s
		}
	}
	require.NotEmpty(t, upstream.SpanID, "the upstream's request is the call's child")
	assert.Equal(t, "00-"+clientTraceID+"-"+upstream.SpanID+"-01", upstreamMeta["traceparent"],
		"the upstream received that request's context in its _meta")

	program := byName("tools/call execute_code", "server")
	require.Len(t, program, 1)
	execution := byName("execute_code", "internal")
	require.Len(t, execution, 1)
	assert.Equal(t, program[0].SpanID, execution[0].parent())
	assert.Equal(t, "standard", execution[0].tag("metatools.code.profile"))
	var inner int
	for _, s := range byName("execute_tool echo:meta", "internal") {
		if s.parent() == execution[0].SpanID {
			inner++
		}
	}
	assert.Equal(t, 2, inner, "the program's calls are its execution's children")
}

// startJaeger runs Jaeger with in-memory storage on free loopback ports
// and returns the addresses of its OTLP/HTTP receiver and of its query
// API, once it answers.
func startJaeger(t *testing.T, bin string) (otlp, query string) {
	t.Helper()
	ports := make([]string, 3)
	for i := range ports {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ports[i] = ln.Addr().String()
		require.NoError(t, ln.Close())
	}
	otlp, query = ports[0], ports[1]
	cfg := filepath.Join(t.TempDir(), "jaeger.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(strings.NewReplacer("OTLP", otlp, "QUERY_HTTP", query, "QUERY_GRPC", ports[2]).Replace(jaegerConfig)), 0o600))
	cmd := exec.Command(bin, "--config", "file:"+cfg)
	cmd.Stdout = &testWriter{t: t}
	cmd.Stderr = &testWriter{t: t}
	require.NoError(t, cmd.Start())
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-exited
	})
	require.Eventually(t, func() bool {
		resp, err := http.Get("http://" + query + "/api/services")
		if err != nil {
			return false
		}
		resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}, 60*time.Second, 100*time.Millisecond, "Jaeger answers")
	return otlp, query
}

// jaegerConfig is Jaeger's all-in-one pipeline on given ports, without
// its other listeners and without tracing itself: OTLP/HTTP in, memory
// storage, the query API.
const jaegerConfig = `service:
  extensions: [jaeger_storage, jaeger_query]
  pipelines:
    traces:
      receivers: [otlp]
      processors: [batch]
      exporters: [jaeger_storage_exporter]
  telemetry:
    metrics: {level: none}
    traces: {level: none}
    logs: {level: warn}
extensions:
  jaeger_storage:
    backends:
      memory: {memory: {max_traces: 1000}}
  jaeger_query:
    storage: {traces: memory}
    http: {endpoint: "QUERY_HTTP"}
    grpc: {endpoint: "QUERY_GRPC"}
receivers:
  otlp:
    protocols:
      http: {endpoint: "OTLP"}
processors:
  batch: {}
exporters:
  jaeger_storage_exporter:
    trace_storage: memory
`

// jaegerTrace returns the spans of a trace by ID, and the names of the
// services they came from, as Jaeger's query API gives them.
func jaegerTrace(t *testing.T, query, traceID string) (map[string]jaegerSpan, []string) {
	resp, err := http.Get("http://" + query + "/api/traces/" + traceID)
	require.NoError(t, err)
	defer resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		return nil, nil
	}
	require.Equal(t, http.StatusOK, resp.StatusCode)
	var answer struct {
		Data []struct {
			Spans     []jaegerSpan `json:"spans"`
			Processes map[string]struct {
				ServiceName string `json:"serviceName"`
			} `json:"processes"`
		} `json:"data"`
	}
	require.NoError(t, json.NewDecoder(resp.Body).Decode(&answer))
	spans := map[string]jaegerSpan{}
	var services []string
	for _, d := range answer.Data {
		for _, s := range d.Spans {
			spans[s.SpanID] = s
		}
		for _, p := range d.Processes {
			services = append(services, p.ServiceName)
		}
	}
	return spans, services
}
