package builtin_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/errors"
)

func TestMathEval(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want float64
	}{
		{"precedence", map[string]any{"expression": "2 + 3 * 4"}, 14},
		{"floating point as computed", map[string]any{"expression": "0.1 + 0.2"}, 0.30000000000000004},
		{"variables", map[string]any{"expression": "price * qty * (1 - discount)", "variables": map[string]any{"price": 19.99, "qty": 3, "discount": 0.1}}, 53.973},
		{"functions and constants", map[string]any{"expression": "round(2 * pi * 1.5, 3)"}, 9.425},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "math:eval", tt.args)
			assert.InDelta(t, tt.want, out["value"], 1e-12)
		})
	}
}

func TestMathEvalReportsBadExpressionsAsToolFailures(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		expr string
		want string
	}{
		{"(1 + 2))", "unexpected ')' at offset 7"},
		{"1 / 0", "division by zero at offset 2"},
		{"sqrt(-4)", "not a real number"},
		{"price * 2", `unknown name "price"`},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			assert.Contains(t, h.toolError(t, "math:eval", map[string]any{"expression": tt.expr}), tt.want)
		})
	}
}

func TestMathEvalRefusesWhatTheSchemaForbids(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no expression", map[string]any{}, "/expression"},
		{"an empty expression", map[string]any{"expression": ""}, "/expression"},
		{"a too long expression", map[string]any{"expression": strings.Repeat("1", 4097)}, "/expression"},
		{"a variable name that is not a name", map[string]any{"expression": "1", "variables": map[string]any{"a b": 1}}, "/variables"},
		{"a variable that is not a number", map[string]any{"expression": "x", "variables": map[string]any{"x": "one"}}, `/variables: type: one has type "string"`},
		{"an unknown argument", map[string]any{"expression": "1", "precision": 2}, "precision"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, msg := h.runError(t, "math:eval", tt.args)
			assert.Equal(t, errors.Validation, code)
			assert.Contains(t, msg, tt.want)
		})
	}
}
