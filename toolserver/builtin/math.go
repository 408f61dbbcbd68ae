package builtin

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"
)

type evalInput struct {
	Expression string             `json:"expression" jsonschema:"The expression, such as \"(2.5 + 3) * 4^2 / sqrt(9)\"."`
	Variables  map[string]float64 `json:"variables,omitempty" jsonschema:"Values of names used in the expression, such as {\"price\": 19.99, \"qty\": 3}. Names are letters, digits and '_' and cannot be pi, e or a function name."`
}

type evalOutput struct {
	Value float64 `json:"value" jsonschema:"The value of the expression."`
}

func mathEvalTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "math",
		name:      "eval",
		title:     "Evaluate an arithmetic expression",
		description: "Evaluate an arithmetic expression exactly, rather than computing it in your head. Supports numbers (42, 1.5, 2e-3), " +
			"+ - * / and % (remainder), ^ or ** (power, right-associative: -2^2 is -4), parentheses, the constants pi and e, " +
			"named variables, and the functions sqrt cbrt abs min max round floor ceil trunc ln log10 log2 exp sin cos tan asin acos atan atan2 pow hypot " +
			"(angles in radians; round(x, digits) rounds to decimal digits). Computes in double precision (about 15 significant digits). " +
			"Errors give the offset of the problem, and division by zero, overflow or a non-real result such as sqrt(-1) are errors.",
		tags: []string{"math", "calculator", "arithmetic", "expression", "compute"},
		input: func(props map[string]*jsonschema.Schema) {
			props["expression"].MinLength = ptr(1)
			props["expression"].MaxLength = ptr(maxExprBytes)
			props["variables"].PropertyNames = &jsonschema.Schema{Pattern: "^[A-Za-z_][A-Za-z0-9_]*$"}
		},
		examples: []Example{
			{Name: "arithmetic", Description: "Operator precedence and parentheses.", Args: map[string]any{"expression": "(2.5 + 3) * 4^2 / sqrt(9)"}},
			{Name: "compound-interest", Description: "A deposit after 10 years at 3.5% a year, rounded to cents.", Args: map[string]any{
				"expression": "round(principal * (1 + rate)^years, 2)",
				"variables":  map[string]any{"principal": 2500, "rate": 0.035, "years": 10},
			}},
			{Name: "trigonometry", Description: "The length of the hypotenuse and an angle in degrees.", Args: map[string]any{"expression": "hypot(3, 4) + atan2(1, 1) * 180 / pi"}},
		},
	}, func(_ context.Context, in evalInput) (evalOutput, error) {
		v, err := evalExpr(in.Expression, in.Variables)
		if err != nil {
			return evalOutput{}, err
		}
		return evalOutput{Value: v}, nil
	})
}
