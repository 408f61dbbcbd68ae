package httpexec_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/httpexec"
	"github.com/metatools-go/metatools/toolrun/toolruntest"
)

// flaky answers 429 with the given Retry-After until it has refused
// refusals requests, then 200 with {"ok": true}.
func flaky(refusals int32, retryAfter func() string) (http.Handler, *atomic.Int32) {
	var calls atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) <= refusals {
			w.Header().Set("Retry-After", retryAfter())
			w.WriteHeader(http.StatusTooManyRequests)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}), &calls
}

// runnerFor returns a runner whose index has one tool, "api:ping", served
// by an HTTP backend at baseURL.
func runnerFor(t *testing.T, exec *httpexec.Executor, baseURL string, opts ...toolrun.Option) *toolrun.Runner {
	t.Helper()
	idx := toolindex.New()
	err := idx.Register(context.Background(), toolindex.Registration{
		Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: "ping", InputSchema: json.RawMessage(`{"type":"object"}`)}, Namespace: "api"},
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: baseURL, Method: "GET", Path: "/ping"}},
	})
	require.NoError(t, err)
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendHTTP: exec})
	return toolrun.New(reg, append([]toolrun.Option{toolrun.WithIndex(idx)}, opts...)...)
}

// The runner's default policy waits exactly what Retry-After asks. The
// test runs in a synctest bubble, whose clock only moves when every
// goroutine in it is blocked, so the 30-second wait costs no real time.
// A real loopback server cannot serve requests inside a bubble (its
// connections block on the network, which does not count as blocked, so
// the clock would never move), so the handler is called in memory by the
// client's RoundTripper instead.
func TestRunnerHonoursRetryAfter(t *testing.T) {
	tests := []struct {
		name       string
		retryAfter func() string
		wait       time.Duration
	}{
		{"seconds", func() string { return "30" }, 30 * time.Second},
		{"HTTP date", func() string { return time.Now().Add(45 * time.Second).UTC().Format(http.TimeFormat) }, 45 * time.Second},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				handler, calls := flaky(1, tt.retryAfter)
				exec := httpexec.New(httpexec.WithHTTPClient(&http.Client{Transport: inMemory{handler}}))
				runner := runnerFor(t, exec, "https://api.example.com")

				start := time.Now()
				res, err := runner.Run(context.Background(), "api:ping", nil)
				require.NoError(t, err)
				assert.Equal(t, map[string]any{"ok": true}, res.Structured)
				assert.Equal(t, 2, res.Attempts)
				assert.Equal(t, int32(2), calls.Load())
				assert.Equal(t, tt.wait, time.Since(start))
			})
		})
	}
}

func TestRunnerGivesUpOnATooLongRetryAfter(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		handler, calls := flaky(1, func() string { return "120" })
		exec := httpexec.New(httpexec.WithHTTPClient(&http.Client{Transport: inMemory{handler}}), httpexec.WithMaxRetryAfter(time.Minute))
		runner := runnerFor(t, exec, "https://api.example.com")

		start := time.Now()
		_, err := runner.Run(context.Background(), "api:ping", nil)
		require.ErrorIs(t, err, errors.ErrRateLimited)
		d, ok := toolrun.RetryAfter(err)
		assert.True(t, ok)
		assert.Equal(t, 2*time.Minute, d, "the caller still sees the delay the API asked for")
		assert.Equal(t, int32(1), calls.Load())
		assert.Zero(t, time.Since(start))
	})
}

// Over a real server too: a 503 is retried with the runner's backoff, and
// the run reports the attempts.
func TestRunnerRetriesUnavailable(t *testing.T) {
	var calls atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if calls.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	runner := runnerFor(t, newExecutor(srv), srv.URL, toolrun.WithRetryPolicy(toolrun.ExponentialBackoff{MaxAttempts: 2}))
	res, err := runner.Run(context.Background(), "api:ping", nil)
	require.NoError(t, err)
	assert.Equal(t, 2, res.Attempts)
	assert.Equal(t, map[string]any{"ok": true}, res.Structured)
}

func TestConformance(t *testing.T) {
	toolruntest.RunExecutorConformance(t, func(t *testing.T) toolruntest.Harness {
		mux := http.NewServeMux()
		mux.HandleFunc("POST /echo", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.Copy(w, r.Body)
		})
		mux.HandleFunc("POST /fail", func(w http.ResponseWriter, _ *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnprocessableEntity)
			_, _ = w.Write([]byte(`{"error":"boom"}`))
		})
		mux.HandleFunc("GET /block", func(_ http.ResponseWriter, r *http.Request) {
			<-r.Context().Done()
		})
		srv := newServer(t, mux)
		exec := newExecutor(srv, httpexec.WithFailureRule(httpexec.FailOnStatus(http.StatusUnprocessableEntity)))
		target := func(name, method, path string) toolruntest.Target {
			return toolruntest.Target{
				Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: name, InputSchema: json.RawMessage(`{"type":"object"}`)}, Namespace: "api"},
				Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: srv.URL, Method: method, Path: path}},
			}
		}
		return toolruntest.Harness{
			Executor: exec,
			Echo:     target("echo", "POST", "/echo"),
			Fail:     target("fail", "POST", "/fail"),
			Block:    target("block", "GET", "/block"),
		}
	})
}
