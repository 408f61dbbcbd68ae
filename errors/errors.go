package errors

import (
	"context"
	stderrors "errors"
	"fmt"
	"maps"
	"strings"
	"time"
)

// Error is an error of the taxonomy: a [Code] plus the context in which it
// happened. Every field but Code is optional.
//
// An *Error matches a sentinel such as [ErrNotFound] under [Is] when their
// codes are equal, so callers branch on codes without knowing which layer
// produced the error.
type Error struct {
	// Code classifies the error.
	Code Code
	// Op names the operation or pipeline stage that failed, such as
	// "validate_input" or "toolindex.Register".
	Op string
	// ToolID is the ID of the tool concerned, if any.
	ToolID string
	// Backend identifies the backend concerned, if any.
	Backend string
	// Retryable reports whether retrying the same call may succeed.
	Retryable bool
	// Err is the underlying cause, if any.
	Err error
	// Meta holds extra facts for logs and clients. It survives a trip over
	// the wire, which is why values are strings.
	Meta map[string]string
}

// E returns an *Error of the given code wrapping err, with Retryable set to
// the code's default. It is the short way to classify an error from
// elsewhere; set Op, ToolID and Backend on the result as needed.
func E(code Code, err error) *Error {
	return &Error{Code: code, Retryable: code.Retryable(), Err: err}
}

// Errorf returns an *Error of the given code whose cause is formatted as by
// [fmt.Errorf] (so %w wraps), with Retryable set to the code's default.
func Errorf(code Code, format string, args ...any) *Error {
	return E(code, fmt.Errorf(format, args...))
}

// Opf returns an *Error of the given code and operation whose cause is
// formatted as by [fmt.Errorf] (so %w wraps), with Retryable set to the
// code's default. It is the constructor of the errors a component returns
// from its own operations, such as
//
//	errors.Opf("toolindex.Register", errors.Conflict, "tool %q is already registered", id)
func Opf(op string, code Code, format string, args ...any) *Error {
	e := Errorf(code, format, args...)
	e.Op = op
	return e
}

// WithOp returns err as an *Error of operation op, for an error that
// comes from elsewhere, keeping the code, retryability and metadata of the
// first *Error of err's chain. An *Error without an operation of its own
// is copied with Op set (see [Error.With]); any other error that holds one
// (one naming an inner operation, or wrapping one with more context)
// becomes the cause of an *Error of op with those facts, so that its
// message reads "op: inner op: cause"; an error outside the taxonomy is
// wrapped with the code [CodeOf] gives it. It returns nil for nil. Use
// [Opf] for an error of the operation's own.
func WithOp(op string, err error) *Error {
	if err == nil {
		return nil
	}
	if e := asError(err); e == err && e.Op == "" { //nolint:errorlint // identity: is the *Error the top of the chain?
		return e.With(op, "", "")
	} else if e != nil {
		// err adds context to e, or e names an operation of its own:
		// keep err's text, and e's facts.
		return &Error{Code: e.Code, Op: op, Retryable: e.Retryable, Meta: maps.Clone(e.Meta), Err: err}
	}
	e := E(CodeOf(err), err)
	e.Op = op
	return e
}

// FromContext returns the error of operation op that ctx's end stopped:
// code [Timeout] when ctx's deadline has passed, [Canceled] when ctx was
// canceled, with Retryable set to the code's default. Its cause wraps
// ctx's error, so errors.Is(err, context.DeadlineExceeded) holds, and
// cause too when it is not nil: cause is what the operation saw when ctx
// ended (a closed connection, the last attempt's error); a cause that
// wraps ctx's error already becomes the cause as it is.
//
// A deadline that has passed counts even before ctx's timer has fired. It
// returns nil while ctx is not done, so that a component checks a context
// with
//
//	if err := errors.FromContext(ctx, op, nil); err != nil {
//		return err
//	}
//
// It is the one place where a context's end becomes an *Error.
func FromContext(ctx context.Context, op string, cause error) *Error {
	err := ctx.Err()
	if err == nil {
		deadline, ok := ctx.Deadline()
		if !ok || time.Now().Before(deadline) {
			return nil
		}
		err = context.DeadlineExceeded
	}
	code := Canceled
	if stderrors.Is(err, context.DeadlineExceeded) {
		code = Timeout
	}
	switch {
	case cause == nil:
	case stderrors.Is(cause, err):
		err = cause // it says more and already wraps ctx's error
	default:
		err = fmt.Errorf("%w: %w", err, cause)
	}
	e := E(code, err)
	e.Op = op
	return e
}

