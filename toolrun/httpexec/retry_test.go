package httpexec_test

import (
	"context"
	"encoding/json"
	"net"
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
)

// methodRunner returns a runner whose index has one tool, "api:op",
// sending method to baseURL/op, with the runner's default retry policy
// (no delay, so that a real server answers the retries at once).
func methodRunner(t *testing.T, exec *httpexec.Executor, baseURL, method string) *toolrun.Runner {
	t.Helper()
	idx := toolindex.New()
	require.NoError(t, idx.Register(context.Background(), toolindex.Registration{
		Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: "op", InputSchema: json.RawMessage(`{"type":"object"}`)}, Namespace: "api"},
		Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: baseURL, Method: method, Path: "/op"}},
	}))
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendHTTP: exec})
	policy := toolrun.DefaultRetryPolicy()
	policy.Initial = 0
	return toolrun.New(reg, toolrun.WithIndex(idx), toolrun.WithRetryPolicy(policy))
}

// failing answers every request with status, counting the requests.
func failing(status int) (http.Handler, *atomic.Int32) {
	var requests atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		requests.Add(1)
		w.WriteHeader(status)
	}), &requests
}

// A POST the server answered 500 may have had its effect: it is sent
// once, though the error is retryable, while a GET, PUT or DELETE
// answered 503 is retried as the policy says (3 attempts).
func TestRetriesFollowTheMethodsIdempotency(t *testing.T) {
	tests := []struct {
		method   string
		status   int
		requests int32
	}{
		{"POST", http.StatusInternalServerError, 1},
		{"PATCH", http.StatusServiceUnavailable, 1},
		{"GET", http.StatusServiceUnavailable, 3},
		{"PUT", http.StatusInternalServerError, 3},
		{"DELETE", http.StatusBadGateway, 3},
	}
	for _, tt := range tests {
		t.Run(tt.method, func(t *testing.T) {
			handler, requests := failing(tt.status)
			srv := newServer(t, handler)
			_, err := methodRunner(t, newExecutor(srv), srv.URL, tt.method).Run(context.Background(), "api:op", nil)
			require.ErrorIs(t, err, errors.ErrUnavailable)
			assert.True(t, errors.IsRetryable(err), "the error stays retryable for the caller to decide: %v", err)
			assert.False(t, toolrun.NotSent(err))
			assert.Equal(t, tt.requests, requests.Load(), "requests the server received")
		})
	}
}

// A GET answered 503 is retried until it succeeds.
func TestGetAnswered503IsRetried(t *testing.T) {
	var requests atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		if requests.Add(1) == 1 {
			w.WriteHeader(http.StatusServiceUnavailable)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"ok":true}`))
	}))
	res, err := methodRunner(t, newExecutor(srv), srv.URL, "GET").Run(context.Background(), "api:op", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": true}, res.Structured)
	assert.Equal(t, 2, res.Attempts)
	assert.Equal(t, int32(2), requests.Load())
}

// A POST whose connection was refused never reached the server: it is
// retried, and the server receives it once.
func TestConnectionRefusedPostIsRetried(t *testing.T) {
	var requests atomic.Int32
	srv := newServer(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		assert.Equal(t, http.MethodPost, r.Method)
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"charged":true}`))
	}))
	refused := closedAddress(t)
	var dials atomic.Int32
	var d net.Dialer
	transport := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		if dials.Add(1) == 1 {
			// The first attempt finds nobody listening.
			return d.DialContext(ctx, network, refused)
		}
		return d.DialContext(ctx, network, srv.Listener.Addr().String())
	}}
	t.Cleanup(transport.CloseIdleConnections)
	exec := httpexec.New(httpexec.WithHTTPClient(&http.Client{Transport: transport}))

	res, err := methodRunner(t, exec, srv.URL, "POST").Run(context.Background(), "api:op", nil)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"charged": true}, res.Structured)
	assert.Equal(t, 2, res.Attempts)
	assert.Equal(t, int32(1), requests.Load(), "the server received the POST once")
}

// A refused connection and an unknown host are marked as never sent.
func TestDialFailuresAreNotSent(t *testing.T) {
	for name, baseURL := range map[string]string{
		"refused":      "http://" + closedAddress(t),
		"unknown host": "http://metatools-test.invalid",
	} {
		t.Run(name, func(t *testing.T) {
			_, err := httpexec.New().Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: baseURL, Method: "POST", Path: "/op"}, nil))
			require.ErrorIs(t, err, errors.ErrUnavailable)
			assert.True(t, toolrun.NotSent(err), "error: %v", err)
		})
	}
	t.Run("bad arguments", func(t *testing.T) {
		_, err := httpexec.New().Execute(context.Background(), httpCall(&toolmodel.HTTPBackend{BaseURL: "http://127.0.0.1:1", Method: "POST", Path: "/op/{id}"}, nil))
		require.ErrorIs(t, err, errors.ErrInvalidArgument)
		assert.True(t, toolrun.NotSent(err), "error: %v", err)
	})
}

// closedAddress returns a loopback address where nothing listens.
func closedAddress(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	return addr
}

// An API that never answers fails at the runner's default timeout, with
// an error naming the tool and the API.
func TestSilentAPITimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The server accepts the request and never answers: the client
		// gives up with its context, as a real transport does.
		silent := roundTripFunc(func(req *http.Request) (*http.Response, error) {
			<-req.Context().Done()
			return nil, req.Context().Err()
		})
		exec := httpexec.New(httpexec.WithHTTPClient(&http.Client{Transport: silent}))
		runner := runnerFor(t, exec, "https://api.example.com/v1", toolrun.WithDefaultTimeout(30*time.Second))
		start := time.Now()
		_, err := runner.Run(context.Background(), "api:ping", nil)
		require.ErrorIs(t, err, errors.ErrTimeout)
		assert.Contains(t, err.Error(), `tool "api:ping"`)
		assert.Contains(t, err.Error(), `no answer from HTTP API "https://api.example.com" within 30s`)
		assert.Equal(t, 30*time.Second, time.Since(start), "one attempt: the deadline covers the retries")
	})
}
