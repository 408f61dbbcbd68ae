package javascript

import (
	"github.com/dop251/goja/ast"
)

// returnLast makes a wrapped program return the value of its last
// statement when that statement is an expression, so that a program ending
// in `tools.math.add({a: 1, b: 2})` yields that call's result, as a
// notebook cell would. It rewrites the parsed program in place: the
// expression statement becomes a return statement of the same expression,
// so every position in the program stays where it was. A program that
// ends with anything else is left as it is.
func returnLast(prg *ast.Program) {
	if prg == nil || len(prg.Body) == 0 {
		return
	}
	stmt, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return
	}
	call, ok := stmt.Expression.(*ast.CallExpression)
	if !ok {
		return
	}
	fn, ok := call.Callee.(*ast.FunctionLiteral)
	if !ok || fn.Body == nil || len(fn.Body.List) == 0 {
		return
	}
	body := fn.Body.List
	last, ok := body[len(body)-1].(*ast.ExpressionStatement)
	if !ok {
		return
	}
	body[len(body)-1] = &ast.ReturnStatement{Return: last.Idx0(), Argument: last.Expression}
}
