package builtin

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEvalExprValues(t *testing.T) {
	vars := map[string]float64{"x": 3, "rate_2": 0.5}
	tests := []struct {
		expr string
		want float64
	}{
		{"42", 42},
		{"1.5e3", 1500},
		{"2E-2", 0.02},
		{".5 + 5.", 5.5},
		{"1 + 2 * 3", 7},
		{"(1 + 2) * 3", 9},
		{"10 - 4 - 3", 3},
		{"100 / 10 / 5", 2},
		{"7 % 3", 1},
		{"-7 % 3", -1},
		{"5.5 % 2", 1.5},
		{"2 ^ 10", 1024},
		{"2 ** 10", 1024},
		{"2 ^ 3 ^ 2", 512},
		{"-2 ^ 2", -4},
		{"(-2) ^ 2", 4},
		{"2 ^ -1", 0.5},
		{"--3", 3},
		{"+-+3", -3},
		{"2 * -3", -6},
		{"-x ^ 2 + rate_2", -8.5},
		{"pi", math.Pi},
		{"e", math.E},
		{"sqrt(16) + abs(-2)", 6},
		{"cbrt(27)", 3},
		{"min(3, 1, 2) + max(4, 9, 5)", 10},
		{"min(7)", 7},
		{"round(2.5)", 3},
		{"round(-2.5)", -3},
		{"round(3.14159, 2)", 3.14},
		{"round(1234.5, -2)", 1200},
		{"round(1e300, 2)", 1e300},
		{"floor(-1.5) + ceil(1.2) + trunc(-1.7)", -1},
		{"ln(e) + log10(1000) + log2(8) + exp(0)", 8},
		{"sin(pi / 2) + cos(0) + tan(0)", 2},
		{"asin(1) + acos(1) + atan(0)", math.Pi / 2},
		{"atan2(1, 1)", math.Pi / 4},
		{"pow(2, 8) + hypot(3, 4)", 261},
		{"sqrt (4)", 2},
		{" \t1\n+\r2 ", 3},
		{"-0", 0},
		{"0 ^ 0", 1},
	}
	for _, tt := range tests {
		t.Run(tt.expr, func(t *testing.T) {
			got, err := evalExpr(tt.expr, vars)
			require.NoError(t, err)
			assert.InDelta(t, tt.want, got, 1e-12*math.Max(1, math.Abs(tt.want)))
		})
	}
}

func TestEvalExprNegativeZeroIsZero(t *testing.T) {
	got, err := evalExpr("-0 * 5", nil)
	require.NoError(t, err)
	assert.False(t, math.Signbit(got))
}

func TestEvalExprErrors(t *testing.T) {
	vars := map[string]float64{"x": 1}
	tests := []struct {
		name string
		expr string
		vars map[string]float64
		want string
	}{
		{"empty", "  ", nil, "empty expression"},
		{"stray closing parenthesis", "(1 + 2))", nil, "unexpected ')' at offset 7"},
		{"missing operand", "1 +", nil, "unexpected end of expression at offset 3"},
		{"missing closing parenthesis", "2 * (3 + 4", nil, "missing ')' for the '(' at offset 4"},
		{"two operators", "1 * / 2", nil, "unexpected '/' at offset 4"},
		{"implicit multiplication", "2pi", nil, "unexpected 'p' at offset 1"},
		{"two decimal points", "1.2.3", nil, "unexpected '.' at offset 3"},
		{"a lone point", "1 + .", nil, "unexpected '.' at offset 4"},
		{"a non-ASCII character", "2 × 3", nil, "unexpected '×' at offset 2"},
		{"a comma outside a call", "1, 2", nil, "unexpected ',' at offset 1"},
		{"a trailing comma", "max(1, 2,)", nil, "unexpected ')' at offset 9"},
		{"unknown name", "y + 1", vars, `unknown name "y" at offset 0 (known: the constants pi and e, the variables x)`},
		{"unknown name without variables", "y", nil, `unknown name "y" at offset 0 (known: the constants pi and e, no variables)`},
		{"unknown function", "1 + foo(2)", nil, `unknown function "foo" at offset 4`},
		{"function without parentheses", "sqrt 4", nil, "function sqrt at offset 0 needs its arguments in parentheses"},
		{"too many arguments", "sqrt(4, 9)", nil, "sqrt takes 1 argument, got 2 (at offset 0)"},
		{"too few arguments", "hypot(3)", nil, "hypot takes 2 arguments, got 1 (at offset 0)"},
		{"no arguments", "max()", nil, "max takes at least 1 argument, got 0 (at offset 0)"},
		{"round arguments", "round(1, 2, 3)", nil, "round takes 1 or 2 arguments, got 3"},
		{"round digits", "round(1, 0.5)", nil, "round at offset 0: the number of digits must be a whole number from -15 to 15"},
		{"division by zero", "1 / (2 - 2)", nil, "division by zero at offset 2"},
		{"remainder by zero", "5 % 0", nil, "division by zero at offset 2"},
		{"not a real number", "sqrt(-1)", nil, "result of sqrt at offset 0 is not a real number"},
		{"logarithm of zero", "2 * ln(0)", nil, "result of ln at offset 4 is too large (infinite)"},
		{"power overflow", "10 ^ 400", nil, "result of '^' at offset 3 is too large (infinite)"},
		{"product overflow", "1e200 * 1e200", nil, "result of '*' at offset 6 is too large (infinite)"},
		{"sum overflow", "1.7e308 + 1.7e308", nil, "result of '+' at offset 8 is too large (infinite)"},
		{"fractional power of a negative", "(-8) ^ (1/3)", nil, "result of '^' at offset 5 is not a real number"},
		{"number out of range", "1e400", nil, "number 1e400 at offset 0 is too large"},
		{"too long", strings.Repeat("1+", 2048) + "1", nil, "expression is 4097 bytes long, the limit is 4096"},
		{"too deep parentheses", strings.Repeat("(", 101) + "1" + strings.Repeat(")", 101), nil, "expression nests more than 100 levels deep at offset 100"},
		{"too many signs", strings.Repeat("-", 200) + "1", nil, "expression nests more than 100 levels deep"},
		{"too deep powers", strings.Repeat("1^", 150) + "1", nil, "expression nests more than 100 levels deep"},
		{"variable that is not a name", "1", map[string]float64{"2x": 1}, `variable name "2x" is not a name`},
		{"variable hiding a constant", "1", map[string]float64{"pi": 3}, `variable "pi" would hide the constant of that name`},
		{"variable hiding a function", "1", map[string]float64{"sqrt": 3}, `variable "sqrt" would hide the function of that name`},
		{"variable that is not finite", "1", map[string]float64{"x": math.Inf(1)}, `variable "x" is not a finite number`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := evalExpr(tt.expr, tt.vars)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestEvalExprAcceptsTheDeepestNesting(t *testing.T) {
	got, err := evalExpr(strings.Repeat("(", 99)+"7"+strings.Repeat(")", 99), nil)
	require.NoError(t, err)
	assert.InDelta(t, 7.0, got, 0)
}
