package errors_test

import (
	"context"
	stderrors "errors"
	"fmt"
	"io"
	"testing"
	"time"

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

func TestOpf(t *testing.T) {
	e := errors.Opf("toolindex.Register", errors.Unavailable, "backend %q: %w", "mcp:gh", io.EOF)
	if e.Op != "toolindex.Register" || e.Code != errors.Unavailable || !e.Retryable {
		t.Fatalf("Opf = %+v, want op, code unavailable and retryable", e)
	}
	if !stderrors.Is(e, io.EOF) {
		t.Errorf("Opf's %%w does not wrap: %v", e)
	}
	if got, want := e.Error(), `toolindex.Register: backend "mcp:gh": EOF`; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}

func TestFromContext(t *testing.T) {
	canceled, cancel := context.WithCancel(context.Background())
	cancel()
	expired, cancelExpired := context.WithDeadline(context.Background(), time.Unix(0, 0))
	defer cancelExpired()
	closed := stderrors.New("use of closed network connection")
	tests := []struct {
		name      string
		ctx       context.Context
		cause     error
		code      errors.Code
		retryable bool
		is        []error
		msg       string
	}{
		{name: "canceled", ctx: canceled, code: errors.Canceled, is: []error{context.Canceled, errors.ErrCanceled}, msg: "op: context canceled"},
		{name: "deadline", ctx: expired, code: errors.Timeout, retryable: true, is: []error{context.DeadlineExceeded, errors.ErrTimeout}, msg: "op: context deadline exceeded"},
		{name: "with cause", ctx: canceled, cause: closed, code: errors.Canceled, is: []error{context.Canceled, closed}, msg: "op: context canceled: use of closed network connection"},
		{name: "cause wrapping the context's error", ctx: expired, cause: fmt.Errorf("dial: %w", context.DeadlineExceeded), code: errors.Timeout, retryable: true, is: []error{context.DeadlineExceeded}, msg: "op: dial: context deadline exceeded"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := errors.FromContext(tt.ctx, "op", tt.cause)
			if e == nil {
				t.Fatal("FromContext = nil for a done context")
			}
			if e.Code != tt.code || e.Retryable != tt.retryable || e.Op != "op" {
				t.Errorf("FromContext = %+v, want code %s, retryable %v, op", e, tt.code, tt.retryable)
			}
			for _, target := range tt.is {
				if !errors.Is(e, target) {
					t.Errorf("errors.Is(%v, %v) = false", e, target)
				}
			}
			if e.Error() != tt.msg {
				t.Errorf("Error() = %q, want %q", e.Error(), tt.msg)
			}
		})
	}
}

func TestFromContextNotDone(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Hour)
	defer cancel()
	if e := errors.FromContext(ctx, "op", io.EOF); e != nil {
		t.Errorf("FromContext of a live context = %v, want nil", e)
	}
	if e := errors.FromContext(context.Background(), "op", nil); e != nil {
		t.Errorf("FromContext of a context without deadline = %v, want nil", e)
	}
}

// deadlineOnly is a context whose deadline has passed but that does not
// report it yet, as a context whose timer has not fired.
type deadlineOnly struct{ context.Context }

func (deadlineOnly) Deadline() (time.Time, bool) { return time.Unix(0, 0), true }

func TestFromContextPassedDeadline(t *testing.T) {
	e := errors.FromContext(deadlineOnly{context.Background()}, "op", nil)
	if e == nil || e.Code != errors.Timeout || !errors.Is(e, context.DeadlineExceeded) {
		t.Errorf("FromContext of a passed deadline = %v, want a timeout", e)
	}
}

func TestWithOp(t *testing.T) {
	inner := &errors.Error{Code: errors.Unavailable, Retryable: false, Meta: map[string]string{"k": "v"}, Err: io.EOF}
	got := errors.WithOp("mcpexec.Session", fmt.Errorf("connect: %w", inner))
	if got.Op != "mcpexec.Session" || got.Code != errors.Unavailable || got.Retryable || got.Meta["k"] != "v" || got.Error() != "mcpexec.Session: connect: EOF" {
		t.Errorf("WithOp of an *Error = %+v, want its facts kept and the op set", got)
	}
	if inner.Op != "" {
		t.Errorf("WithOp modified the inner error: %+v", inner)
	}
	if top := errors.WithOp("op", inner); top.Err != io.EOF || //nolint:errorlint // identity: the cause itself, not wrapped
		top.Op != "op" || top.Meta["k"] != "v" {
		t.Errorf("WithOp of a top *Error = %+v, want a copy with the op", top)
	}
	named := &errors.Error{Code: errors.NotFound, Op: "inner"}
	if got := errors.WithOp("outer", named); got.Op != "outer" || got.Code != errors.NotFound || got.Error() != "outer: inner: not_found" {
		t.Errorf("WithOp of an error with an op = %+v (%v), want it wrapped by the outer op", got, got)
	}
	plain := errors.WithOp("op", context.DeadlineExceeded)
	if plain.Code != errors.Timeout || !plain.Retryable || !errors.Is(plain, context.DeadlineExceeded) {
		t.Errorf("WithOp of a plain error = %+v, want it classified by CodeOf", plain)
	}
	if errors.WithOp("op", nil) != nil {
		t.Error("WithOp(nil) != nil")
	}
}
