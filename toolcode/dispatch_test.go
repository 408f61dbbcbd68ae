package toolcode_test

import (
	"context"
	"encoding/json"
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/tooldocs"
	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolops"
)

// echoTools answers each operation with what it was asked.
type echoTools struct{}

func (echoTools) Search(_ context.Context, req toolops.SearchRequest) (toolops.SearchResult, error) {
	return toolops.SearchResult{Tools: []toolindex.Summary{{ID: req.Query, Score: float64(req.Limit)}}}, nil
}
func (echoTools) Namespaces(context.Context) ([]string, error) { return []string{"ns"}, nil }
func (echoTools) Describe(_ context.Context, req toolops.DescribeRequest) (tooldocs.Doc, error) {
	return tooldocs.Doc{ID: req.ID, Name: req.Level}, nil
}
func (echoTools) Examples(_ context.Context, req toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	return []tooldocs.Example{{Name: req.ID, Args: map[string]any{"limit": req.Limit}}}, nil
}
func (echoTools) Run(_ context.Context, id string, args map[string]any) (any, error) {
	return map[string]any{"id": id, "args": args}, nil
}
func (echoTools) Chain(_ context.Context, steps []toolops.ChainStep) ([]any, error) {
	return []any{steps}, nil
}
func (echoTools) Log(context.Context, string) error { return nil }

type panicTools struct{ echoTools }

func (panicTools) Namespaces(context.Context) ([]string, error) { panic("boom") }

// nilTools answers with nil lists.
type nilTools struct{ echoTools }

func (nilTools) Search(context.Context, toolops.SearchRequest) (toolops.SearchResult, error) {
	return toolops.SearchResult{}, nil
}
func (nilTools) Namespaces(context.Context) ([]string, error) { return nil, nil }
func (nilTools) Examples(context.Context, toolops.ExamplesRequest) ([]tooldocs.Example, error) {
	return nil, nil
}

type undefined = toolcode.Undefined

