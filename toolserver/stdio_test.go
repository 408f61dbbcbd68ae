package toolserver_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver"
)

// stdioClient drives a server over a pair of pipes, as a client process
// would over the server's standard input and output.
type stdioClient struct {
	in   *io.PipeWriter
	out  *bufio.Reader
	done chan error
}

func serveStdio(t *testing.T, srv *toolserver.Server) *stdioClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	c := &stdioClient{in: inW, out: bufio.NewReader(outR), done: make(chan error, 1)}
	go func() {
		err := srv.ServeLines(context.Background(), inR, outW)
		_ = outW.Close()
		c.done <- err
	}()
	return c
}

func (c *stdioClient) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(c.in, line+"\n")
	require.NoError(t, err)
}

// reply is one JSON-RPC response as the client reads it.
type reply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *jsonrpc.Error  `json:"error"`
}

func (c *stdioClient) receive(t *testing.T) reply {
	t.Helper()
	line, err := c.out.ReadBytes('\n')
	require.NoError(t, err, "the server hung up")
	var r reply
	require.NoError(t, json.Unmarshal(line, &r), "%s", line)
	return r
}

const stdioInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`

func TestStdioAnswersBadLinesAndGoesOn(t *testing.T) {
	c := serveStdio(t, newCatalogue(t).server())
	for _, tt := range []struct {
		name, line string
		code       int64
	}{
		{"garbage", "this is not json", jsonrpc.CodeParseError},
		{"truncated", `{"jsonrpc":"2.0","id":`, jsonrpc.CodeParseError},
		{"two values", `{} {}`, jsonrpc.CodeParseError},
		{"too deep", strings.Repeat("[", 20000) + strings.Repeat("]", 20000), jsonrpc.CodeParseError},
		{"too long", `{"jsonrpc":"2.0","id":9,"method":"ping","params":{"pad":"` + strings.Repeat("x", toolserver.MaxStdioLine) + `"}}`, jsonrpc.CodeParseError},
		{"no message", `{"hello":"world"}`, jsonrpc.CodeInvalidRequest},
		{"empty batch", `[]`, jsonrpc.CodeInvalidRequest},
	} {
		c.send(t, tt.line)
		r := c.receive(t)
		require.NotNil(t, r.Error, tt.name)
		assert.Equal(t, tt.code, r.Error.Code, tt.name)
		assert.JSONEq(t, "null", string(r.ID), tt.name)
	}
	c.send(t, "") // blank lines are skipped
	c.send(t, stdioInitialize)
	r := c.receive(t)
	assert.Nil(t, r.Error)
	assert.JSONEq(t, "1", string(r.ID))
	assert.Contains(t, string(r.Result), "serverInfo")

	require.NoError(t, c.in.Close())
	assert.NoError(t, <-c.done)
}

// slowCatalogue has a tool, slow:wait, that signals started and returns
// when release is closed or its context is done.
func slowCatalogue(t *testing.T) (c *catalogue, started chan struct{}, release chan struct{}) {
	c = newCatalogue(t)
	started, release = make(chan struct{}, 1), make(chan struct{})
	c.add(t, `{"name":"wait","namespace":"slow","description":"Wait to be released.","inputSchema":{"type":"object"}}`,
		func(ctx context.Context, _ map[string]any) (any, error) {
			started <- struct{}{}
			select {
			case <-release:
				return "released", nil
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		})
	return c, started, release
}

const runSlow = `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"run_tool","arguments":{"id":"slow:wait","args":{}}}}`

func TestStdioAnswersRunningCallsAfterInputCloses(t *testing.T) {
	cat, started, release := slowCatalogue(t)
	c := serveStdio(t, cat.server())
	c.send(t, stdioInitialize)
	c.receive(t)
	c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	c.send(t, runSlow)
	<-started
	require.NoError(t, c.in.Close())
	close(release)

	r := c.receive(t)
	assert.JSONEq(t, "2", string(r.ID))
	assert.Contains(t, string(r.Result), "released")
	assert.NoError(t, <-c.done)
}

func TestStdioShutdownTimeoutBoundsTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		cat, started, _ := slowCatalogue(t)
		c := serveStdio(t, cat.server(toolserver.WithShutdownTimeout(5*time.Second)))
		c.send(t, stdioInitialize)
		c.receive(t)
		c.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
		c.send(t, runSlow)
		<-started
		start := time.Now()
		require.NoError(t, c.in.Close())

		_, err := io.ReadAll(c.out) // the call is abandoned, unanswered
		require.NoError(t, err)
		assert.NoError(t, <-c.done)
		assert.Equal(t, 5*time.Second, time.Since(start))
	})
}
