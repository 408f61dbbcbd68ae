package toolserver_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver"
)

// executeResult is execute_code's structured answer.
type executeResult struct {
	Value json.RawMessage `json:"value"`
	Logs  []string        `json:"logs"`
	Trace []struct {
		Tool  string      `json:"tool"`
		OK    bool        `json:"ok"`
		Error errors.Code `json:"error"`
	} `json:"trace"`
}

// wireError returns the error a tool error result carries in its _meta.
func wireError(t *testing.T, res *mcp.CallToolResult) *errors.Error {
	t.Helper()
	require.True(t, res.IsError, text(res))
	raw, err := json.Marshal(res.Meta[toolserver.MetaErrorKey])
	require.NoError(t, err)
	var w errors.WireError
	require.NoError(t, json.Unmarshal(raw, &w))
	return errors.FromWire(&w)
}

func TestCodeModeIsOffByDefault(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	res, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range res.Tools {
		assert.NotEqual(t, toolserver.ToolExecuteCode, tool.Name)
		if tool.Name == toolserver.ToolDescribe {
			raw, _ := json.Marshal(tool.InputSchema)
			assert.NotContains(t, string(raw), "typescript", "describe_tool offers declarations only with code mode")
		}
	}
}

func TestExecuteCode(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var listed bool
	for _, tool := range list.Tools {
		if tool.Name == toolserver.ToolExecuteCode {
			listed = true
			raw, _ := json.Marshal(tool)
			t.Logf("execute_code adds %d bytes to tools/list: %s", len(raw), raw)
		}
	}
	require.True(t, listed)

	res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"language": "typescript", "code": `
		const found = await tools.search("github issue", 5);
		const issues = await Promise.all(["a", "b", "c"].map((title: string) => tools.github.create_issue({title})));
		console.log("found", found.length);
		return {numbers: issues.map((i: any) => i.number), first: found[0].id};`})
	require.False(t, res.IsError, text(res))
	var out executeResult
	structured(t, res, &out)
	assert.JSONEq(t, `{"numbers":[7,7,7],"first":"github:create_issue"}`, string(out.Value))
	assert.Equal(t, []string{"found 2"}, out.Logs)
	require.Len(t, out.Trace, 3)
	for _, c := range out.Trace {
		assert.Equal(t, "github:create_issue", c.Tool)
		assert.True(t, c.OK)
	}
	assert.Contains(t, text(res), `"first":"github:create_issue"`)
	assert.Contains(t, text(res), "3 tool calls, 0 failed")
}

func TestExecuteCodeFailures(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{Limits: toolcode.Limits{ToolCalls: 2}})), nil)
	for _, tc := range []struct {
		name, code string
		want       errors.Code
		limit      string
		calls      int
	}{
		{"syntax error", `return {`, errors.InvalidArgument, "", 0},
		{"uncaught exception", `console.log("before"); throw new Error("boom")`, errors.Execution, "", 0},
		{"tool failure", `console.log("before"); await tools.fs.read_file({path: "/etc"})`, errors.Execution, "", 1},
		{"tool call limit", `console.log("before"); for (let i = 0; i < 5; i++) await tools.github.search_code({q: "x"})`, errors.ResourceExhausted, toolcode.LimitToolCalls, 2},
		{"unknown tool", `console.log("before"); await tools.run("nope:none", {})`, errors.NotFound, "", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": tc.code})
			e := wireError(t, res)
			assert.Equal(t, tc.want, e.Code, text(res))
			if tc.limit != "" {
				assert.Equal(t, tc.limit, toolcode.LimitOf(e))
			}
			trace, _ := res.Meta[toolserver.MetaTraceKey].([]any)
			assert.Len(t, trace, tc.calls)
			if tc.want != errors.InvalidArgument {
				assert.Equal(t, []any{"before"}, res.Meta[toolserver.MetaLogsKey])
				assert.Contains(t, text(res), `"logs":["before"]`)
			}
		})
	}

	// A request may not raise the server's limits; a bad timeout is the
	// caller's to correct.
	res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": "1", "timeout": "soon"})
	assert.Equal(t, errors.InvalidArgument, wireError(t, res).Code)
	res = call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": "1", "language": "cobol"})
	assert.Equal(t, errors.InvalidArgument, wireError(t, res).Code, "the schema lists the languages")
}

