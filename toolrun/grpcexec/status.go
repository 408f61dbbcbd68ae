package grpcexec

import (
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// statusInfo is what this package knows of a gRPC status code: its
// canonical name and the code of the taxonomy it maps to.
type statusInfo struct {
	name      string
	code      errors.Code
	retryable bool
}

// statusCodes maps every gRPC code, by number, to the taxonomy. The
// choices that are not obvious:
//
//   - ResourceExhausted is how gRPC services signal quotas and rate
//     limits (gRPC's HTTP mapping makes it 429), so it maps to
//     [errors.RateLimited], retryable; the taxonomy's resource_exhausted
//     is for local limits such as memory or output size.
//   - Aborted (a concurrency conflict the service asks to retry at a
//     higher level, which for one call is the call) maps to
//     [errors.Conflict], retryable; AlreadyExists maps to Conflict too,
//     not retryable.
//   - FailedPrecondition and OutOfRange are the caller's to fix, like
//     InvalidArgument.
var statusCodes = [...]statusInfo{
	codes.OK:                 {name: "OK", code: errors.Internal},
	codes.Canceled:           {name: "CANCELLED", code: errors.Canceled},
	codes.Unknown:            {name: "UNKNOWN", code: errors.Internal},
	codes.InvalidArgument:    {name: "INVALID_ARGUMENT", code: errors.InvalidArgument},
	codes.DeadlineExceeded:   {name: "DEADLINE_EXCEEDED", code: errors.Timeout, retryable: true},
	codes.NotFound:           {name: "NOT_FOUND", code: errors.NotFound},
	codes.AlreadyExists:      {name: "ALREADY_EXISTS", code: errors.Conflict},
	codes.PermissionDenied:   {name: "PERMISSION_DENIED", code: errors.PermissionDenied},
	codes.ResourceExhausted:  {name: "RESOURCE_EXHAUSTED", code: errors.RateLimited, retryable: true},
	codes.FailedPrecondition: {name: "FAILED_PRECONDITION", code: errors.InvalidArgument},
	codes.Aborted:            {name: "ABORTED", code: errors.Conflict, retryable: true},
	codes.OutOfRange:         {name: "OUT_OF_RANGE", code: errors.InvalidArgument},
	codes.Unimplemented:      {name: "UNIMPLEMENTED", code: errors.Unsupported},
	codes.Internal:           {name: "INTERNAL", code: errors.Internal},
	codes.Unavailable:        {name: "UNAVAILABLE", code: errors.Unavailable, retryable: true},
	codes.DataLoss:           {name: "DATA_LOSS", code: errors.Internal},
	codes.Unauthenticated:    {name: "UNAUTHENTICATED", code: errors.Unauthenticated},
}

// infoOf returns what is known of c; codes outside the gRPC set (which a
// peer may send) are treated as Unknown.
func infoOf(c codes.Code) statusInfo { return statusCodes[infoIndex(c)] }

// infoIndex returns the index of c in the tables of this package.
func infoIndex(c codes.Code) int {
	if int(c) < len(statusCodes) {
		return int(c)
	}
	return int(codes.Unknown)
}

// MetaStatusCode is the [errors.Error] Meta key holding the canonical
// name of the gRPC status code an error came from, such as "NOT_FOUND".
const MetaStatusCode = "grpc_code"

// StatusError returns the error of the taxonomy for a non-OK gRPC status:
//
//	CANCELLED                    canceled
//	UNKNOWN, INTERNAL, DATA_LOSS internal
//	INVALID_ARGUMENT             invalid_argument
//	FAILED_PRECONDITION          invalid_argument
//	OUT_OF_RANGE                 invalid_argument
//	DEADLINE_EXCEEDED            timeout, retryable
//	NOT_FOUND                    not_found
//	ALREADY_EXISTS               conflict
//	ABORTED                      conflict, retryable
//	PERMISSION_DENIED            permission_denied
//	UNAUTHENTICATED              unauthenticated
//	RESOURCE_EXHAUSTED           rate_limited, retryable
//	UNIMPLEMENTED                unsupported
//	UNAVAILABLE                  unavailable, retryable
//
// The error wraps the status's own error, so [status.Code] still finds
// the code in it, and errors.As with a target of type
// interface{ GRPCStatus() *status.Status } finds the status with its
// message and details; the code's name is in Meta under [MetaStatusCode]. A google.rpc.RetryInfo detail becomes
// the delay of [toolrun.RetryAfter]. An OK status, which is not an error,
// maps to internal.
func StatusError(st *status.Status) *errors.Error {
	info := infoOf(st.Code())
	cause := st.Err()
	if cause == nil {
		cause = errors.New("a call failed with status OK")
	}
	e := &errors.Error{Code: info.code, Retryable: info.retryable, Err: cause, Meta: map[string]string{MetaStatusCode: info.name}}
	for _, d := range st.Details() {
		if ri, ok := d.(*errdetails.RetryInfo); ok && ri.GetRetryDelay().IsValid() {
			e = toolrun.WithRetryAfter(e, ri.GetRetryDelay().AsDuration())
		}
	}
	return e
}

// DefaultToolErrorCodes returns the statuses that [New] reports as tool
// failures unless told otherwise with [WithToolErrorCodes]: the answers a
// method gives about the request it ran on (UNKNOWN is what grpc-go
// servers send for a handler's plain Go error). Every other status is a
// failure to use the service, reported as an error.
func DefaultToolErrorCodes() []codes.Code {
	return []codes.Code{
		codes.Unknown, codes.InvalidArgument, codes.NotFound, codes.AlreadyExists,
		codes.FailedPrecondition, codes.OutOfRange,
	}
}

// detailOptions write status details with the field names of their
// .proto files, like results.
var detailOptions = protojson.MarshalOptions{UseProtoNames: true}

// toolFailure returns the output of a method that answered with a status
// that is a tool failure: its text says "NAME: message", its structured
// result is {"code": NAME, "message": ..., "details": [...]}, details in
// their JSON form when their type is known, else just their "@type".
func toolFailure(st *status.Status) toolrun.Output {
	name := infoOf(st.Code()).name
	result := map[string]any{"code": name, "message": st.Message()}
	var details []any
	for _, d := range st.Proto().GetDetails() {
		var v any
		raw, err := detailOptions.Marshal(d)
		if err != nil || json.Unmarshal(raw, &v) != nil {
			v = map[string]any{"@type": d.GetTypeUrl()}
		}
		details = append(details, v)
	}
	if len(details) > 0 {
		result["details"] = details
	}
	return toolrun.Output{
		IsError:    true,
		Structured: result,
		Content:    []mcp.Content{&mcp.TextContent{Text: name + ": " + st.Message()}},
	}
}
