package main

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// TestClosingTheStreamCancelsTheCall shows a client of protocol
// 2026-07-28 over streamable HTTP, which cancels a request by closing its
// response stream: the upstream call the request made is cancelled.
func TestClosingTheStreamCancelsTheCall(t *testing.T) {
	config, wire := teeConfig(t)
	endpoint := serveHTTP(t, nil, "--config", config)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e-cancel", Version: "1"}, nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: endpoint}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	waitForUpstreams(t, cs)

	ctx, cancel := context.WithCancel(t.Context())
	body := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"id":"everything:trigger-long-running-operation","args":{"duration":60,"steps":60}},` +
		`"_meta":{"io.modelcontextprotocol/protocolVersion":"2026-07-28","io.modelcontextprotocol/clientCapabilities":{}}}}`
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("MCP-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", "tools/call")
	req.Header.Set("Mcp-Name", "run_tool")
	done := make(chan error, 1)
	go func() {
		res, err := http.DefaultClient.Do(req)
		if err == nil {
			// The stream ends when the request is cancelled.
			_, err = io.Copy(io.Discard, res.Body)
			_ = res.Body.Close()
		}
		done <- err
	}()
	waitForWire(t, wire, `"name":"trigger-long-running-operation"`)
	cancel()
	require.Error(t, <-done)
	waitForWire(t, wire, `"method":"notifications/cancelled"`)
}