// TestExecuteCodeLanguageAliases runs programs named by the short names
// of their languages: the schema lists them, and they run as the
// languages they name.
func TestExecuteCodeLanguageAliases(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var enum []any
	for _, tool := range list.Tools {
		if tool.Name == toolserver.ToolExecuteCode {
			schema, ok := tool.InputSchema.(map[string]any)
			require.True(t, ok)
			language, ok := schema["properties"].(map[string]any)["language"].(map[string]any)
			require.True(t, ok)
			enum, _ = language["enum"].([]any)
		}
	}
	assert.Equal(t, []any{"javascript", "typescript", "js", "ts"}, enum)

	tests := []struct {
		language, code, want string
	}{
		{"ts", `const n: number = 6 * 7; return n`, "42"},
		{"typescript", `const n: number = 6 * 7; return n`, "42"},
		{"js", `return 6 * 7`, "42"},
		{"", `return 6 * 7`, "42"},
	}
	for _, tt := range tests {
		t.Run(tt.language, func(t *testing.T) {
			args := map[string]any{"code": tt.code}
			if tt.language != "" {
				args["language"] = tt.language
			}
			res := call(t, cs, toolserver.ToolExecuteCode, args)
			require.False(t, res.IsError, text(res))
			var out executeResult
			structured(t, res, &out)
			assert.JSONEq(t, tt.want, string(out.Value))
		})
	}
	res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": `const n: number = 1; return n`, "language": "js"})
	assert.Equal(t, errors.InvalidArgument, wireError(t, res).Code, "js is JavaScript, which has no type annotations")
}