func TestDispatch(t *testing.T) {
	step := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	tests := []struct {
		name, fn, tool string
		args           []any
		want           string // the JSON of the result
		wantErr        string // or the error's message
	}{
		{"tool", "", "math:add", []any{map[string]any{"a": 1.0}}, `{"id":"math:add","args":{"a":1}}`, ""},
		{"tool without arguments", "", "plain", nil, `{"id":"plain","args":{}}`, ""},
		{"tool with undefined", "", "plain", []any{undefined{}}, `{"id":"plain","args":{}}`, ""},
		{"tool with null", "", "plain", []any{nil}, `{"id":"plain","args":{}}`, ""},
		{"tool with an array", "", "math:add", []any{[]any{1.0}}, "", `tool "math:add": the arguments must be an object, not array`},
		{"tool with a function", "", "math:add", []any{toolcode.Opaque("function")}, "", `tool "math:add": the arguments must be an object, not function`},
		{"tool with two arguments", "", "math:add", []any{map[string]any{}, undefined{}}, "", `tool "math:add": expected at most 1 argument (the arguments object), got 2`},
		{"run", "run", "", []any{"math:add", map[string]any{"a": 1.0}}, `{"id":"math:add","args":{"a":1}}`, ""},
		{"run without arguments", "run", "", []any{"plain"}, `{"id":"plain","args":{}}`, ""},
		{"run without ID", "run", "", nil, "", "tools.run: missing the tool ID (a string)"},
		{"run with a number ID", "run", "", []any{5.0}, "", "tools.run: the tool ID must be a string, not number"},
		{"run with a string for arguments", "run", "", []any{"math:add", "a"}, "", `tool "math:add": the arguments must be an object, not string`},
		{"run with three arguments", "run", "", []any{"math:add", nil, undefined{}}, "", "tools.run: expected at most 2 arguments (id, args), got 3"},
		{"search with a limit", "search", "", []any{"add", 3.0}, `[{"id":"add","name":"","backends":null,"score":3}]`, ""},
		{"search with a huge limit", "search", "", []any{"add", 1e300}, `[{"id":"add","name":"","backends":null,"score":2147483647}]`, ""},
		{"search without a limit", "search", "", []any{"add"}, `[{"id":"add","name":"","backends":null}]`, ""},
		{"search with a null limit", "search", "", []any{"add", nil}, `[{"id":"add","name":"","backends":null}]`, ""},
		{"search with a negative limit", "search", "", []any{"add", -1.0}, "", "tools.search: the limit must be a whole number of at least 1, not -1"},
		{"search with a zero limit", "search", "", []any{"add", 0.0}, "", "tools.search: the limit must be a whole number of at least 1, not 0"},
		{"search with a fractional limit", "search", "", []any{"add", 1.5}, "", "tools.search: the limit must be a whole number of at least 1, not 1.5"},
		{"search with NaN", "search", "", []any{"add", math.NaN()}, "", "tools.search: the limit must be a whole number of at least 1, not NaN"},
		{"search with -Infinity", "search", "", []any{"add", math.Inf(-1)}, "", "tools.search: the limit must be a whole number of at least 1, not -Infinity"},
		{"search with a tiny limit", "search", "", []any{"add", 1e-7}, "", "tools.search: the limit must be a whole number of at least 1, not 1e-7"},
		{"search with a text limit", "search", "", []any{"add", "one"}, "", "tools.search: the limit must be a number, not string"},
		{"search with a BigInt limit", "search", "", []any{"add", toolcode.Opaque("bigint")}, "", "tools.search: the limit must be a number, not bigint"},
		{"search without query", "search", "", []any{}, "", "tools.search: missing the query (a string)"},
		{"search with an object query", "search", "", []any{map[string]any{}}, "", "tools.search: the query must be a string, not object"},
		{"namespaces", "namespaces", "", nil, `["ns"]`, ""},
		{"namespaces with an argument", "namespaces", "", []any{undefined{}}, "", "tools.namespaces: expected no arguments, got 1"},
		{"describe", "describe", "", []any{"math:add", "FULL"}, `{"id":"math:add","level":"summary","name":"FULL"}`, ""},
		{"describe at the default level", "describe", "", []any{"math:add", nil}, `{"id":"math:add","level":"summary","name":""}`, ""},
		{"describe at a number", "describe", "", []any{"math:add", 2.0}, "", `tools.describe: the detail level must be "summary", "schema" or "full", not 2`},
		{"examples", "examples", "", []any{"math:add", 2.0}, `[{"name":"math:add","args":{"limit":2}}]`, ""},
		{"examples without a limit", "examples", "", []any{"math:add"}, `[{"name":"math:add","args":{"limit":0}}]`, ""},
		{"examples with a negative limit", "examples", "", []any{"math:add", -5.0}, "", "tools.examples: the limit must be a whole number of at least 1, not -5"},
		{"chain", "chain", "", []any{[]any{step("id", "math:add", "usePrevious", true, "previousKey", "p", "args", map[string]any{})}}, `[[{"id":"math:add","usePrevious":true,"previousKey":"p"}]]`, ""},
		{"chain without steps", "chain", "", nil, "", "tools.chain: missing the steps (an array of {id, args, usePrevious, previousKey})"},
		{"chain of no steps", "chain", "", []any{[]any{}}, `[[]]`, ""},
		{"chain of the wrong shape", "chain", "", []any{map[string]any{"id": "math:add"}}, "", "tools.chain: the steps must be an array of {id, args, usePrevious, previousKey}, not object"},
		{"chain step not an object", "chain", "", []any{[]any{"math:add"}}, "", "tools.chain: step 0 must be an object {id, args, usePrevious, previousKey}, not string"},
		{"chain step without tool", "chain", "", []any{[]any{step("args", map[string]any{})}}, "", "tools.chain: step 0: missing id"},
		{"chain step with a null tool", "chain", "", []any{[]any{step("id", nil)}}, "", "tools.chain: step 0: id must be a string, not null"},
		{"chain step with faults", "chain", "", []any{[]any{step("id", 1.0, "zz", 1.0, "aa", 1.0)}}, "", `tools.chain: step 0: unknown field "aa" (a step is {id, args, usePrevious, previousKey})`},
		{"chain step with text arguments", "chain", "", []any{[]any{step("id", "a", "args", "x")}}, "", "tools.chain: step 0: args must be an object, not string"},
		{"chain step with a number usePrevious", "chain", "", []any{[]any{step("id", "a", "usePrevious", 1.0)}}, "", "tools.chain: step 0: usePrevious must be a boolean, not number"},
		{"chain step with a boolean previousKey", "chain", "", []any{[]any{step("id", "a", "previousKey", true)}}, "", "tools.chain: step 0: previousKey must be a string, not boolean"},
		{"unknown function", "delete", "", nil, "", "tools.delete is not a function of the tools"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := toolcode.Dispatch(context.Background(), echoTools{}, tt.fn, tt.tool, tt.args)
			if tt.wantErr != "" {
				require.Error(t, err)
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
				assert.Equal(t, tt.wantErr, err.Error())
				return
			}
			require.NoError(t, err)
			b, err := json.Marshal(out)
			require.NoError(t, err)
			assert.JSONEq(t, tt.want, string(b))
		})
	}
}

