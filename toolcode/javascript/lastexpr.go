package javascript

import (
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// returnPrefix and returnSuffix turn the program's last expression
// statement into its return value.
const (
	returnPrefix = "return ("
	returnSuffix = ");"
)

// returnLast makes a wrapped program return the value of its last
// statement when that statement is an expression, so that a program ending
// in `tools.math.add({a: 1, b: 2})` yields that call's result, as a
// notebook cell would. It returns src unchanged when the program ends with
// anything else, or does not parse (the compiler then reports why), and
// the 1-based line and column of the insertion (0, 0 when none).
func returnLast(src string) (out string, line, col int) {
	prg, err := parser.ParseFile(nil, "", src, 0)
	if err != nil || len(prg.Body) == 0 {
		return src, 0, 0
	}
	stmt, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return src, 0, 0
	}
	call, ok := stmt.Expression.(*ast.CallExpression)
	if !ok {
		return src, 0, 0
	}
	fn, ok := call.Callee.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil || len(fn.Body.List) == 0 {
		return src, 0, 0
	}
	last, ok := fn.Body.List[len(fn.Body.List)-1].(*ast.ExpressionStatement)
	if !ok {
		return src, 0, 0
	}
	start, end := int(last.Idx0())-1, int(last.Idx1())-1
	if start < 0 || end > len(src) || start >= end {
		return src, 0, 0
	}
	line, col = 1, 1
	for i := range start {
		if src[i] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return src[:start] + returnPrefix + src[start:end] + returnSuffix + src[end:], line, col
}
