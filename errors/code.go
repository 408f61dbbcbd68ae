package errors

// Code classifies an error by what a caller can do about it. Codes are
// stable strings: they cross process boundaries in JSON-RPC error data and
// HTTP bodies, and a code received from a newer peer that this version does
// not know is preserved as is.
type Code string

// The codes of the taxonomy. Their JSON-RPC and HTTP mappings are given by
// [Code.RPCCode] and [Code.HTTPStatus].
const (
	// NotFound: the tool, backend, document or resource does not exist.
	NotFound Code = "not_found"
	// InvalidArgument: the request is malformed (bad ID, unknown option).
	InvalidArgument Code = "invalid_argument"
	// Validation: a value does not satisfy its JSON Schema.
	Validation Code = "validation"
	// Conflict: the request contradicts the current state (duplicate ID).
	Conflict Code = "conflict"
	// PermissionDenied: the caller is known but not allowed to do this.
	PermissionDenied Code = "permission_denied"
	// Unauthenticated: the caller's credentials are missing or invalid.
	Unauthenticated Code = "unauthenticated"
	// RateLimited: the caller must slow down; retrying later may succeed.
	RateLimited Code = "rate_limited"
	// Timeout: a deadline expired before the operation completed.
	Timeout Code = "timeout"
	// Canceled: the caller canceled the operation.
	Canceled Code = "canceled"
	// Unavailable: a backend cannot be reached right now; retrying may succeed.
	Unavailable Code = "unavailable"
	// Execution: the tool ran and reported a failure of its own.
	Execution Code = "execution"
	// ResourceExhausted: a limit (memory, output size, tool calls) was hit.
	ResourceExhausted Code = "resource_exhausted"
	// Unsupported: the operation is not supported by this component.
	Unsupported Code = "unsupported"
	// Internal: a bug or an unexpected condition; the catch-all.
	Internal Code = "internal"
)

// codeInfo holds the fixed properties of a known code.
type codeInfo struct {
	rpc       int64
	http      int
	retryable bool
}

// JSON-RPC 2.0 reserves -32768..-32000; -32099..-32000 is for
// implementation-defined server errors, which is where codes without a
// standard counterpart go. MCP itself uses -32002 for "resource not found".
var codes = map[Code]codeInfo{
	NotFound:          {rpc: -32002, http: 404},
	InvalidArgument:   {rpc: -32602, http: 400},
	Validation:        {rpc: -32602, http: 422},
	Conflict:          {rpc: -32010, http: 409},
	PermissionDenied:  {rpc: -32011, http: 403},
	Unauthenticated:   {rpc: -32012, http: 401},
	RateLimited:       {rpc: -32013, http: 429, retryable: true},
	Timeout:           {rpc: -32014, http: 504, retryable: true},
	Canceled:          {rpc: -32015, http: 499},
	Unavailable:       {rpc: -32016, http: 503, retryable: true},
	Execution:         {rpc: -32017, http: 502},
	ResourceExhausted: {rpc: -32018, http: 413},
	Unsupported:       {rpc: -32019, http: 501},
	Internal:          {rpc: -32603, http: 500},
}

// Codes returns every code of the taxonomy, in a fixed order.
func Codes() []Code {
	return []Code{
		NotFound, InvalidArgument, Validation, Conflict, PermissionDenied,
		Unauthenticated, RateLimited, Timeout, Canceled, Unavailable,
		Execution, ResourceExhausted, Unsupported, Internal,
	}
}

// Known reports whether c is one of the codes of this taxonomy.
func (c Code) Known() bool {
	_, ok := codes[c]
	return ok
}

// String returns the code's wire form, such as "not_found".
func (c Code) String() string { return string(c) }

// Retryable reports whether an error of this code is worth retrying by
// default: rate_limited, timeout and unavailable.
func (c Code) Retryable() bool { return codes[c].retryable }

// HTTPStatus returns the HTTP status code that represents c; unknown codes
// map to 500.
func (c Code) HTTPStatus() int {
	if info, ok := codes[c]; ok {
		return info.http
	}
	return 500
}

// RPCCode returns the JSON-RPC error code that represents c; unknown codes
// map to -32603 (internal error).
func (c Code) RPCCode() int64 {
	if info, ok := codes[c]; ok {
		return info.rpc
	}
	return -32603
}

// CodeFromHTTPStatus returns the code an HTTP status represents. It inverts
// [Code.HTTPStatus] and also maps statuses that no code produces: 408 to
// timeout, other 4xx to invalid_argument, other 5xx to unavailable. It
// returns "" for statuses below 400, which are not errors.
func CodeFromHTTPStatus(status int) Code {
	for _, c := range Codes() {
		if codes[c].http == status {
			return c
		}
	}
	switch {
	case status == 408:
		return Timeout
	case status >= 400 && status < 500:
		return InvalidArgument
	case status >= 500:
		return Unavailable
	}
	return ""
}

// CodeFromRPCCode returns the code a JSON-RPC error code represents when the
// error carries no code of this taxonomy in its data (a peer that does not
// use this package). -32602 maps to invalid_argument; the standard parse
// and request errors map to invalid_argument, method-not-found to
// unsupported, and anything else unknown to internal. MCP's own codes of
// protocol 2026-07-28 map too: a header that does not match its request
// (-32020) to invalid_argument, a client capability the request needs
// and the client did not declare (-32021) and a protocol version the
// server does not speak (-32022) to unsupported.
func CodeFromRPCCode(rpc int64) Code {
	switch rpc {
	case -32602, -32700, -32600, -32020:
		return InvalidArgument
	case -32601, -32021, -32022:
		return Unsupported
	}
	for _, c := range Codes() {
		if codes[c].rpc == rpc {
			return c
		}
	}
	return Internal
}
