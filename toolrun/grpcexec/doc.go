// Package grpcexec runs tools served by gRPC methods, and imports tools
// from gRPC servers: any service whose server offers server reflection
// (google.golang.org/grpc/reflection, v1 or v1alpha) can be called with
// JSON arguments, without generated code.
//
// [Executor] is the [toolrun.Executor] of [toolmodel.BackendGRPC]
// backends. It turns a call's arguments into the request message through
// dynamic protobuf messages, calls the method, and returns the response
// as a JSON value. [Executor.Import] lists a server's services through
// reflection and returns one tool per method, with input and output JSON
// Schemas derived from the messages and, for methods whose
// idempotency_level is NO_SIDE_EFFECTS or IDEMPOTENT, the read-only or
// idempotent annotation that lets the runner retry them, ready for a
// [toolindex.Index]:
//
//	exec := grpcexec.New()
//	defer exec.Close()
//	result, err := exec.Import(ctx, grpcexec.ImportSpec{Address: "orders.internal:443", Namespace: "orders"})
//	...
//	err = idx.RegisterMany(ctx, result.Registrations)
//	reg := toolrun.NewExecutorRegistry(map[toolmodel.BackendKind]toolrun.Executor{toolmodel.BackendGRPC: exec})
//	runner := toolrun.New(reg, toolrun.WithIndex(idx))
//	res, err := runner.Run(ctx, "orders:order_service_get_order", map[string]any{"id": "42"})
//
// [Executor.Source] gives the same tools as a [toolindex.Source], so that
// an index refresh follows the server as its services change.
//
// # JSON mapping
//
// Arguments are read as protojson reads JSON: field names in their .proto
// form or their JSON (lowerCamelCase) form, 64-bit integers as numbers or
// decimal strings, enums by name or number, bytes in base64, the
// well-known types in their JSON forms (a Timestamp is an RFC 3339
// string, a Duration "1.5s", a Struct any object). Arguments that do not
// fit the request are an [errors.InvalidArgument].
//
// Results are written as protojson writes them, with the field names of
// the .proto file (the names the schemas use) and every field without
// presence present even at its default value (0, "", false, [], {}), so a
// result always has the same keys; message fields, oneof members and
// optional fields that are not set are left out. 64-bit integers are
// decimal strings, so no precision is lost.
//
// The imported schemas follow this mapping exactly, with a stricter input
// side (.proto field names only, unknown fields refused, enums by name);
// recursive messages and
// messages used by several fields are defined once under $defs, so a
// schema's size grows with the number of fields, not with the paths
// through them.
//
// # Streaming
//
// Unary and server-streaming methods can be called; methods that stream
// their requests cannot, and Import skips them. A server-streaming call
// passes each message to [toolrun.Call.OnChunk] as it arrives when it is
// set (as [toolrun.Runner.RunStream] does), and otherwise returns all of
// them as one JSON array, up to [WithMaxStreamMessages].
//
// # Errors
//
// A method's status is either the tool's own failure, reported as an
// output with IsError set ("NOT_FOUND: no order 42"), or an error mapped
// to the repository's taxonomy by [StatusError]. By default the statuses
// that answer the request itself are tool failures:
// [DefaultToolErrorCodes] (UNKNOWN, which grpc-go servers send for a
// handler's plain error, INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS,
// FAILED_PRECONDITION, OUT_OF_RANGE); the others (UNAVAILABLE,
// UNAUTHENTICATED, RESOURCE_EXHAUSTED, ...) are errors, retryable where
// retrying may help, honouring a google.rpc.RetryInfo detail.
// [WithToolErrorCodes] changes the set; with no code, every status is an
// error. The end of the call's context is always an error: timeout or
// canceled.
//
// # Connections, security and metadata
//
// The executor keeps one connection per address and TLS settings, made
// on first use and closed by [Executor.Close]. Connections use TLS with
// the system's roots unless the backend names a CA file, and may override
// the server name checked; plaintext (GRPCTLS.Insecure) is allowed only
// towards loopback addresses. Each call sends the backend's Metadata as
// request headers, and the call's metadata only under the keys given to
// [WithForwardedMetadata]. The backend's Timeout bounds each call, within
// the call's context.
//
// Descriptors are fetched through reflection once per service and
// connection, with their dependencies, and fetched again after the
// connection reconnects (the server may have been redeployed), when a
// method is missing from them, or after the server answered
// UNIMPLEMENTED. Concurrent calls share one fetch.
//
// # How to plug in your own
//
// Naming: set [ImportSpec.ToolName] to name the tools of a server your
// way. Transport: [WithDialOptions] adds grpc.DialOption values to every
// connection, such as interceptors or per-RPC credentials for services
// that need more than static metadata. Failures: [WithToolErrorCodes]
// chooses which statuses are tool failures. A different executor for
// gRPC backends is any [toolrun.Executor] registered under
// [toolmodel.BackendGRPC] instead of this one.
package grpcexec
