package mcpexec_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
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
)

// mcpRunner returns a runner over m whose index holds the tools server
// lists, under namespace, with the runner's default retry policy and
// opts.
func mcpRunner(t *testing.T, m *mcpexec.Manager, server, namespace string, opts ...toolrun.Option) *toolrun.Runner {
	t.Helper()
	idx := toolindex.New()
	require.NoError(t, m.RegisterTools(context.Background(), idx, server, namespace))
	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendMCP: m})
	return toolrun.New(reg, append([]toolrun.Option{toolrun.WithIndex(idx)}, opts...)...)
}

// The upstream process exits in the middle of a call of a tool it
// annotates destructive: the call may have had its effect, so neither the
// manager nor the runner's default retry policy sends it again. The
// upstream counts its executions in a file, across its restarts.
func TestDestructiveToolOfACrashingServerRunsOnce(t *testing.T) {
	crashes := filepath.Join(t.TempDir(), "crashes")
	m := newManager(t, mcpexec.WithServer("demo", mcpexec.ServerConfig{
		Command: testServer,
		Env:     map[string]string{"MCPEXEC_TEST_CRASH_LOG": crashes},
	}))
	runner := mcpRunner(t, m, "demo", "demo")

	res, err := runner.Run(context.Background(), "demo:crash", nil)
	require.Error(t, err)
	assert.Nil(t, res)
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err), "error: %v", err)
	assert.True(t, errors.IsRetryable(err), "the caller may still decide to retry")
	log, err := os.ReadFile(crashes)
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(log), "crash\n"), "executions at the upstream")

	// The server is started again for the next call.
	out, err := runner.Run(context.Background(), "demo:echo", map[string]any{"after": "crash"})
	require.NoError(t, err)
	assert.Equal(t, map[string]any{"after": "crash"}, out.Structured)
}

// crashingServer is an in-memory upstream whose tools break their session
// while they run, the first crashes times, counting their executions: they
// call drop, which drops the session's connection as a crashed server would
// (closing the session instead would wait for the requests in flight, the
// client's long-lived ones included, and race with the client seeing it).
func crashingServer(crashes int32, annotations map[string]*mcp.ToolAnnotations, drop func()) (*mcp.Server, map[string]*atomic.Int32) {
	srv := mcp.NewServer(&mcp.Implementation{Name: "crashy"}, nil)
	counts := map[string]*atomic.Int32{}
	for name, a := range annotations {
		n := &atomic.Int32{}
		counts[name] = n
		srv.AddTool(&mcp.Tool{Name: name, InputSchema: map[string]any{"type": "object"}, Annotations: a},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				if n.Add(1) <= crashes {
					drop()
					<-ctx.Done()
					return nil, ctx.Err()
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "done"}}}, nil
			})
	}
	return srv, counts
}

// Through the runner and its default retry policy, a call whose session
// breaks under way runs once for a tool that is not idempotent, and again
// on a new session for one that is, by its annotations or by the runner's
// configuration.
func TestBrokenCallsRunAgainOnlyWhenSafe(t *testing.T) {
	destructive := true
	// Sessions follow one another, each broken by one crash at most: a
	// crash drops the connection of the latest session.
	var ss *serverSessions
	srv, counts := crashingServer(1, map[string]*mcp.ToolAnnotations{
		"delete_repo": {DestructiveHint: &destructive},
		"charge":      nil,
		"lookup":      {ReadOnlyHint: true},
		"upsert":      {IdempotentHint: true},
		"declared":    nil,
	}, func() {
		<-ss.sessions
		_ = (<-ss.conns).Close()
	})
	ss = newServerSessions(srv)
	m := newManager(t, mcpexec.WithServer("crashy", ss.config()))
	runner := mcpRunner(t, m, "crashy", "crashy", toolrun.WithIdempotentTools("crashy:declared"))

	for name, want := range map[string]int32{"delete_repo": 1, "charge": 1, "lookup": 2, "upsert": 2, "declared": 2} {
		t.Run(name, func(t *testing.T) {
			res, err := runner.Run(context.Background(), "crashy:"+name, nil)
			if want == 1 {
				require.ErrorIs(t, err, errors.ErrUnavailable)
			} else {
				require.NoError(t, err)
				assert.Equal(t, "done", res.Structured)
			}
			assert.Equal(t, want, counts[name].Load(), "executions at the upstream")
		})
	}
}

// A silent upstream: the call fails at the runner's default timeout, with
// an error naming the tool and the server.
func TestSilentServerTimesOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "fs"}, nil)
		srv.AddTool(&mcp.Tool{Name: "read", InputSchema: map[string]any{"type": "object"}, Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true}},
			func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				<-ctx.Done() // never answers, until the client gives up
				return nil, ctx.Err()
			})
		m := newManager(t, mcpexec.WithServer("fs", mcpexec.InMemory(srv)))
		runner := mcpRunner(t, m, "fs", "fs", toolrun.WithDefaultTimeout(30*time.Second))

		start := time.Now()
		_, err := runner.Run(context.Background(), "fs:read", nil)
		require.Error(t, err)
		assert.Equal(t, errors.Timeout, errors.CodeOf(err))
		assert.Equal(t, `execute: tool "fs:read" (backend mcp:fs): no answer from MCP server "fs" within 30s`, err.Error())
		assert.Equal(t, 30*time.Second, time.Since(start))
	})
}
