package mcpexec_test

import (
	"context"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// deafTransport is a server's transport that never lets server/discover
// through, as a server of an earlier protocol that ignores requests it
// does not know.
type deafTransport struct{ mcp.Transport }

func (t deafTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	return deafConn{conn}, err
}

type deafConn struct{ mcp.Connection }

func (c deafConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	for {
		msg, err := c.Connection.Read(ctx)
		if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "server/discover" {
			continue
		}
		return msg, err
	}
}

// TestAServerThatNeverAnswersDiscoverIsReachedWithInitialize shows that
// a server that ignores server/discover costs the connection the discover
// bound, not its timeout: the connection falls back to initialize, and
// the server's tools are called.
func TestAServerThatNeverAnswersDiscoverIsReachedWithInitialize(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := mcp.NewServer(&mcp.Implementation{Name: "deaf", Version: "1"}, nil)
		srv.AddTool(&mcp.Tool{Name: "version", InputSchema: map[string]any{"type": "object"}}, func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: req.Session.InitializeParams().ProtocolVersion}}}, nil
		})
		cfg := mcpexec.ServerConfig{Transport: func(ctx context.Context) (mcp.Transport, error) {
			client, server := mcp.NewInMemoryTransports()
			ss, err := srv.Connect(ctx, deafTransport{server}, nil)
			if err != nil {
				return nil, err
			}
			t.Cleanup(func() { _ = ss.Close() })
			return client, nil
		}}
		m, err := mcpexec.NewManager(mcpexec.WithServer("deaf", cfg), mcpexec.WithDiscoverTimeout(2*time.Second), mcpexec.WithConnectTimeout(time.Minute))
		require.NoError(t, err)
		defer func() { assert.NoError(t, m.Close()) }()

		start := time.Now()
		out, err := m.Execute(t.Context(), mcpCall("deaf", "version", nil))
		require.NoError(t, err)
		assert.Equal(t, 2*time.Second, time.Since(start), "the wait for server/discover's answer, and no more")
		assert.Equal(t, "2025-11-25", out.Content[0].(*mcp.TextContent).Text, "the connection fell back to initialize")
	})
}

// TestADiscoverTimeoutMustBePositive shows the option's rule.
func TestADiscoverTimeoutMustBePositive(t *testing.T) {
	_, err := mcpexec.NewManager(mcpexec.WithDiscoverTimeout(0))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the connect, discover and terminate timeouts")
}
