// Package errors is the error taxonomy shared by every metatools module.
//
// It is a superset of the standard library's errors package: [Is], [As],
// [New], [Join], [Unwrap] and [ErrUnsupported] are re-exported, so a file
// imports this package instead of the standard one, never both.
//
// On top of that it adds:
//
//   - [Code], a small closed set of error classes (not_found, validation,
//     timeout, unavailable, ...) that callers branch on, each with a
//     sentinel ([ErrNotFound], [ErrTimeout], ...) matched by [Is];
//   - [*Error], which carries a code together with the operation, tool and
//     backend concerned, whether a retry may help, extra metadata and the
//     underlying cause, built with [E], [Errorf] or [Opf] ([WithOp] names the operation of
//     an error from elsewhere); [CodeOf] and
//     [IsRetryable] read them from any error chain;
//   - [FromContext], which turns a context's end into an error of code
//     [Timeout] or [Canceled];
//   - conversions to and from JSON-RPC/MCP error objects ([ToWire],
//     [FromWire]) and HTTP statuses and bodies ([HTTPStatus], [FromHTTP]),
//     so that an error crossing a wire keeps its code, and errors.Is still
//     holds on the other side.
//
// A typical use:
//
//	tool, ok := catalogue[id]
//	if !ok {
//		return errors.Errorf(errors.NotFound, "tool %q", id)
//	}
//	...
//	if errors.Is(err, errors.ErrNotFound) { ... }
//	switch errors.CodeOf(err) { case errors.Timeout, errors.Unavailable: ... }
//
// Tool failures (a tool that ran and reported an error) are results, not Go
// errors; [Execution] classifies them when they must become one.
package errors
