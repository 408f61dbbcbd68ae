package builtin

import (
	"context"
	"fmt"
	"testing"
)

func BenchmarkMathEval(b *testing.B) {
	vars := map[string]float64{"principal": 2500, "rate": 0.035, "years": 10}
	for _, bc := range []struct{ name, expr string }{
		{"number", "42"},
		{"arithmetic", "(2.5 + 3) * 4^2 / sqrt(9) - 7 % 3"},
		{"functions-variables", "round(principal * (1 + rate)^years, 2) + hypot(3, 4) + max(1, 2, 3)"},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := evalExpr(bc.expr, vars); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkJSONQuery(b *testing.B) {
	items := make([]any, 100)
	for i := range items {
		items[i] = map[string]any{"id": float64(i), "name": fmt.Sprintf("item-%d", i), "price": float64(i%17) + 0.5, "tags": []any{"a", "b"}}
	}
	doc := map[string]any{"items": items}
	text := `{"items":[` + func() string {
		s := ""
		for i := range 100 {
			if i > 0 {
				s += ","
			}
			s += fmt.Sprintf(`{"id":%d,"name":"item-%d","price":%d.5,"tags":["a","b"]}`, i, i, i%17)
		}
		return s
	}() + `]}`
	ctx := context.Background()
	for _, bc := range []struct {
		name string
		in   queryInput
	}{
		{"path", queryInput{Query: ".items[3].name", Input: doc}},
		{"select-100", queryInput{Query: "[.items[] | select(.price < 5) | .name]", Input: doc}},
		{"group-100", queryInput{Query: "group_by(.price) | map({price: .[0].price, n: length})", Input: items}},
		{"text-select-100", queryInput{Query: "[.items[] | select(.price < 5) | .name]", InputText: text}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := runQuery(ctx, &bc.in, DefaultQueryTimeout); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkToolCall measures a call of a tool's function as the local
// executor makes it: arguments decoded, the tool run, the result built.
func BenchmarkToolCall(b *testing.B) {
	tools, err := Tools()
	if err != nil {
		b.Fatal(err)
	}
	byID := map[string]*Tool{}
	for i := range tools {
		byID[tools[i].ID()] = &tools[i]
	}
	ctx := context.Background()
	for _, bc := range []struct {
		id   string
		args map[string]any
	}{
		{"math:eval", map[string]any{"expression": "(2.5 + 3) * 4^2 / sqrt(9)"}},
		{"json:query", map[string]any{"query": ".a.b", "input": map[string]any{"a": map[string]any{"b": 1.0}}}},
		{"time:convert", map[string]any{"time": "2024-07-01 09:30", "from": "America/New_York", "to": "Europe/Paris"}},
		{"text:stats", map[string]any{"text": "Go is expressive, concise, clean, and efficient."}},
	} {
		b.Run(bc.id, func(b *testing.B) {
			fn := byID[bc.id].Func
			b.ReportAllocs()
			for b.Loop() {
				if _, err := fn(ctx, bc.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
