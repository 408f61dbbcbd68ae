package toolserver_test

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolserver"
)

// metaToolNames are the meta-tools a fuzzed call picks from.
var metaToolNames = []string{
	toolserver.ToolSearch, toolserver.ToolNamespaces, toolserver.ToolDescribe,
	toolserver.ToolExamples, toolserver.ToolRun, toolserver.ToolRunChain, toolserver.ToolExecuteCode,
}

// requireMetaToolAnswer checks the answer to a meta-tool call: always a
// result, arguments the meta-tool cannot take included, and a failed one
// carries its error in _meta.
func requireMetaToolAnswer(t *testing.T, res *mcp.CallToolResult, err error) {
	t.Helper()
	require.NoError(t, err, "a meta-tool answers with a result")
	require.NotNil(t, res)
	require.NotEmpty(t, res.Content)
	if res.IsError {
		assert.True(t, metaError(t, res).Code.Known(), "a failed result carries its error: %v", res.Meta)
	}
}

// FuzzMetaToolArguments calls each meta-tool, over a real MCP session,
// with arbitrary JSON arguments: the server never fails the session, and
// answers with a result, a tool error for arguments it cannot take.
func FuzzMetaToolArguments(f *testing.F) {
	for _, seed := range []struct {
		tool uint8
		args string
	}{
		{0, `{"query": "create an issue", "limit": 2}`},
		{0, `{"query": "", "namespace": "github", "cursor": "bm90IGEgY3Vyc29y"}`},
		{0, `{"query": "x", "limit": -1}`},
		{0, `{"query": 5}`},
		{1, `{}`},
		{1, `{"extra": true}`},
		{2, `{"id": "github:create_issue", "level": "full"}`},
		{2, `{"id": "nope:nope", "level": "summary"}`},
		{2, `{"id": "github:create_issue", "level": "everything"}`},
		{3, `{"id": "github:create_issue", "limit": 1}`},
		{4, `{"id": "github:create_issue", "args": {"title": "Crash"}}`},
		{4, `{"id": "github:create_issue", "args": {"title": 5}, "backend": "local:x"}`},
		{4, `{"id": "fs:read_file", "args": {"path": "/"}}`},
		{4, `{"id": ":", "args": null}`},
		{5, `{"steps": [{"id": "github:create_issue", "args": {"title": "a"}}, {"id": "text:upper", "usePrevious": true}]}`},
		{5, `{"steps": [{"id": "text:upper", "usePrevious": true, "previousKey": ""}], "continueOnError": true}`},
		{5, `{"steps": null}`},
		{5, `null`},
		{5, `[1, 2]`},
		{6, `{"code": "return (await tools.github.create_issue({title: 'a'})).number"}`},
		{6, `{"code": "const x: number = 1; x", "language": "typescript", "timeout": "1s"}`},
		{6, `{"code": "while (true) {}", "timeout": "10ms"}`},
		{6, `{"code": "return {", "language": "cobol"}`},
		{6, `{"code": "console.log('x'.repeat(10000))"}`},
		{2, `{"id": "github:create_issue", "format": "typescript"}`},
	} {
		f.Add(seed.tool, []byte(seed.args))
	}
	c := newCatalogue(f)
	cs := connect(f, c.server(toolserver.WithCodeMode(toolserver.CodeMode{Timeout: 200 * time.Millisecond,
		Limits: toolcode.Limits{ToolCalls: 5, OutputBytes: 4096, WallTime: time.Second}})), nil)
	f.Fuzz(func(t *testing.T, tool uint8, args []byte) {
		if !json.Valid(args) {
			// A client cannot send what is not JSON.
			return
		}
		name := metaToolNames[int(tool)%len(metaToolNames)]
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		requireMetaToolAnswer(t, res, err)
		// The session outlives any call.
		require.NoError(t, cs.Ping(context.Background(), nil))
	})
}

// FuzzRunChain runs chains of arbitrary steps over a real MCP session: the
// answer lists the steps that ran, in order and under their own IDs; a
// chain stops at its first failure unless told to continue, and is a
// failed result exactly when a step failed.
func FuzzRunChain(f *testing.F) {
	f.Add([]byte(`[{"id": "github:create_issue", "args": {"title": "a"}}, {"id": "text:upper", "usePrevious": true}]`), false)
	f.Add([]byte(`[{"id": "jobs:long_job"}, {"id": "text:upper", "usePrevious": true, "previousKey": "text"}]`), false)
	f.Add([]byte(`[{"id": "fs:read_file", "args": {"path": "x"}}, {"id": "text:upper", "args": {"text": "b"}}]`), true)
	f.Add([]byte(`[{"id": "fs:read_file", "args": {"path": "x"}}, {"id": "text:upper", "usePrevious": true}]`), true)
	f.Add([]byte(`[{"id": "text:upper", "usePrevious": true}]`), false)
	f.Add([]byte(`[{"id": "github:create_issue", "args": {"title": "a"}}, {"id": "text:upper", "args": {"text": {"$previous": "/title"}}}]`), false)
	f.Add([]byte(`[{"id": "github:create_issue", "args": {"title": "a"}}, {"id": "text:upper", "args": {"$previous": "/nope/~2"}}]`), true)
	f.Add([]byte(`[{"id": "nope:nope"}, {"id": "github:search_code", "args": {"q": 1}}]`), true)
	f.Add([]byte(`[]`), false)
	c := newCatalogue(f)
	cs := connect(f, c.server(), nil)
	f.Fuzz(func(t *testing.T, steps []byte, continueOnError bool) {
		if !json.Valid(steps) {
			return
		}
		args := map[string]any{"steps": json.RawMessage(steps), "continueOnError": continueOnError}
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: toolserver.ToolRunChain, Arguments: args})
		requireMetaToolAnswer(t, res, err)
		if metaErr, isErr := res.Meta[toolserver.MetaErrorKey]; isErr && res.StructuredContent == nil {
			// Steps the meta-tool cannot take: no step ran.
			require.NotNil(t, metaErr)
			return
		}
		var asked []struct {
			ID string `json:"id"`
		}
		require.NoError(t, json.Unmarshal(steps, &asked), "the server took steps that are not a list of steps")
		var out struct {
			Steps []struct {
				Step  int             `json:"step"`
				ID    string          `json:"id"`
				Error json.RawMessage `json:"error"`
			} `json:"steps"`
		}
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		require.NoError(t, json.Unmarshal(raw, &out))
		require.LessOrEqual(t, len(out.Steps), len(asked))
		failed := 0
		for i, st := range out.Steps {
			assert.Equal(t, i, st.Step)
			assert.Equal(t, asked[i].ID, st.ID)
			if st.Error != nil {
				failed++
				if !continueOnError {
					assert.Len(t, out.Steps, i+1, "the chain stops at its first failure")
				}
			}
		}
		if continueOnError {
			assert.Len(t, out.Steps, len(asked), "every step runs")
		}
		assert.Equal(t, failed > 0, res.IsError, "%s", raw)
	})
}
