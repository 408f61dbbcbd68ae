package mcpexec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
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
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
)

func TestProtocolVersionIsNegotiated(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			m := newManager(t, mcpexec.WithServer("demo", tr.config(t)))
			sess, err := m.Session(context.Background(), "demo")
			require.NoError(t, err)
			res := sess.InitializeResult()
			require.NotNil(t, res)
			assert.Equal(t, tr.version, res.ProtocolVersion)
			assert.Equal(t, "testtools", res.ServerInfo.Name)
		})
	}
}

func TestResultMapping(t *testing.T) {
	for _, tr := range transports() {
		t.Run(tr.name, func(t *testing.T) {
			m := newManager(t, mcpexec.WithServer("demo", tr.config(t)))
			ctx := context.Background()

			out, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, map[string]any{"n": 1.0, "s": "x"}))
			require.NoError(t, err)
			assert.False(t, out.IsError)
			assert.Equal(t, map[string]any{"n": 1.0, "s": "x"}, out.Structured)
			require.Len(t, out.Content, 1)
			assert.JSONEq(t, `{"n":1,"s":"x"}`, out.Content[0].(*mcp.TextContent).Text)

			out, err = m.Execute(ctx, mcpCall("demo", testtools.Fail, nil))
			require.NoError(t, err)
			assert.True(t, out.IsError)
			assert.Nil(t, out.Structured)
			assert.Equal(t, "boom", toolrun.OutputText(out))
		})
	}
}

func TestToolNameOverride(t *testing.T) {
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	call := mcpCall("demo", "copy", map[string]any{"k": "v"})
	call.Backend.MCP.ToolName = testtools.Echo
	out, err := m.Execute(context.Background(), call)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"k": "v"}, out.Structured)
}

func TestExecuteErrors(t *testing.T) {
	m := newManager(t,
		mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))),
		mcpexec.WithServer("missing", mcpexec.ServerConfig{Command: "/nonexistent/mcp-server"}),
		mcpexec.WithServer("refused", mcpexec.ServerConfig{URL: "http://127.0.0.1:1/mcp"}),
	)
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()
	notMCP := mcpCall("demo", testtools.Echo, nil)
	notMCP.Backend = toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "echo"}}

	tests := []struct {
		name      string
		ctx       context.Context
		call      *toolrun.Call
		code      errors.Code
		retryable bool
		message   string
	}{
		{"unknown server", context.Background(), mcpCall("nowhere", testtools.Echo, nil), errors.NotFound, false, `no MCP server "nowhere"`},
		{"not an MCP backend", context.Background(), notMCP, errors.InvalidArgument, false, "not an MCP backend"},
		{"unknown tool", context.Background(), mcpCall("demo", "absent", nil), errors.InvalidArgument, false, `unknown tool "absent"`},
		{"server error with taxonomy", context.Background(), mcpCall("demo", testtools.Denied, nil), errors.PermissionDenied, false, "no access to the vault"},
		{"arguments that cannot be encoded", context.Background(), mcpCall("demo", testtools.Echo, map[string]any{"c": make(chan int)}), errors.InvalidArgument, false, "encode the request"},
		{"canceled", canceled, mcpCall("demo", testtools.Echo, nil), errors.Canceled, false, "canceled"},
		{"deadline", expired, mcpCall("demo", testtools.Echo, nil), errors.Timeout, true, "deadline exceeded"},
		{"command not found", context.Background(), mcpCall("missing", testtools.Echo, nil), errors.InvalidArgument, false, "/nonexistent/mcp-server"},
		{"connection refused", context.Background(), mcpCall("refused", testtools.Echo, nil), errors.Unavailable, true, "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := m.Execute(tt.ctx, tt.call)
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err), "error: %v", err)
			assert.Equal(t, tt.retryable, errors.IsRetryable(err), "error: %v", err)
			assert.Contains(t, err.Error(), tt.message)
		})
	}
}

func TestErrorsNameTheBackend(t *testing.T) {
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	_, err := m.Execute(context.Background(), mcpCall("demo", testtools.Denied, nil))
	var e *errors.Error
	require.ErrorAs(t, err, &e)
	assert.Equal(t, "mcp:demo", e.Backend)
}