// TestDispatchNamesTheTool checks that an error about a tool's arguments
// carries its ID, which the engines give the program's Error as toolId.
func TestDispatchNamesTheTool(t *testing.T) {
	for _, fn := range []string{"", "run"} {
		args := []any{"x"}
		if fn == "run" {
			args = []any{"math:add", "x"}
		}
		_, err := toolcode.Dispatch(context.Background(), echoTools{}, fn, "math:add", args)
		var e *errors.Error
		require.ErrorAs(t, err, &e)
		assert.Equal(t, "math:add", e.ToolID)
	}
}

// TestDispatchListsAreNeverNil checks that a program gets an empty list,
// not null, from tools that answer nil.
func TestDispatchListsAreNeverNil(t *testing.T) {
	for fn, args := range map[string][]any{"search": {"q"}, "namespaces": nil, "examples": {"math:add"}} {
		out, err := toolcode.Dispatch(context.Background(), nilTools{}, fn, "", args)
		require.NoError(t, err)
		b, err := json.Marshal(out)
		require.NoError(t, err)
		assert.Equal(t, "[]", string(b), fn)
	}
}

func TestDispatchRecoversAPanic(t *testing.T) {
	_, err := toolcode.Dispatch(context.Background(), panicTools{}, "namespaces", "", nil)
	require.Error(t, err)
	assert.Equal(t, errors.Internal, errors.CodeOf(err))
	assert.Contains(t, err.Error(), "boom")
}

// FuzzDispatch calls every function with arguments decoded from arbitrary
// JSON: Dispatch never panics, and it either calls the tools or refuses
// with invalid_argument.
func FuzzDispatch(f *testing.F) {
	for _, s := range []string{`[]`, `["math:add", {"a": 1}]`, `["q", 3]`, `["q", -1.5]`, `[[{"id": "a", "args": {}, "usePrevious": true}]]`,
		`[[{"id": 1}]]`, `[null, null, null]`, `["x", "summary"]`, `[{"__proto__": 1}]`} {
		f.Add(s)
	}
	fns := []string{"", "run", "search", "namespaces", "describe", "examples", "chain", "nope"}
	f.Fuzz(func(t *testing.T, text string) {
		var args []any
		if json.Unmarshal([]byte(text), &args) != nil {
			return
		}
		for _, fn := range fns {
			_, err := toolcode.Dispatch(context.Background(), echoTools{}, fn, "t:x", args)
			if err != nil {
				require.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "tools.%s%s: %v", fn, text, err)
				require.NotEmpty(t, err.Error())
			}
		}
	})
}
