package catalog_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
)

// session connects a client to a server of the catalogue.
func session(t *testing.T, cat *catalog.Catalog, opts ...toolserver.Option) *mcp.ClientSession {
	t.Helper()
	srv, err := cat.NewServer(opts...)
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	ct, st := mcp.NewInMemoryTransports()
	ctx := context.Background()
	ss, err := srv.MCPServer().Connect(ctx, st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

func callTool(t *testing.T, cs *mcp.ClientSession, name string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

func resultText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func searchIDs(t *testing.T, cs *mcp.ClientSession, query string) []string {
	t.Helper()
	res := callTool(t, cs, toolserver.ToolSearch, map[string]any{"query": query, "limit": 10})
	require.False(t, res.IsError, resultText(res))
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out struct{ Tools []struct{ ID string } }
	require.NoError(t, json.Unmarshal(raw, &out))
	ids := make([]string, len(out.Tools))
	for i, tool := range out.Tools {
		ids[i] = tool.ID
	}
	return ids
}

// TestPolicyHidesDeniedTools denies, in the configuration, the tool that
// matches a query best, and a whole namespace: the agent is not offered
// them anywhere, and cannot run them.
func TestPolicyHidesDeniedTools(t *testing.T) {
	const query = "evaluate an arithmetic expression"
	open := session(t, build(t, "search: {engine: lexical}"))
	ids := searchIDs(t, open, query)
	require.NotEmpty(t, ids)
	require.Equal(t, "math:eval", ids[0], "the tool the policy will deny matches best")

	denied := func(id string) bool { return id == "math:eval" || id == "text:stats" || strings.HasPrefix(id, "time:") }
	var allowed []string
	for _, id := range ids {
		if !denied(id) {
			allowed = append(allowed, id)
		}
	}

	cs := session(t, build(t, "search: {engine: lexical}\npolicy: {deny: ['math:eval', 'text:stats', 'time:*']}"))
	ids = searchIDs(t, cs, query)
	assert.NotContains(t, ids, "math:eval", "search_tools does not offer a denied tool")
	assert.Equal(t, allowed, ids[:len(allowed)], "the other matches are offered in their order")
	// Listing in pages of 4: a page is filled past the denied tools, and
	// the cursor goes on from inside an index page.
	var listed []string
	cursor := ""
	for page := 0; ; page++ {
		require.Less(t, page, 5)
		res := callTool(t, cs, toolserver.ToolSearch, map[string]any{"query": "", "limit": 4, "cursor": cursor})
		require.False(t, res.IsError, resultText(res))
		raw, err := json.Marshal(res.StructuredContent)
		require.NoError(t, err)
		var out struct {
			Tools      []struct{ ID string }
			NextCursor string
		}
		require.NoError(t, json.Unmarshal(raw, &out))
		for _, tool := range out.Tools {
			listed = append(listed, tool.ID)
		}
		if out.NextCursor == "" {
			break
		}
		assert.Len(t, out.Tools, 4, "a page with more to come is full")
		cursor = out.NextCursor
	}
	assert.Equal(t, []string{"json:query", "text:case", "text:decode", "text:encode", "text:hash", "text:replace"}, listed,
		"listing offers every allowed tool once, and no denied one")

	for _, tool := range []string{toolserver.ToolDescribe, toolserver.ToolExamples} {
		denied := callTool(t, cs, tool, map[string]any{"id": "math:eval"})
		unknown := callTool(t, cs, tool, map[string]any{"id": "math:nope"})
		require.True(t, denied.IsError, "%s of a denied tool fails", tool)
		require.True(t, unknown.IsError)
		assert.Equal(t, strings.ReplaceAll(resultText(unknown), "math:nope", "math:eval"), resultText(denied),
			"%s answers for a denied tool exactly as for an unknown one", tool)
		assert.Contains(t, resultText(denied), "[not_found]")
	}
	res := callTool(t, cs, toolserver.ToolDescribe, map[string]any{"id": "text:case"})
	assert.False(t, res.IsError, "a tool the policy allows is described: %s", resultText(res))

	res = callTool(t, cs, toolserver.ToolRun, map[string]any{"id": "math:eval", "args": map[string]any{"expression": "1+1"}})
	require.True(t, res.IsError, "run_tool refuses a denied tool")
	unknown := callTool(t, cs, toolserver.ToolRun, map[string]any{"id": "math:nope", "args": map[string]any{"expression": "1+1"}})
	assert.Equal(t, strings.ReplaceAll(resultText(unknown), "math:nope", "math:eval"), resultText(res),
		"run_tool answers for a denied tool exactly as for an unknown one")

	res = callTool(t, cs, toolserver.ToolNamespaces, map[string]any{})
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var ns struct{ Namespaces []string }
	require.NoError(t, json.Unmarshal(raw, &ns))
	assert.Contains(t, ns.Namespaces, "text", "a namespace with an allowed tool is listed")
	assert.NotContains(t, ns.Namespaces, "math", "a namespace whose every tool is denied is not")
	assert.NotContains(t, ns.Namespaces, "time")
}

// TestPolicyHidesDeniedPassthroughTools: a tool of an upstream that keeps
// its names is not listed in tools/list when the policy denies it.
func TestPolicyHidesDeniedPassthroughTools(t *testing.T) {
	names := func(cs *mcp.ClientSession) []string {
		res, err := cs.ListTools(context.Background(), nil)
		require.NoError(t, err)
		var out []string
		for _, tool := range res.Tools {
			out = append(out, tool.Name)
		}
		return out
	}
	endpoint, _ := greeter(t)
	upstream := "builtin: {disabled: true}\nmcpServers:\n  - {name: greeter, url: '" + endpoint + "', keepNames: true}\n"
	assert.Contains(t, names(session(t, build(t, upstream))), "greet")

	cs := session(t, build(t, upstream+"policy: {deny: ['greeter:greet']}\n"))
	assert.NotContains(t, names(cs), "greet", "a denied tool is not passed through")
	assert.Contains(t, names(cs), toolserver.ToolSearch)

	cs = session(t, build(t, "policy: {deny: ['text:stats']}"), toolserver.WithPassthrough("text:*"))
	assert.NotContains(t, names(cs), "text.stats")
	assert.Contains(t, names(cs), "text.hash")
}

// TestRunChainPassesAFieldOfThePreviousResult chains two built-in tools:
// the second takes the text member of the first's result.
func TestRunChainPassesAFieldOfThePreviousResult(t *testing.T) {
	cs := session(t, build(t, "search: {engine: lexical}"))
	res := callTool(t, cs, toolserver.ToolRunChain, map[string]any{"steps": []any{
		map[string]any{"id": "text:encode", "args": map[string]any{"text": "Hello, chain", "encoding": "base64"}},
		map[string]any{"id": "text:decode", "args": map[string]any{"text": map[string]any{"$previous": "/text"}, "encoding": "base64"}},
		map[string]any{"id": "text:case", "args": map[string]any{"text": map[string]any{"$previous": "/text"}, "to": "upper"}},
	}})
	require.False(t, res.IsError, resultText(res))
	raw, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var out struct {
		Steps []struct{ Result map[string]any }
	}
	require.NoError(t, json.Unmarshal(raw, &out))
	require.Len(t, out.Steps, 3)
	assert.Equal(t, "SGVsbG8sIGNoYWlu", out.Steps[0].Result["text"])
	assert.Equal(t, "Hello, chain", out.Steps[1].Result["text"])
	assert.Equal(t, "HELLO, CHAIN", out.Steps[2].Result["text"])

	res = callTool(t, cs, toolserver.ToolRunChain, map[string]any{"steps": []any{
		map[string]any{"id": "text:encode", "args": map[string]any{"text": "x", "encoding": "base64"}},
		map[string]any{"id": "text:case", "args": map[string]any{"text": map[string]any{"$previous": "/content/0/text"}, "to": "upper"}},
	}})
	require.True(t, res.IsError)
	raw, err = json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	var failed struct {
		Steps []struct {
			Step  int
			ID    string
			Error struct{ Code, Message string }
		}
	}
	require.NoError(t, json.Unmarshal(raw, &failed))
	require.Len(t, failed.Steps, 2)
	assert.Equal(t, "text:case", failed.Steps[1].ID)
	assert.Equal(t, "invalid_argument", failed.Steps[1].Error.Code)
	assert.Equal(t, `argument /text: $previous "/content/0/text": the result has no member "content" (it has members "text")`, failed.Steps[1].Error.Message)
	raw, err = json.Marshal(res.Meta[toolserver.MetaErrorKey])
	require.NoError(t, err)
	var wire errors.WireError
	require.NoError(t, json.Unmarshal(raw, &wire))
	assert.Contains(t, wire.Message, `chain step 1 (text:case): argument /text: $previous "/content/0/text"`, "the chain's error names the step")
}
