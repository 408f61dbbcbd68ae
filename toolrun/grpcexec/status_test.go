package grpcexec_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolrun/grpcexec"
)

// statusCases are the non-OK gRPC codes and what they map to.
var statusCases = []struct {
	grpc      codes.Code
	name      string
	code      errors.Code
	retryable bool
	toolError bool // a tool failure by default
}{
	{codes.Canceled, "CANCELLED", errors.Canceled, false, false},
	{codes.Unknown, "UNKNOWN", errors.Internal, false, true},
	{codes.InvalidArgument, "INVALID_ARGUMENT", errors.InvalidArgument, false, true},
	{codes.DeadlineExceeded, "DEADLINE_EXCEEDED", errors.Timeout, true, false},
	{codes.NotFound, "NOT_FOUND", errors.NotFound, false, true},
	{codes.AlreadyExists, "ALREADY_EXISTS", errors.Conflict, false, true},
	{codes.PermissionDenied, "PERMISSION_DENIED", errors.PermissionDenied, false, false},
	{codes.ResourceExhausted, "RESOURCE_EXHAUSTED", errors.RateLimited, true, false},
	{codes.FailedPrecondition, "FAILED_PRECONDITION", errors.InvalidArgument, false, true},
	{codes.Aborted, "ABORTED", errors.Conflict, true, false},
	{codes.OutOfRange, "OUT_OF_RANGE", errors.InvalidArgument, false, true},
	{codes.Unimplemented, "UNIMPLEMENTED", errors.Unsupported, false, false},
	{codes.Internal, "INTERNAL", errors.Internal, false, false},
	{codes.Unavailable, "UNAVAILABLE", errors.Unavailable, true, false},
	{codes.DataLoss, "DATA_LOSS", errors.Internal, false, false},
	{codes.Unauthenticated, "UNAUTHENTICATED", errors.Unauthenticated, false, false},
}

func TestStatusesFromTheServer(t *testing.T) {
	s := start(t)
	strict := newExecutor(t, grpcexec.WithToolErrorCodes())
	lenient := newExecutor(t)
	for _, tt := range statusCases {
		args := map[string]any{"code": float64(tt.grpc), "message": "it went wrong"}
		t.Run(tt.name+" as an error", func(t *testing.T) {
			_, err := strict.Execute(context.Background(), call(backend(s.Addr, "Status"), args))
			require.Error(t, err)
			assert.Equal(t, tt.code, errors.CodeOf(err))
			assert.Equal(t, tt.retryable, errors.IsRetryable(err))
			var te *errors.Error
			require.ErrorAs(t, err, &te)
			assert.Equal(t, tt.name, te.Meta[grpcexec.MetaStatusCode])
			assert.Equal(t, tt.grpc, status.Code(err))
			var withStatus interface{ GRPCStatus() *status.Status }
			require.ErrorAs(t, err, &withStatus, "the status is still in the error")
			assert.Equal(t, "it went wrong", withStatus.GRPCStatus().Message())
		})
		t.Run(tt.name+" by default", func(t *testing.T) {
			out, err := lenient.Execute(context.Background(), call(backend(s.Addr, "Status"), args))
			if !tt.toolError {
				require.Error(t, err)
				assert.Equal(t, tt.code, errors.CodeOf(err))
				return
			}
			require.NoError(t, err)
			assert.True(t, out.IsError)
			assert.Equal(t, map[string]any{"code": tt.name, "message": "it went wrong"}, out.Structured)
			assert.Equal(t, tt.name+": it went wrong", toolrun.OutputText(out))
		})
	}
}

func TestRetryInfoDetail(t *testing.T) {
	s := start(t)
	args := map[string]any{"code": float64(codes.ResourceExhausted), "message": "slow down", "retry_after": "3s"}
	_, err := newExecutor(t).Execute(context.Background(), call(backend(s.Addr, "Status"), args))
	require.Error(t, err)
	assert.Equal(t, errors.RateLimited, errors.CodeOf(err))
	delay, ok := toolrun.RetryAfter(err)
	require.True(t, ok)
	assert.Equal(t, 3*time.Second, delay)

	args["code"] = float64(codes.NotFound)
	out, err := newExecutor(t).Execute(context.Background(), call(backend(s.Addr, "Status"), args))
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"code":    "NOT_FOUND",
		"message": "slow down",
		"details": []any{map[string]any{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retry_delay": "3s"}},
	}, out.Structured)
}

func TestStatusErrorOutsideTheCodes(t *testing.T) {
	tests := []struct {
		name string
		st   *status.Status
		code errors.Code
		meta string
	}{
		{"OK", status.New(codes.OK, ""), errors.Internal, "OK"},
		{"a code gRPC does not define", status.New(codes.Code(99), "odd"), errors.Internal, "UNKNOWN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := grpcexec.StatusError(tt.st)
			assert.Equal(t, tt.code, err.Code)
			assert.Equal(t, tt.meta, err.Meta[grpcexec.MetaStatusCode])
			assert.Error(t, err.Err)
		})
	}
}