func TestProgressReachesTheCallback(t *testing.T) {
	for _, tr := range transports() {
		// A stateless HTTP server cannot ping the client, which the
		// progress tool does after its notifications.
		if tr.name == "http-stateless" {
			continue
		}
		t.Run(tr.name, func(t *testing.T) {
			m := newManager(t, mcpexec.WithServer("demo", tr.config(t)))
			var got []toolrun.Progress
			call := mcpCall("demo", testtools.Progress, map[string]any{"steps": 3})
			call.OnProgress = func(p toolrun.Progress) { got = append(got, p) }
			out, err := m.Execute(context.Background(), call)
			require.NoError(t, err)
			assert.Equal(t, "done", toolrun.OutputText(out))
			assert.Equal(t, []toolrun.Progress{
				{Progress: 1, Total: 3, Message: "step 1 of 3"},
				{Progress: 2, Total: 3, Message: "step 2 of 3"},
				{Progress: 3, Total: 3, Message: "step 3 of 3"},
			}, got)
		})
	}
}

// TestProgressBeforeTheResultIsNotLost calls a tool that sends its
// progress notifications right before its result, with nothing to make
// the client handle them first, many times: every notification reaches
// the callback before Execute returns. Over a stream connection (in
// memory, stdio) the manager waits for them; the SDK alone loses the last
// ones in some calls.
func TestProgressBeforeTheResultIsNotLost(t *testing.T) {
	for _, tr := range transports()[:2] {
		t.Run(tr.name, func(t *testing.T) {
			m := newManager(t, mcpexec.WithServer("demo", tr.config(t)))
			const steps, calls = 5, 100
			lost := 0
			for range calls {
				var got atomic.Int32
				call := mcpCall("demo", testtools.Progress, map[string]any{"steps": steps, "unordered": true})
				call.OnProgress = func(toolrun.Progress) { got.Add(1) }
				_, err := m.Execute(context.Background(), call)
				require.NoError(t, err)
				lost += steps - int(got.Load())
			}
			assert.Zero(t, lost, "notifications lost in %d calls of %d notifications", calls, steps)
		})
	}
}

func TestProgressOfConcurrentCallsStaysApart(t *testing.T) {
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.InMemory(testtools.NewServer(testtools.Config{}))))
	var wg sync.WaitGroup
	for steps := 1; steps <= 8; steps++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var got []float64
			call := mcpCall("demo", testtools.Progress, map[string]any{"steps": steps})
			call.OnProgress = func(p toolrun.Progress) {
				assert.InDelta(t, float64(steps), p.Total, 0)
				got = append(got, p.Progress)
			}
			_, err := m.Execute(context.Background(), call)
			if assert.NoError(t, err) {
				assert.Len(t, got, steps)
			}
		}()
	}
	wg.Wait()
}

func TestRunStreamDeliversProgress(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{Command: testServer}))
	idx := toolindex.New()
	require.NoError(t, m.RegisterTools(ctx, idx, "demo", "demo"))
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendMCP: m}), toolrun.WithIndex(idx))

	var kinds []toolrun.StreamEventKind
	var progress []float64
	var done toolrun.StreamEvent
	for ev := range runner.RunStream(ctx, "demo:progress", map[string]any{"steps": 2}) {
		kinds = append(kinds, ev.Kind)
		switch ev.Kind {
		case toolrun.StreamProgress:
			progress = append(progress, ev.Progress.Progress)
		case toolrun.StreamDone:
			done = ev
		}
	}
	assert.Equal(t, []toolrun.StreamEventKind{toolrun.StreamProgress, toolrun.StreamProgress, toolrun.StreamDone}, kinds)
	assert.Equal(t, []float64{1, 2}, progress)
	require.NoError(t, done.Err)
	assert.Equal(t, "done", done.Result.Structured)
	assert.Equal(t, "mcp:demo", done.Result.Backend.Identity())
}

func TestSessionIsSharedAndOpenedOnce(t *testing.T) {
	ss := newServerSessions(testtools.NewServer(testtools.Config{}))
	m := newManager(t, mcpexec.WithServer("demo", ss.config()))
	assert.Empty(t, ss.sessions, "no session before first use")

	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := m.Execute(context.Background(), mcpCall("demo", testtools.Echo, nil))
			assert.NoError(t, err)
		}()
	}
	wg.Wait()
	first, err := m.Session(context.Background(), "demo")
	require.NoError(t, err)
	second, err := m.Session(context.Background(), "demo")
	require.NoError(t, err)
	assert.Same(t, first, second)
	assert.Len(t, ss.sessions, 1, "one connection for all the calls")
}

