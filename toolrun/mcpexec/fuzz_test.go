package mcpexec_test

import (
	"context"
	"encoding/json"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/mcpexec"
)

// rawUpstream is an upstream MCP server that answers every tools/call with
// the JSON-RPC result or error it is given, byte for byte: no real server
// sends malformed results, so the server end of the connection is driven
// by hand.
type rawUpstream struct {
	mu     sync.Mutex
	result json.RawMessage
	err    *jsonrpc.Error
}

// answer sets the answer to the next tools/call requests.
func (u *rawUpstream) answer(result json.RawMessage, err *jsonrpc.Error) {
	u.mu.Lock()
	defer u.mu.Unlock()
	u.result, u.err = result, err
}

func (u *rawUpstream) config() mcpexec.ServerConfig {
	return mcpexec.ServerConfig{Transport: func(ctx context.Context) (mcp.Transport, error) {
		client, server := mcp.NewInMemoryTransports()
		conn, err := server.Connect(ctx)
		if err != nil {
			return nil, err
		}
		go u.serve(conn)
		return client, nil
	}}
}

// serve answers the requests of one connection until it closes.
func (u *rawUpstream) serve(conn mcp.Connection) {
	defer conn.Close()
	ctx := context.Background()
	for {
		msg, err := conn.Read(ctx)
		if err != nil {
			return
		}
		req, ok := msg.(*jsonrpc.Request)
		if !ok || !req.ID.IsValid() {
			continue
		}
		resp := &jsonrpc.Response{ID: req.ID}
		switch req.Method {
		case "initialize":
			var params struct {
				ProtocolVersion string `json:"protocolVersion"`
			}
			_ = json.Unmarshal(req.Params, &params)
			resp.Result, _ = json.Marshal(map[string]any{
				"protocolVersion": params.ProtocolVersion,
				"capabilities":    map[string]any{"tools": map[string]any{}},
				"serverInfo":      map[string]any{"name": "raw", "version": "1"},
			})
		case "tools/call":
			u.mu.Lock()
			resp.Result = u.result
			if u.err != nil {
				resp.Error = u.err
				resp.Result = nil
			}
			u.mu.Unlock()
		default:
			resp.Error = &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "no " + req.Method}
		}
		if conn.Write(ctx, resp) != nil {
			return
		}
	}
}

// FuzzUpstreamResult maps arbitrary answers of an upstream server to a
// tools/call into outputs: a result the client can decode is an Output
// that carries it as it is, one it cannot decode and a JSON-RPC error are
// errors with a code, and the manager keeps serving calls either way.
func FuzzUpstreamResult(f *testing.F) {
	for _, seed := range []string{
		`{"content": [{"type": "text", "text": "hello"}]}`,
		`{"content": [{"type": "text", "text": "{\"a\": 1}"}], "structuredContent": {"a": 1}}`,
		`{"content": [{"type": "image", "data": "aGk=", "mimeType": "image/png"}], "isError": true}`,
		`{"content": [{"type": "resource", "resource": {"uri": "file:///x", "text": "t"}}]}`,
		`{"content": [{"type": "resource_link", "uri": "file:///x", "name": "x"}]}`,
		`{"content": [{"type": "audio", "data": "!!", "mimeType": "audio/wav"}]}`,
		`{"content": [{"type": "nope"}]}`,
		`{"content": null, "structuredContent": [1, 2]}`,
		`{"content": [], "isError": true}`,
		`{"structuredContent": "text", "_meta": {"k": 1}}`,
		`{}`, `null`, `[]`, `"x"`, `{"content": 5}`,
	} {
		f.Add([]byte(seed), false, int64(0), "")
	}
	f.Add([]byte(`{}`), true, int64(jsonrpc.CodeInvalidParams), "bad arguments")
	f.Add([]byte(`{}`), true, int64(-32000), "")
	f.Add([]byte(`{}`), true, int64(404), "not found")

	upstream := &rawUpstream{}
	m, err := mcpexec.NewManager(mcpexec.WithServer("raw", upstream.config()))
	require.NoError(f, err)
	f.Cleanup(func() { assert.NoError(f, m.Close()) })

	f.Fuzz(func(t *testing.T, result []byte, isRPCError bool, code int64, message string) {
		if !json.Valid(result) {
			return
		}
		if isRPCError {
			upstream.answer(nil, &jsonrpc.Error{Code: code, Message: message})
		} else {
			upstream.answer(result, nil)
		}
		out, err := m.Execute(context.Background(), mcpCall("raw", "tool", map[string]any{"a": 1}))
		if err != nil {
			var coded *errors.Error
			require.ErrorAs(t, err, &coded, "the error has a code")
			return
		}
		require.False(t, isRPCError, "a JSON-RPC error is an error")
		// What a person or a model reads of any output can be produced,
		// and the output travels as JSON.
		_ = toolrun.OutputText(out)
		_, err = json.Marshal(out)
		require.NoError(t, err)
	})
}
