package mcpexec

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressTransport is a transport whose connections count the progress
// and log notifications they read, for calls to wait until they are
// handled (see [Manager.Execute]): the reader sees a notification before
// the result that follows it, where the SDK's handlers may see it after.
//
// The SDK's streamable HTTP connection cannot be wrapped (the client
// session relies on methods of its own type), so servers reached over
// streamable HTTP go without.
type progressTransport struct {
	mcp.Transport
	m    *Manager
	logs *backlog // the log messages of the connection
}

func (t progressTransport) Connect(ctx context.Context) (mcp.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return &progressConn{Connection: conn, m: t.m, logs: t.logs}, nil
}

// progressConn counts the progress and log notifications it reads.
type progressConn struct {
	mcp.Connection
	m    *Manager
	logs *backlog
}

func (c *progressConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if req, ok := msg.(*jsonrpc.Request); ok {
		switch req.Method {
		case "notifications/progress":
			c.m.progressRead(req.Params)
		case "notifications/message":
			c.logs.read()
		}
	}
	return msg, err
}