// Error returns "op: tool T (backend B): cause", leaving out what is unset.
// When there is no cause, the code stands in for it.
func (e *Error) Error() string {
	var b strings.Builder
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.ToolID != "" || e.Backend != "" {
		if e.ToolID != "" {
			fmt.Fprintf(&b, "tool %q", e.ToolID)
		}
		if e.Backend != "" {
			if e.ToolID != "" {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "(backend %s)", e.Backend)
		}
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(string(e.Code))
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is a sentinel (an *Error with only a Code) of
// e's code. Errors with more fields set match only themselves. An error of
// code [Unsupported] also matches the standard library's [ErrUnsupported].
func (e *Error) Is(target error) bool {
	if target == ErrUnsupported {
		return e.Code == Unsupported
	}
	t, ok := target.(*Error)
	if !ok || !t.isSentinel() {
		return false
	}
	return t.Code == e.Code
}

func (e *Error) isSentinel() bool {
	return e.Op == "" && e.ToolID == "" && e.Backend == "" && e.Err == nil && e.Meta == nil
}

// With returns a copy of e with the given operation, tool and backend set
// where e has none. It lets an outer layer add context without hiding the
// inner error's more precise facts.
func (e *Error) With(op, toolID, backend string) *Error {
	c := *e
	c.Meta = maps.Clone(e.Meta)
	if c.Op == "" {
		c.Op = op
	}
	if c.ToolID == "" {
		c.ToolID = toolID
	}
	if c.Backend == "" {
		c.Backend = backend
	}
	return &c
}

// Sentinel errors, one per code. Test with [Is]: errors.Is(err, ErrNotFound)
// holds for any *Error in err's chain whose code is [NotFound]. The sentinel
// of [Unsupported] is the standard library's [ErrUnsupported].
var (
	ErrNotFound          = &Error{Code: NotFound}
	ErrInvalidArgument   = &Error{Code: InvalidArgument}
	ErrValidation        = &Error{Code: Validation}
	ErrConflict          = &Error{Code: Conflict}
	ErrPermissionDenied  = &Error{Code: PermissionDenied}
	ErrUnauthenticated   = &Error{Code: Unauthenticated}
	ErrRateLimited       = &Error{Code: RateLimited}
	ErrTimeout           = &Error{Code: Timeout}
	ErrCanceled          = &Error{Code: Canceled}
	ErrUnavailable       = &Error{Code: Unavailable}
	ErrExecution         = &Error{Code: Execution}
	ErrResourceExhausted = &Error{Code: ResourceExhausted}
	ErrInternal          = &Error{Code: Internal}
)

// asError returns the first *Error in err's tree, or nil.
func asError(err error) *Error {
	var e *Error
	if stderrors.As(err, &e) {
		return e
	}
	return nil
}

// CodeOf returns the code of the first *Error in err's tree. Without one,
// it classifies the standard library's [ErrUnsupported] as [Unsupported] and
// context errors as [Timeout] or [Canceled], and returns [Internal] for any
// other non-nil error and "" for nil.
func CodeOf(err error) Code {
	if err == nil {
		return ""
	}
	if e := asError(err); e != nil {
		return e.Code
	}
	switch {
	case stderrors.Is(err, stderrors.ErrUnsupported):
		return Unsupported
	case stderrors.Is(err, context.DeadlineExceeded):
		return Timeout
	case stderrors.Is(err, context.Canceled):
		return Canceled
	}
	return Internal
}

// IsRetryable reports whether retrying the call that returned err may
// succeed: the Retryable field of the first *Error in err's chain, or for
// errors outside the taxonomy, whether the deadline expired.
func IsRetryable(err error) bool {
	if e := asError(err); e != nil {
		return e.Retryable
	}
	return stderrors.Is(err, context.DeadlineExceeded)
}

// The standard library's functions and values, so that code using this
// package never needs both imports.

// ErrUnsupported is the standard library's [stderrors.ErrUnsupported].
var ErrUnsupported = stderrors.ErrUnsupported

// New returns an error whose Error method returns text, as [stderrors.New].
func New(text string) error { return stderrors.New(text) }

// Is reports whether any error in err's tree matches target, as [stderrors.Is].
func Is(err, target error) bool { return stderrors.Is(err, target) }

// As finds the first error in err's tree that matches target, as [stderrors.As].
func As(err error, target any) bool { return stderrors.As(err, target) }

// Join returns an error that wraps the given errors, as [stderrors.Join].
func Join(errs ...error) error { return stderrors.Join(errs...) }

// Unwrap returns the result of err's Unwrap method, as [stderrors.Unwrap].
func Unwrap(err error) error { return stderrors.Unwrap(err) }
