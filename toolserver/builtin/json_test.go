package builtin_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/builtin"
)

func TestJSONQuery(t *testing.T) {
	h := newHarness(t)
	doc := map[string]any{
		"users": []any{
			map[string]any{"name": "Ada", "age": 36, "langs": []any{"go", "c"}},
			map[string]any{"name": "Linus", "age": 54, "langs": []any{"c"}},
		},
	}
	tests := []struct {
		name      string
		args      map[string]any
		want      []any
		truncated bool
	}{
		{"a path", map[string]any{"query": ".users[0].name", "input": doc}, []any{"Ada"}, false},
		{"several results", map[string]any{"query": ".users[] | select(.age > 40) | .name", "input": doc}, []any{"Linus"}, false},
		{"reshaping", map[string]any{"query": "[.users[] | {name, n: (.langs | length)}]", "input": doc},
			[]any{[]any{map[string]any{"name": "Ada", "n": 2.0}, map[string]any{"name": "Linus", "n": 1.0}}}, false},
		{"a document as text", map[string]any{"query": ".a + 1", "inputText": ` {"a": 41} `}, []any{42.0}, false},
		{"large integers of a text keep their precision", map[string]any{"query": ".id | tostring", "inputText": `{"id": 12345678901234567890}`}, []any{"12345678901234567890"}, false},
		{"no input is null", map[string]any{"query": "[range(3)]"}, []any{[]any{0.0, 1.0, 2.0}}, false},
		{"a scalar input", map[string]any{"query": ". * 2", "input": 21}, []any{42.0}, false},
		{"variables", map[string]any{"query": "[.users[] | select(.age >= $min) | .name]", "input": doc, "variables": map[string]any{"min": 50}}, []any{[]any{"Linus"}}, false},
		{"no result", map[string]any{"query": "empty"}, []any{}, false},
		{"the results are cut at maxResults", map[string]any{"query": "range(10)", "maxResults": 3}, []any{0.0, 1.0, 2.0}, true},
		{"exactly maxResults results are not truncated", map[string]any{"query": "range(3)", "maxResults": 3}, []any{0.0, 1.0, 2.0}, false},
		{"the results are cut at 1 MiB", map[string]any{"query": `range(3) | "x" * 600000`}, []any{strings.Repeat("x", 600000)}, true},
		{"halt ends the results", map[string]any{"query": "1, halt, 2"}, []any{1.0}, false},
		{"NaN is null", map[string]any{"query": "nan"}, []any{nil}, false},
		{"the environment is not readable", map[string]any{"query": "[$ENV, env] | map(length)"}, []any{[]any{0.0, 0.0}}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "json:query", tt.args)
			assert.Equal(t, tt.want, out["results"])
			assert.InDelta(t, float64(len(tt.want)), out["count"], 0)
			assert.Equal(t, tt.truncated, out["truncated"])
		})
	}
}

func TestJSONQueryReportsBadQueriesAsToolFailures(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"a syntax error", map[string]any{"query": ".a | )"}, `invalid query: unexpected token ")" at offset 5`},
		{"an unterminated string", map[string]any{"query": `.a + "abc`}, "invalid query: unterminated string literal"},
		{"an unknown function", map[string]any{"query": "frobnicate"}, "invalid query: function not defined: frobnicate/0"},
		{"an undefined variable", map[string]any{"query": "$nope"}, "invalid query: variable not defined: $nope"},
		{"reading further inputs", map[string]any{"query": "input"}, "invalid query:"},
		{"a runtime error", map[string]any{"query": ".[]", "input": 3}, "query failed: cannot iterate over: number (3)"},
		{"error()", map[string]any{"query": `error("boom")`}, "query failed: error: boom"},
		{"halt_error", map[string]any{"query": `"bye" | halt_error`}, "query failed:"},
		{"invalid text", map[string]any{"query": ".", "inputText": `{"a": }`}, "inputText is not valid JSON: invalid character '}' looking for beginning of value (at offset 7)"},
		{"truncated text", map[string]any{"query": ".", "inputText": `{"a": [1, 2`}, "inputText is not valid JSON: it ends before the value does"},
		{"two values", map[string]any{"query": ".", "inputText": `{} {}`}, "inputText is not valid JSON: more data follows the value that ends at offset 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, h.toolError(t, "json:query", tt.args), tt.want)
		})
	}
}

func TestJSONQueryRefusesInvalidArguments(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"both input and inputText", map[string]any{"query": ".", "input": 1, "inputText": "1"}, "give the document as input or as inputText, not both"},
		{"maxResults above the limit", map[string]any{"query": ".", "maxResults": 1001}, "/maxResults"},
		{"an empty query", map[string]any{"query": ""}, "/query"},
		{"a bad variable name", map[string]any{"query": ".", "variables": map[string]any{"a-b": 1}}, "/variables"},
		{"a too long document", map[string]any{"query": ".", "inputText": `"` + strings.Repeat("x", 4<<20) + `"`}, "inputText is 4194306 bytes long, the limit is 4194304"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := h.runError(t, "json:query", tt.args)
			assert.Equal(t, errors.Validation, code)
			assert.Contains(t, msg, tt.want)
		})
	}
}

func TestJSONQueryStopsAtItsTimeLimit(t *testing.T) {
	// The query never ends: its own time limit, not the caller's, stops it.
	h := newHarness(t, builtin.WithQueryTimeout(20*time.Millisecond))
	msg := h.toolError(t, "json:query", map[string]any{"query": "last(repeat(1))"})
	assert.Equal(t, "the query did not finish within 20ms", msg)
}

func TestJSONQueryStopsWhenTheCallIsCanceled(t *testing.T) {
	h := newHarness(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := h.runner.Run(ctx, "json:query", map[string]any{"query": "last(repeat(1))"})
	require.ErrorIs(t, err, errors.ErrCanceled)
}
