package javascript_test

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolrun"
)

// declaredCall is a call of one tool, written as its declaration says.
type declaredCall struct {
	id   string // the tool the declaration documents
	call string // the JavaScript expression of the function to call
	byID bool   // an overload of run: the call takes the ID first
}

var (
	docLine    = regexp.MustCompile(`^\s*/\*\* tool (\S+) \*/$`)
	openMember = regexp.MustCompile(`^  ("[^"]*"|[A-Za-z_$][\w$]*): \{$`)
	runLine    = regexp.MustCompile(`^  run\(id: ("[^"]*"), args`)
	method     = regexp.MustCompile(`^(\s*)("[^"]*"|[A-Za-z_$][\w$]*)?\(args`)
)

// member is how a program reads the property key (as declared: a name, or
// a quoted string) of obj.
func member(obj, key string) string {
	if strings.HasPrefix(key, `"`) {
		return obj + "[" + key + "]"
	}
	return obj + "." + key
}

// declaredCalls reads the root interface of declarations rendered by
// tooldocs.TypeScript (each tool documented as "tool <id>") and returns,
// for each tool, the call its declaration offers.
func declaredCalls(t *testing.T, decls string) []declaredCall {
	t.Helper()
	_, body, ok := strings.Cut(decls, "interface Tools {\n")
	require.True(t, ok, decls)
	body, _, ok = strings.Cut(body, "\n}\ndeclare const tools: Tools;")
	require.True(t, ok, decls)
	var calls []declaredCall
	id, namespace := "", ""
	for line := range strings.SplitSeq(body, "\n") {
		if m := docLine.FindStringSubmatch(line); m != nil {
			id = m[1]
			continue
		}
		if m := openMember.FindStringSubmatch(line); m != nil {
			namespace = m[1]
			continue
		}
		if line == "  };" {
			namespace = ""
			continue
		}
		if m := runLine.FindStringSubmatch(line); m != nil {
			declared, err := strconv.Unquote(m[1])
			require.NoError(t, err)
			require.Equal(t, id, declared, "the overload of run of %s names its ID", id)
			calls = append(calls, declaredCall{id: id, call: "tools.run", byID: true})
			id = ""
			continue
		}
		m := method.FindStringSubmatch(line)
		require.NotNil(t, m, "unexpected line %q in\n%s", line, decls)
		require.NotEmpty(t, id, "a method without its JSDoc: %q", line)
		obj := "tools"
		if namespace != "" {
			require.Len(t, m[1], 4, "a namespace's method: %q", line)
			obj = member(obj, namespace)
		}
		call := obj
		if m[2] != "" {
			call = member(obj, m[2])
		}
		calls = append(calls, declaredCall{id: id, call: call})
		id = ""
	}
	return calls
}

