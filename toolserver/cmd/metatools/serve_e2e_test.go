package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawStdio is `metatools serve` over stdio, driven line by line.
type rawStdio struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startRawStdio(t *testing.T, args ...string) *rawStdio {
	t.Helper()
	cmd := exec.Command(metatoolsBinary(t), append([]string{"serve"}, args...)...)
	cmd.Stderr = &testWriter{t: t}
	in, err := cmd.StdinPipe()
	require.NoError(t, err)
	out, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = in.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	return &rawStdio{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
}

func (p *rawStdio) send(t *testing.T, line string) {
	t.Helper()
	_, err := io.WriteString(p.in, line+"\n")
	require.NoError(t, err)
}

// rpcReply is a JSON-RPC response read from the server.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code int `json:"code"`
	} `json:"error"`
}

func (p *rawStdio) receive(t *testing.T) rpcReply {
	t.Helper()
	line, err := p.out.ReadBytes('\n')
	require.NoError(t, err, "metatools hung up")
	var r rpcReply
	require.NoError(t, json.Unmarshal(line, &r), "%s", line)
	return r
}

const e2eInitialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"e2e","version":"1"}}}`

func (p *rawStdio) initialize(t *testing.T) {
	t.Helper()
	p.send(t, e2eInitialize)
	r := p.receive(t)
	require.Nil(t, r.Error)
	p.send(t, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

func TestStdioBadLinesAreAnsweredAndServingGoesOn(t *testing.T) {
	p := startRawStdio(t)
	p.send(t, "garbage, not JSON")
	r := p.receive(t)
	require.NotNil(t, r.Error)
	assert.Equal(t, -32700, r.Error.Code)
	assert.JSONEq(t, "null", string(r.ID))

	p.send(t, `{"jsonrpc":"2.0","id":5,"method":"ping","params":{"pad":"`+strings.Repeat("x", 17<<20)+`"}}`)
	r = p.receive(t)
	require.NotNil(t, r.Error, "a line over 16 MiB")
	assert.Equal(t, -32700, r.Error.Code)
	assert.JSONEq(t, "null", string(r.ID))

	p.initialize(t)
	p.send(t, `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	r = p.receive(t)
	assert.Nil(t, r.Error)
	assert.JSONEq(t, "2", string(r.ID))
	assert.Contains(t, string(r.Result), "search_tools")

	require.NoError(t, p.in.Close())
	require.NoError(t, p.cmd.Wait(), "metatools exits 0 once its input is closed")
}

// TestStdioRunningCallsAreAnsweredAfterInputCloses closes metatools'
// input while a call waits on a slow web server: the answer still comes.
func TestStdioRunningCallsAreAnsweredAfterInputCloses(t *testing.T) {
	arrived, release := make(chan struct{}, 1), make(chan struct{})
	web := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		arrived <- struct{}{}
		<-release
		_, _ = io.WriteString(w, "slow answer")
	}))
	t.Cleanup(web.Close)
	t.Cleanup(func() {
		select {
		case <-release:
		default:
			close(release)
		}
	})
	cfg := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("builtin:\n  httpAllow: [\"127.0.0.1:*\"]\n"), 0o600))

	p := startRawStdio(t, "--config", cfg)
	p.initialize(t)
	p.send(t, fmt.Sprintf(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"run_tool","arguments":{"id":"http:fetch","args":{"url":%q}}}}`, web.URL))
	<-arrived
	require.NoError(t, p.in.Close())
	close(release)

	r := p.receive(t)
	assert.JSONEq(t, "7", string(r.ID))
	assert.Nil(t, r.Error)
	assert.Contains(t, string(r.Result), "slow answer")
	require.NoError(t, p.cmd.Wait())
}
