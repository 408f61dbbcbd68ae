package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// filterLines runs input through the stdio reader with lines of at most
// maxLine bytes, and returns what it hands the SDK and what it answers.
func filterLines(input []byte, maxLine int) (handed, answered []byte, err error) {
	var out bytes.Buffer
	w := &stdioWriter{w: &out, calls: newRunningCalls()}
	r := &stdioReader{
		lines: bufio.NewReaderSize(bytes.NewReader(input), 16), maxLine: maxLine,
		out: w, ctx: context.Background(), timeout: 1, logger: slog.New(slog.DiscardHandler),
	}
	handed, err = io.ReadAll(r)
	return handed, out.Bytes(), err
}

const stdioInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

// FuzzStdioLines checks that whatever a client sends, the server's reader
// hands the SDK only well-formed JSON-RPC lines and answers every other
// line, without failing.
func FuzzStdioLines(f *testing.F) {
	for _, seed := range []string{
		stdioInitialize + "\n",
		"garbage\n" + stdioInitialize,
		"[]\n[{\"jsonrpc\":\"2.0\",\"method\":\"x\"}]\n",
		`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"p":"` + strings.Repeat("x", 100) + "\"}}\n",
		"[[[[[[[[[[[[\n\n  \r\n{}",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, input []byte) {
		handed, answered, err := filterLines(input, 64)
		require.NoError(t, err)
		for line := range bytes.Lines(handed) {
			require.True(t, bytes.HasSuffix(line, []byte("\n")))
			line = bytes.TrimSuffix(line, []byte("\n"))
			require.LessOrEqual(t, len(line), 64)
			if line[0] == '[' {
				var batch []json.RawMessage
				require.NoError(t, json.Unmarshal(line, &batch))
				require.NotEmpty(t, batch)
				for _, raw := range batch {
					_, err := jsonrpc.DecodeMessage(raw)
					require.NoError(t, err)
				}
				continue
			}
			_, err := jsonrpc.DecodeMessage(line)
			require.NoError(t, err, "%q", line)
		}
		for line := range bytes.Lines(answered) {
			var r struct{ Error *jsonrpc.Error }
			require.NoError(t, json.Unmarshal(line, &r))
			require.NotNil(t, r.Error)
		}
	})
}

// TestCancelledCallsGetNoAnswer cancels a running call: the client gets no
// answer to it, as MCP asks of a request's receiver, and the answers to
// its other requests still come.
func TestCancelledCallsGetNoAnswer(t *testing.T) {
	server := mcp.NewServer(&mcp.Implementation{Name: "t", Version: "1"}, nil)
	started := make(chan struct{})
	server.AddTool(&mcp.Tool{Name: "block", InputSchema: map[string]any{"type": "object"}}, func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		close(started)
		<-ctx.Done()
		return &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: "cancelled"}}}, nil
	})
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan error, 1)
	go func() {
		done <- ServeLines(t.Context(), server, inR, outW, StdioOptions{MaxLine: 1 << 20, ShutdownTimeout: time.Minute, Logger: slog.New(slog.DiscardHandler)})
		_ = outW.Close()
	}()
	out := bufio.NewReader(outR)
	send := func(line string) {
		_, err := io.WriteString(inW, line+"\n")
		require.NoError(t, err)
	}
	receiveID := func() string {
		line, err := out.ReadBytes('\n')
		require.NoError(t, err)
		var msg struct{ ID json.RawMessage }
		require.NoError(t, json.Unmarshal(line, &msg), "%s", line)
		return string(msg.ID)
	}

	send(stdioInitialize)
	assert.Equal(t, "1", receiveID())
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"block","arguments":{}}}`)
	<-started
	send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2}}`)
	send(`{"jsonrpc":"2.0","id":3,"method":"ping"}`)
	assert.Equal(t, "3", receiveID(), "the answer to the cancelled call is not sent")
	require.NoError(t, inW.Close())
	require.NoError(t, <-done)
	rest, err := io.ReadAll(out)
	require.NoError(t, err)
	assert.Empty(t, rest, "nothing more is sent, not even the cancelled call's answer")
}