func TestCodeLanguage(t *testing.T) {
	both, err := toolcode.NewEngineRegistry(javascript.New(), javascript.NewTypeScript())
	require.NoError(t, err)
	jsOnly, err := toolcode.NewEngineRegistry(javascript.New())
	require.NoError(t, err)
	tests := []struct {
		name     string
		engines  *toolcode.EngineRegistry
		language string
		want     string
		wantErr  string
	}{
		{"a language", both, "typescript", "typescript", ""},
		{"ts", both, "ts", "typescript", ""},
		{"js", both, "js", "javascript", ""},
		{"the default", both, "", "", ""},
		{"unknown", both, "cobol", "", `unknown language "cobol" (accepted: javascript, typescript, js, ts)`},
		{"the short name of a language not registered", jsOnly, "ts", "", `unknown language "ts" (accepted: javascript, js)`},
		{"case counts", both, "TS", "", `unknown language "TS"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := toolserver.CodeLanguage(tt.engines, tt.language)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
				assert.Contains(t, err.Error(), tt.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
		})
	}
	assert.Equal(t, []string{"javascript", "js"}, toolserver.CodeLanguages(jsOnly))
}

func TestExecuteCodeTimeout(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)
	res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": `while (true) {}`, "timeout": "50ms"})
	e := wireError(t, res)
	assert.Equal(t, errors.Timeout, e.Code)
	assert.Equal(t, toolcode.LimitWallTime, toolcode.LimitOf(e))
}

func TestExecuteCodeAppliesThePolicy(t *testing.T) {
	c := newCatalogue(t)
	c.runner = toolrun.New(c.registry, toolrun.WithIndex(c.index),
		toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{"github:create_issue"}}))
	cs := connect(t, c.server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)

	res := call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": `await tools.github.create_issue({title: "x"})`})
	e := wireError(t, res)
	assert.Equal(t, errors.NotFound, e.Code, "a denied tool is unknown to a program: %s", text(res))
	assert.NotContains(t, text(res), "denied", "nor that a policy hides it")
	trace, _ := res.Meta[toolserver.MetaTraceKey].([]any)
	require.Len(t, trace, 1)

	// A refused tool is not offered to a program either, and a program
	// that catches the answer goes on.
	res = call(t, cs, toolserver.ToolExecuteCode, map[string]any{"code": `
		const ids = (await tools.search("github", 10)).map((t) => t.id);
		let refused = "";
		try { await tools.run("github:create_issue", {title: "x"}) } catch (e) { refused = e.code }
		return {ids, refused, code: (await tools.github.search_code({q: "x"}))[0]};`})
	require.False(t, res.IsError, text(res))
	var out executeResult
	structured(t, res, &out)
	assert.JSONEq(t, `{"ids":["github:search_code"],"refused":"not_found","code":"main.go"}`, string(out.Value))
}

func TestDescribeToolTypeScript(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)
	res := call(t, cs, toolserver.ToolDescribe, map[string]any{"id": "github:create_issue", "format": "typescript"})
	require.False(t, res.IsError, text(res))
	var out struct{ ID, Level, TypeScript string }
	structured(t, res, &out)
	assert.Equal(t, "github:create_issue", out.ID)
	assert.Contains(t, out.TypeScript, "create_issue(args: GithubCreateIssueArgs)")
	assert.Contains(t, out.TypeScript, "title: string;")
	assert.Equal(t, out.TypeScript, text(res))

	res = call(t, cs, toolserver.ToolDescribe, map[string]any{"id": "nope:none", "format": "typescript"})
	assert.Equal(t, errors.NotFound, wireError(t, res).Code)

	// Without code mode the argument is not offered.
	cs = connect(t, newCatalogue(t).server(), nil)
	res = call(t, cs, toolserver.ToolDescribe, map[string]any{"id": "github:create_issue", "format": "typescript"})
	assert.Equal(t, errors.InvalidArgument, wireError(t, res).Code)
}

// listedTool returns the definition of a tool in a session's tools/list.
func listedTool(t *testing.T, cs *mcp.ClientSession, name string) *mcp.Tool {
	t.Helper()
	list, err := cs.ListTools(context.Background(), nil)
	require.NoError(t, err)
	for _, tool := range list.Tools {
		if tool.Name == name {
			return tool
		}
	}
	require.Failf(t, "tool not listed", "%s is not in tools/list", name)
	return nil
}

// searchAnswer is search_tools' structured answer.
type searchAnswer struct {
	Tools      []struct{ ID, Description string } `json:"tools"`
	TypeScript *string                            `json:"typescript"`
}

func TestSearchDeclaresTheToolsItFindsInCodeMode(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(toolserver.WithCodeMode(toolserver.CodeMode{})), nil)

	execute := listedTool(t, cs, toolserver.ToolExecuteCode)
	assert.Contains(t, execute.Description, "First find the tools with search_tools")
	assert.Contains(t, execute.Description, "`await tools.<namespace>.<name>(args)`")
	search := listedTool(t, cs, toolserver.ToolSearch)
	assert.Contains(t, search.Description, "TypeScript declarations")
	schema, err := json.Marshal(search.OutputSchema)
	require.NoError(t, err)
	assert.Contains(t, string(schema), `"typescript"`)

	res := call(t, cs, toolserver.ToolSearch, map[string]any{"query": "github"})
	require.False(t, res.IsError, text(res))
	var out searchAnswer
	structured(t, res, &out)
	require.Len(t, out.Tools, 2)
	require.NotNil(t, out.TypeScript)
	decl := *out.TypeScript
	assert.Contains(t, decl, "declare const tools: Tools;")
	assert.Contains(t, decl, "create_issue(args: GithubCreateIssueArgs): Promise<unknown>;")
	assert.Contains(t, decl, "search_code(args?: GithubSearchCodeArgs): Promise<unknown>;")
	assert.Contains(t, decl, "Create a new issue in a GitHub repository.", "the declarations carry the descriptions")
	assert.NotContains(t, decl, "read_file", "only the tools found are declared")
	// Declarations of many tools are terse: first sentences only;
	// describe_tool gives a tool's whole declaration.
	assert.NotContains(t, decl, "Needs a title.")
	full := call(t, cs, toolserver.ToolDescribe, map[string]any{"id": "github:create_issue", "format": "typescript"})
	assert.Contains(t, text(full), "Needs a title.")
	// The text names the IDs once, best first, then declares them: each
	// description is said once.
	assert.Equal(t, "Found, best first: "+out.Tools[0].ID+", "+out.Tools[1].ID+"\n"+decl, text(res))
	assert.Equal(t, 1, strings.Count(text(res), "Create a new issue in a GitHub repository."))

	// A program written from the declarations runs.
	res = call(t, cs, toolserver.ToolExecuteCode, map[string]any{"language": "typescript",
		"code": `const a: unknown = await tools.github.create_issue({title: "t"}); return [a, await tools.github.search_code()];`})
	require.False(t, res.IsError, text(res))
	var ran executeResult
	structured(t, res, &ran)
	assert.JSONEq(t, `[{"number":7,"title":"t"},["main.go"]]`, string(ran.Value))

	// Nothing found, nothing declared.
	res = call(t, cs, toolserver.ToolSearch, map[string]any{"query": "zzzz qqqq"})
	out = searchAnswer{}
	structured(t, res, &out)
	assert.Empty(t, out.Tools)
	assert.Nil(t, out.TypeScript)
	assert.Equal(t, "No tool matches. Try other words, or list_namespaces.\n", text(res))
}

func TestSearchDeclaresNothingWithoutCodeMode(t *testing.T) {
	cs := connect(t, newCatalogue(t).server(), nil)
	search := listedTool(t, cs, toolserver.ToolSearch)
	assert.NotContains(t, search.Description, "TypeScript")
	schema, err := json.Marshal(search.OutputSchema)
	require.NoError(t, err)
	assert.NotContains(t, string(schema), "typescript")

	res := call(t, cs, toolserver.ToolSearch, map[string]any{"query": "github"})
	require.False(t, res.IsError, text(res))
	var out searchAnswer
	structured(t, res, &out)
	require.Len(t, out.Tools, 2)
	assert.Nil(t, out.TypeScript)
	assert.Equal(t, out.Tools[0].ID+" — "+out.Tools[0].Description+"\n"+out.Tools[1].ID+" — "+out.Tools[1].Description+"\n", text(res))
}
