package errors_test

import (
	"context"
	stderrors "errors"
	"fmt"
	"io"
	"testing"

	"github.com/metatools-go/metatools/errors"
)

// The errors module has no dependencies, not even for tests, so these tests
// use the standard testing package alone.

func TestSentinelsMatchByCode(t *testing.T) {
	sentinels := map[errors.Code]error{
		errors.NotFound:          errors.ErrNotFound,
		errors.InvalidArgument:   errors.ErrInvalidArgument,
		errors.Validation:        errors.ErrValidation,
		errors.Conflict:          errors.ErrConflict,
		errors.PermissionDenied:  errors.ErrPermissionDenied,
		errors.Unauthenticated:   errors.ErrUnauthenticated,
		errors.RateLimited:       errors.ErrRateLimited,
		errors.Timeout:           errors.ErrTimeout,
		errors.Canceled:          errors.ErrCanceled,
		errors.Unavailable:       errors.ErrUnavailable,
		errors.Execution:         errors.ErrExecution,
		errors.ResourceExhausted: errors.ErrResourceExhausted,
		errors.Unsupported:       errors.ErrUnsupported,
		errors.Internal:          errors.ErrInternal,
	}
	if len(sentinels) != len(errors.Codes()) {
		t.Fatalf("%d sentinels for %d codes", len(sentinels), len(errors.Codes()))
	}
	for _, code := range errors.Codes() {
		err := fmt.Errorf("outer: %w", &errors.Error{Code: code, Op: "op", ToolID: "ns:t", Err: io.EOF})
		for other, sentinel := range sentinels {
			if got, want := errors.Is(err, sentinel), other == code; got != want {
				t.Errorf("Is(%s error, %s sentinel) = %v, want %v", code, other, got, want)
			}
		}
		if !errors.Is(err, io.EOF) {
			t.Errorf("%s error does not wrap its cause", code)
		}
	}
}

func TestIsDoesNotMatchNonSentinels(t *testing.T) {
	a := &errors.Error{Code: errors.NotFound, Op: "a"}
	b := &errors.Error{Code: errors.NotFound, Op: "b"}
	if errors.Is(a, b) {
		t.Error("two distinct errors of one code match each other")
	}
	if !errors.Is(a, a) {
		t.Error("an error does not match itself")
	}
}

func TestCodeOf(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want errors.Code
	}{
		{"nil", nil, ""},
		{"taxonomy", errors.Errorf(errors.Conflict, "dup"), errors.Conflict},
		{"wrapped", fmt.Errorf("ctx: %w", errors.E(errors.Timeout, io.EOF)), errors.Timeout},
		{"joined", errors.Join(io.EOF, errors.E(errors.Validation, nil)), errors.Validation},
		{"deadline", fmt.Errorf("call: %w", context.DeadlineExceeded), errors.Timeout},
		{"canceled", context.Canceled, errors.Canceled},
		{"std unsupported", stderrors.ErrUnsupported, errors.Unsupported},
		{"plain", io.EOF, errors.Internal},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.CodeOf(tt.err); got != tt.want {
				t.Errorf("CodeOf = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"unavailable by default", errors.E(errors.Unavailable, io.EOF), true},
		{"rate limited by default", errors.Errorf(errors.RateLimited, "slow down"), true},
		{"validation never", errors.E(errors.Validation, io.EOF), false},
		{"explicit field wins", &errors.Error{Code: errors.Unavailable, Retryable: false}, false},
		{"deadline", context.DeadlineExceeded, true},
		{"plain", io.EOF, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := errors.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestUnsupportedMatchesStandardSentinel(t *testing.T) {
	err := errors.Errorf(errors.Unsupported, "streaming on %s", "http")
	if !stderrors.Is(err, stderrors.ErrUnsupported) {
		t.Error("unsupported error does not match the standard library's ErrUnsupported")
	}
	if errors.Is(errors.E(errors.Internal, nil), stderrors.ErrUnsupported) {
		t.Error("internal error matches ErrUnsupported")
	}
}

func TestErrorString(t *testing.T) {
	tests := []struct {
		err  *errors.Error
		want string
	}{
		{&errors.Error{Code: errors.NotFound}, "not_found"},
		{&errors.Error{Code: errors.NotFound, Err: io.EOF}, "EOF"},
		{&errors.Error{Code: errors.NotFound, Op: "resolve", Err: io.EOF}, "resolve: EOF"},
		{&errors.Error{Code: errors.Timeout, Op: "execute", ToolID: "gh:issue", Backend: "mcp:gh", Err: io.EOF},
			`execute: tool "gh:issue" (backend mcp:gh): EOF`},
		{&errors.Error{Code: errors.Timeout, Backend: "mcp:gh"}, "(backend mcp:gh): timeout"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestWithKeepsInnerFacts(t *testing.T) {
	inner := &errors.Error{Code: errors.Validation, Op: "validate_input", Meta: map[string]string{"k": "v"}}
	outer := inner.With("run", "ns:tool", "local:fn")
	if outer.Op != "validate_input" || outer.ToolID != "ns:tool" || outer.Backend != "local:fn" {
		t.Errorf("With = %+v", outer)
	}
	outer.Meta["k"] = "changed"
	if inner.Meta["k"] != "v" || inner.ToolID != "" {
		t.Error("With modified the original error")
	}
}

func TestCodeMappingsAreConsistent(t *testing.T) {
	seenHTTP := map[int]errors.Code{}
	for _, c := range errors.Codes() {
		if !c.Known() {
			t.Errorf("%s is not Known", c)
		}
		if prev, dup := seenHTTP[c.HTTPStatus()]; dup {
			t.Errorf("%s and %s share HTTP status %d", c, prev, c.HTTPStatus())
		}
		seenHTTP[c.HTTPStatus()] = c
		if got := errors.CodeFromHTTPStatus(c.HTTPStatus()); got != c {
			t.Errorf("CodeFromHTTPStatus(%d) = %s, want %s", c.HTTPStatus(), got, c)
		}
		if c.RPCCode() > -32000 || c.RPCCode() < -32768 {
			t.Errorf("%s has RPC code %d outside the reserved range", c, c.RPCCode())
		}
	}
	for status, want := range map[int]errors.Code{200: "", 302: "", 408: errors.Timeout, 418: errors.InvalidArgument, 507: errors.Unavailable} {
		if got := errors.CodeFromHTTPStatus(status); got != want {
			t.Errorf("CodeFromHTTPStatus(%d) = %q, want %q", status, got, want)
		}
	}
	if errors.Code("brand_new").Known() {
		t.Error("an unknown code is Known")
	}
	if got := errors.Code("brand_new").HTTPStatus(); got != 500 {
		t.Errorf("unknown code HTTP status = %d, want 500", got)
	}
}

func TestStandardLibraryReexports(t *testing.T) {
	base := errors.New("base")
	wrapped := fmt.Errorf("wrap: %w", base)
	if errors.Unwrap(wrapped) != base { //nolint:errorlint // Unwrap must return the very error it wraps.
		t.Error("Unwrap does not return the wrapped error")
	}
	var target *errors.Error
	if !errors.As(fmt.Errorf("x: %w", errors.E(errors.Conflict, base)), &target) || target.Code != errors.Conflict {
		t.Error("As does not find the *Error")
	}
	if !errors.Is(errors.Join(io.EOF, base), base) {
		t.Error("Join loses an error")
	}
}
