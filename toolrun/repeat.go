package toolrun

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

// This file holds the one rule that decides whether a call may run again
// after a failure (see "Retries" in the package documentation), used by
// the runner's retries, by [Runner.RunBatch]'s retry rounds and by
// executors that resend a request themselves (mcpexec after a broken
// session).

// metaNotSent is the [errors.Error] Meta key marking a failure that
// happened before the call's request could reach the backend.
const metaNotSent = "not_sent"

// MarkNotSent records in e that the call's request never reached the
// backend, so that nothing can have happened there, and returns e.
// Executors mark the errors they produce before sending anything, or when
// sending provably failed: a refused connection, a host name that does
// not resolve, a session known to be closed before the request was
// written, a failure to obtain credentials. A failure once the request
// may have left (a broken connection while waiting for the answer, a
// timeout, an error status) is not marked: the backend may have acted on
// it. [SafeToRepeat] lets marked failures run again, whatever the tool.
func MarkNotSent(e *errors.Error) *errors.Error {
	if e.Meta == nil {
		e.Meta = map[string]string{}
	}
	e.Meta[metaNotSent] = "true"
	return e
}

// NotSent reports whether the first *errors.Error of err's chain is
// marked by [MarkNotSent].
func NotSent(err error) bool {
	var e *errors.Error
	return errors.As(err, &e) && e.Meta[metaNotSent] == "true"
}

// IsIdempotent reports whether running call again cannot repeat a side
// effect, because:
//
//   - the call says so (call.Idempotent: the runner sets it for the tools
//     of [WithIdempotentTools], and a pre-call hook may set it);
//   - the tool's annotations say it only reads (readOnlyHint) or that
//     calling it again with the same arguments has no further effect
//     (idempotentHint), as an MCP server declares of its tools, the
//     openapi package of GET, HEAD, OPTIONS, PUT and DELETE operations
//     and grpcexec's import of methods whose idempotency_level is
//     NO_SIDE_EFFECTS or IDEMPOTENT;
//   - its backend is an HTTP request of a method HTTP defines as
//     idempotent: GET, HEAD, OPTIONS, PUT or DELETE.
//
// Annotations are their server's word about its own tools: a server that
// gets them wrong gets the call again.
func IsIdempotent(call *Call) bool {
	if call.Idempotent {
		return true
	}
	if a := call.Tool.Annotations; a != nil && (a.ReadOnlyHint || a.IdempotentHint) {
		return true
	}
	if h := call.Backend.HTTP; call.Backend.Kind == toolmodel.BackendHTTP && h != nil {
		switch strings.ToUpper(h.Method) {
		case "GET", "HEAD", "OPTIONS", "PUT", "DELETE":
			return true
		}
	}
	return false
}

// SafeToRepeat is the rule deciding whether a call that failed with err
// may run again: when its request never reached the backend ([NotSent]),
// or when running it again cannot repeat a side effect ([IsIdempotent]).
// err may be nil for a call that ran and failed as a tool, or whose
// result was refused: it then runs again only when it is idempotent.
//
// Whether a failure is worth retrying (its code, the attempts so far,
// the delay) is the [RetryPolicy]'s to decide; whether retrying is safe
// is this rule's, and no policy overrides it.
func SafeToRepeat(call *Call, err error) bool {
	return NotSent(err) || IsIdempotent(call)
}

// DefaultCallTimeout bounds each call, retries included, that sets no
// timeout of its own ([CallOptions.Timeout]) unless the runner is told otherwise
// with [WithDefaultTimeout]: 60 seconds, the default request timeout of
// MCP's reference SDKs.
const DefaultCallTimeout = 60 * time.Second

// callTimeout is the cause of the deadline the runner sets on a call.
type callTimeout struct{ d time.Duration }

func (c *callTimeout) Error() string { return fmt.Sprintf("the call's timeout of %s expired", c.d) }

// noAnswer is the cause of a call whose deadline expired while its
// backend had not answered: its message names the backend and how long
// it had, and it wraps [context.DeadlineExceeded] and the executor's own
// error.
type noAnswer struct {
	msg   string
	cause []error
}

func (e *noAnswer) Error() string   { return e.msg }
func (e *noAnswer) Unwrap() []error { return e.cause }

// timeoutError returns the error of an attempt that the expiry of ctx's
// deadline cut short, with err the executor's error: code timeout, naming
// the backend, and the runner's timeout when it was that one.
func timeoutError(ctx context.Context, call *Call, err error) *errors.Error {
	within := "before the caller's deadline"
	var own *callTimeout
	if errors.As(context.Cause(ctx), &own) {
		within = "within " + own.d.String()
	}
	return errors.E(errors.Timeout, &noAnswer{
		msg:   fmt.Sprintf("no answer from %s %s", describeBackend(&call.Backend), within),
		cause: []error{context.DeadlineExceeded, err},
	})
}

// describeBackend names a backend for a person: `MCP server "fs"`,
// `HTTP API "https://api.example.com"`, `gRPC server "host:443"`.
func describeBackend(b *toolmodel.ToolBackend) string {
	switch {
	case b.Kind == toolmodel.BackendMCP && b.MCP != nil:
		return fmt.Sprintf("MCP server %q", b.MCP.Server)
	case b.Kind == toolmodel.BackendHTTP && b.HTTP != nil:
		return fmt.Sprintf("HTTP API %q", origin(b.HTTP.BaseURL))
	case b.Kind == toolmodel.BackendGRPC && b.GRPC != nil:
		return fmt.Sprintf("gRPC server %q", b.GRPC.Address)
	case b.Kind == toolmodel.BackendLocal && b.Local != nil:
		return fmt.Sprintf("local function %q", b.Local.Name)
	case b.Kind == toolmodel.BackendProvider && b.Provider != nil:
		return fmt.Sprintf("provider %q", b.Provider.Provider)
	}
	return fmt.Sprintf("backend %q", b.Identity())
}

// origin returns the scheme and host of an absolute URL, leaving out the
// user information, path and query, which may hold secrets.
func origin(rawURL string) string {
	scheme, rest, ok := strings.Cut(rawURL, "://")
	if !ok {
		return "?"
	}
	host, _, _ := strings.Cut(rest, "/")
	host, _, _ = strings.Cut(host, "?")
	host, _, _ = strings.Cut(host, "#")
	if i := strings.LastIndexByte(host, '@'); i >= 0 {
		host = host[i+1:]
	}
	return scheme + "://" + host
}
