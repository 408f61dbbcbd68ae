package mcpexec_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
	"github.com/metatools-go/metatools/toolrun/mcpexec/internal/testtools"
)

// transport is a way of reaching a server of the testtools tools, with
// the protocol version the SDK negotiates over it.
type transport struct {
	name    string
	version string
	config  func(t *testing.T) mcpexec.ServerConfig
}

// transports are the real transports the tests run over: in memory, a
// child process over stdio, and streamable HTTP, stateful and stateless
// (the latest protocol version needs a stateless HTTP server).
func transports() []transport {
	return []transport{
		{name: "memory", version: "2026-07-28", config: func(*testing.T) mcpexec.ServerConfig {
			return mcpexec.InMemory(testtools.NewServer(testtools.Config{}))
		}},
		{name: "stdio", version: "2026-07-28", config: func(*testing.T) mcpexec.ServerConfig {
			return mcpexec.ServerConfig{Command: testServer}
		}},
		{name: "http", version: "2025-11-25", config: func(t *testing.T) mcpexec.ServerConfig {
			return mcpexec.ServerConfig{URL: serveHTTP(t, nil).URL}
		}},
		{name: "http-stateless", version: "2026-07-28", config: func(t *testing.T) mcpexec.ServerConfig {
			return mcpexec.ServerConfig{URL: serveHTTP(t, &mcp.StreamableHTTPOptions{Stateless: true}).URL}
		}},
	}
}

// serveHTTP serves the testtools tools over streamable HTTP until the test
// ends. Blocked calls end with the test, before its cleanups close
// managers, so that closing a session does not wait for them.
func serveHTTP(t *testing.T, opts *mcp.StreamableHTTPOptions) *httptest.Server {
	srv := testtools.NewServer(testtools.Config{Release: t.Context().Done()})
	h := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, opts))
	t.Cleanup(h.Close)
	return h
}

// newManager returns a manager that is closed when the test ends.
func newManager(t *testing.T, opts ...mcpexec.Option) *mcpexec.Manager {
	t.Helper()
	m, err := mcpexec.NewManager(opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, m.Close()) })
	return m
}

// mcpCall returns a call of a tool of a server, by the tool's name.
func mcpCall(server, tool string, args map[string]any) *toolrun.Call {
	return &toolrun.Call{
		Tool:    toolmodel.Tool{Tool: mcp.Tool{Name: tool, InputSchema: map[string]any{"type": "object"}}},
		Backend: mcpexec.Backend(server),
		Args:    args,
	}
}

// serverSessions is an in-memory server configuration that records the
// server side of each of its connections.
type serverSessions struct {
	srv      *mcp.Server
	sessions chan *mcp.ServerSession
	// conns are the server side's connections, in the order of sessions:
	// closing one drops the connection as a crashed server would.
	conns chan mcp.Connection
	// fail, when it returns an error, makes a connection attempt fail.
	fail func() error
}

func newServerSessions(srv *mcp.Server) *serverSessions {
	return &serverSessions{srv: srv, sessions: make(chan *mcp.ServerSession, 16), conns: make(chan mcp.Connection, 16)}
}

// recordedTransport records the connection its transport makes.
type recordedTransport struct {
	mcp.Transport
	conns chan<- mcp.Connection
}

func (t recordedTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.Transport.Connect(ctx)
	if err == nil {
		t.conns <- c
	}
	return c, err
}

func (s *serverSessions) config() mcpexec.ServerConfig {
	return mcpexec.ServerConfig{Transport: func(ctx context.Context) (mcp.Transport, error) {
		if s.fail != nil {
			if err := s.fail(); err != nil {
				return nil, err
			}
		}
		client, server := mcp.NewInMemoryTransports()
		ss, err := s.srv.Connect(ctx, recordedTransport{server, s.conns}, nil)
		if err != nil {
			return nil, err
		}
		s.sessions <- ss
		return client, nil
	}}
}