// TestDeclarationsCallTheirTools renders with tooldocs the declarations of
// tools whose names the engine keeps for itself (every name of
// tooldocs.ReservedNames, as a namespace and as a tool without namespace),
// tools named then, names that are not identifiers and reserved words of
// JavaScript, then runs, in JavaScript and in TypeScript (the declarations
// included), a program that calls each tool exactly as declared: each call
// reaches the tool its declaration documents, with its arguments.
func TestDeclarationsCallTheirTools(t *testing.T) {
	ctx := context.Background()
	ids := []string{
		"run:echo", "ns", "ns:inner", "then", "then:x", "util:then", "util:echo",
		"12306-mcp:then", "12306-mcp:get-tickets", "fs", "fs:then", "fs:stat",
		"class:delete", "plain", "constructor", "x:constructor", "x:call", "x:name",
		"run-x:run", "_:_", "a.b:c.d", "123", "0:1",
	}
	for _, name := range tooldocs.ReservedNames() {
		ids = append(ids, name, name+":x", "y:"+name)
	}

	idx := toolindex.New()
	local := toolrun.NewLocalExecutor()
	var tools []toolmodel.Tool
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			continue
		}
		seen[id] = true
		var tool toolmodel.Tool
		tool.Name = id
		if ns, name, ok := strings.Cut(id, ":"); ok {
			tool.Namespace, tool.Name = ns, name
		}
		tool.Description = "tool " + id
		tool.InputSchema = json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}},"required":["n"]}`)
		local.Register(id, func(_ context.Context, args map[string]any) (any, error) {
			return map[string]any{"id": id, "n": args["n"]}, nil
		})
		require.NoError(t, idx.Register(ctx, toolindex.Registration{Tool: tool, Backend: toolrun.LocalBackendFor(id)}))
		tools = append(tools, tool)
	}
	runner := toolrun.New(toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendLocal: local}), toolrun.WithIndex(idx))
	ops, err := toolops.New(idx, nil, runner)
	require.NoError(t, err)
	x := toolcode.New(ops, toolcode.WithEngine(javascript.New()), toolcode.WithEngine(javascript.NewTypeScript()))

	decls, err := tooldocs.TypeScript(tools, tooldocs.TypeScriptOptions{})
	require.NoError(t, err)
	calls := declaredCalls(t, decls)
	require.Len(t, calls, len(tools), "one declaration per tool:\n%s", decls)

	var program strings.Builder
	program.WriteString("const out = [];\n")
	want := make([]map[string]any, len(calls))
	for i, c := range calls {
		if c.byID {
			fmt.Fprintf(&program, "out.push(await %s(%q, {n: %d}));\n", c.call, c.id, i)
		} else {
			fmt.Fprintf(&program, "out.push(await %s({n: %d}));\n", c.call, i)
		}
		want[i] = map[string]any{"id": c.id, "n": float64(i)}
	}
	program.WriteString("return out;\n")

	for _, lang := range []string{javascript.LanguageJavaScript, javascript.LanguageTypeScript} {
		t.Run(lang, func(t *testing.T) {
			code := program.String()
			if lang == javascript.LanguageTypeScript {
				code = decls + "\n" + code
			}
			res, err := x.Execute(ctx, toolcode.ExecuteParams{Language: lang, Code: code, Limits: toolcode.Limits{ToolCalls: len(calls)}})
			require.NoError(t, err, "%s\n%s", decls, code)
			var got []map[string]any
			require.NoError(t, json.Unmarshal(res.Value, &got))
			assert.Equal(t, want, got, "each call reaches its tool:\n%s", code)
			require.Len(t, res.Trace, len(calls))
			for i, entry := range res.Trace {
				assert.Equal(t, calls[i].id, entry.ToolID)
				assert.True(t, entry.OK, entry.ToolID)
			}
		})
	}
}

// TestReservedNamesAreTheEngines checks that the engine answers exactly
// tooldocs.ReservedNames itself: each is one of its functions (then is
// undefined, on the root and on a namespace), and any other name is a
// namespace.
func TestReservedNamesAreTheEngines(t *testing.T) {
	x := newExecutor(t)
	names, err := json.Marshal(tooldocs.ReservedNames())
	require.NoError(t, err)
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: `
		const kinds = {};
		for (const name of ` + string(names) + `.concat(["plain", "util", "runs", "Then"])) {
			const v = tools[name];
			// An engine's function has a name; a namespace's "name" is
			// the tool of that name.
			kinds[name] = typeof v === "function" && typeof v.name === "string" ? "function " + v.name : typeof v;
		}
		kinds["util.then"] = typeof tools.util.then;
		kinds["await tools"] = (await tools) === tools;
		kinds["await tools.util"] = (await tools.util) === tools.util;
		return kinds;`})
	require.NoError(t, err)
	assert.JSONEq(t, `{
		"run": "function run", "search": "function search", "namespaces": "function namespaces",
		"describe": "function describe", "examples": "function examples", "chain": "function chain",
		"ns": "function ns", "log": "function log", "then": "undefined",
		"plain": "function", "util": "function", "runs": "function", "Then": "function",
		"util.then": "undefined", "await tools": true, "await tools.util": true
	}`, string(res.Value))
}