func TestServerGoneReconnects(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ss := newServerSessions(testtools.NewServer(testtools.Config{}))
		m := newManager(t, mcpexec.WithServer("demo", ss.config()))
		ctx := context.Background()
		_, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, nil))
		require.NoError(t, err)
		old, err := m.Session(ctx, "demo")
		require.NoError(t, err)

		// The server goes away: once the manager has seen it go, the
		// next call opens a new one. The connection is dropped rather
		// than the session closed, which would wait for the requests in
		// flight, the client's long-lived ones included.
		<-ss.sessions
		require.NoError(t, (<-ss.conns).Close())
		synctest.Wait()
		out, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, map[string]any{"again": true}))
		require.NoError(t, err)
		assert.Equal(t, map[string]any{"again": true}, out.Structured)
		current, err := m.Session(ctx, "demo")
		require.NoError(t, err)
		assert.NotSame(t, old, current)
		assert.Len(t, ss.sessions, 1, "a second connection")
	})
}

// TestSessionBreaksDuringTheCall breaks the session while the server
// handles the first call of each tool: only a tool whose annotations say
// it is safe is called again.
func TestSessionBreaksDuringTheCall(t *testing.T) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "flaky"}, nil)
	ss := newServerSessions(srv)
	var mu sync.Mutex
	calls := map[string]int{}
	breakFirst := func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		mu.Lock()
		defer mu.Unlock()
		calls[req.Params.Name]++
		if calls[req.Params.Name] == 1 {
			// The connection drops, as a crashed server's does, before
			// the call can be answered: each first call is the first on
			// its connection, made in order.
			_ = (<-ss.conns).Close()
			return nil, errors.New("the connection dropped")
		}
		return testtools.Structured(map[string]any{"tool": req.Params.Name})
	}
	destructive := true
	tools := map[string]*mcp.ToolAnnotations{
		"lookup":  {ReadOnlyHint: true},
		"upsert":  {IdempotentHint: true},
		"charge":  nil,
		"archive": {DestructiveHint: &destructive},
	}
	for name, annotations := range tools {
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: annotations}, breakFirst)
	}
	m := newManager(t, mcpexec.WithServer("flaky", ss.config()))

	for name, annotations := range tools {
		t.Run(name, func(t *testing.T) {
			call := mcpCall("flaky", name, nil)
			call.Tool.Annotations = annotations
			out, err := m.Execute(context.Background(), call)
			mu.Lock()
			n := calls[name]
			mu.Unlock()
			if annotations != nil && (annotations.ReadOnlyHint || annotations.IdempotentHint) {
				require.NoError(t, err)
				assert.Equal(t, map[string]any{"tool": name}, out.Structured)
				assert.Equal(t, 2, n, "sent again on a new session")
				return
			}
			require.Error(t, err)
			assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "error: %v", err)
			assert.True(t, errors.IsRetryable(err))
			assert.Equal(t, 1, n, "not sent again: it may have had its effect")
		})
	}
}

func TestHTTPHeaders(t *testing.T) {
	srv := testtools.NewServer(testtools.Config{})
	handler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil)
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer s3cret" {
			http.Error(w, "who are you?", http.StatusUnauthorized)
			return
		}
		handler.ServeHTTP(w, r)
	}))
	t.Cleanup(h.Close)
	m := newManager(t,
		mcpexec.WithServer("good", mcpexec.ServerConfig{URL: h.URL, Headers: map[string]string{"Authorization": "Bearer s3cret"}}),
		mcpexec.WithServer("bad", mcpexec.ServerConfig{URL: h.URL, Headers: map[string]string{"Authorization": "Bearer guess"}}),
	)
	out, err := m.Execute(context.Background(), mcpCall("good", testtools.Echo, map[string]any{"ok": true}))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"ok": true}, out.Structured)

	_, err = m.Execute(context.Background(), mcpCall("bad", testtools.Echo, nil))
	require.Error(t, err)
	assert.Equal(t, errors.Unauthenticated, errors.CodeOf(err), "error: %v", err)
	assert.False(t, errors.IsRetryable(err))
}

func TestRestartedHTTPServerReconnects(t *testing.T) {
	// The handler behind the URL can be replaced, as by a restart of the
	// server, which forgets its sessions.
	var current atomic.Pointer[mcp.StreamableHTTPHandler]
	var servers []*mcp.Server
	start := func() {
		srv := testtools.NewServer(testtools.Config{})
		servers = append(servers, srv)
		current.Store(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	}
	start()
	h := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { current.Load().ServeHTTP(w, r) }))
	t.Cleanup(func() {
		h.Close()
		for _, srv := range servers {
			for ss := range srv.Sessions() {
				_ = ss.Close()
			}
		}
	})
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{URL: h.URL}))
	ctx := context.Background()
	_, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, nil))
	require.NoError(t, err)

	start()
	out, err := m.Execute(ctx, mcpCall("demo", testtools.Echo, map[string]any{"after": "restart"}))
	require.NoError(t, err, "the unknown session was replaced, and the call sent again")
	assert.Equal(t, map[string]any{"after": "restart"}, out.Structured)
}
