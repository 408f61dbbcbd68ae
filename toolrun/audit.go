package toolrun

import (
	"context"
	"encoding/json"
	"io"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
)

// RequestInfo identifies the request of a client that a call serves: a
// gateway sets it on the context of each request ([WithRequestInfo]), and
// the audit log ([AuditLog]) and any [EventPublisher] read it
// ([RequestInfoFrom]).
type RequestInfo struct {
	// ID identifies the request, unique in the gateway's logs.
	ID string
	// Session is the client's session, when it has one.
	Session string
}

type requestInfoKey struct{}

// WithRequestInfo returns ctx carrying the request it serves.
func WithRequestInfo(ctx context.Context, r RequestInfo) context.Context {
	return context.WithValue(ctx, requestInfoKey{}, r)
}

// RequestInfoFrom returns the request ctx serves; the zero RequestInfo
// when there is none.
func RequestInfoFrom(ctx context.Context) RequestInfo {
	r, _ := ctx.Value(requestInfoKey{}).(RequestInfo)
	return r
}

// AuditRecord is one line of the audit log: a call that ended, or was
// refused.
type AuditRecord struct {
	Time time.Time `json:"time"`
	// Request and Session identify the client's request
	// ([RequestInfo]); Trace is the call's trace ID, when it is traced.
	Request string `json:"request,omitempty"`
	Session string `json:"session,omitempty"`
	Trace   string `json:"trace,omitempty"`
	// Caller is the call's metadata: who asked (an OAuth subject, ...).
	Caller  map[string]string `json:"caller,omitempty"`
	Tool    string            `json:"tool"`
	Backend string            `json:"backend,omitempty"`
	// Outcome is "ok", "tool_error" (the tool ran and failed), or the
	// code of the call's error.
	Outcome  string `json:"outcome"`
	Millis   int64  `json:"durationMs"`
	Attempts int    `json:"attempts"`
	// ArgBytes is the size of the arguments' JSON, as the maskers show
	// them.
	ArgBytes int `json:"argBytes"`
	// Args are the arguments as the maskers show them, when the log
	// records them ([AuditArguments]).
	Args json.RawMessage `json:"args,omitempty"`
}

// AuditLog is an [EventPublisher] that writes one JSON line
// ([AuditRecord]) per call that ended to a writer — one that ran, or one
// of a tool that was found but refused before it ran ([EventRefused]: a
// policy, a hook, invalid arguments) — when, for which request and
// caller, which tool on which backend, the outcome, how long and how
// large its arguments were. It never writes the arguments unless
// told to ([AuditArguments]), and then as the runner's maskers show them,
// never an error's message. Lines are written whole, one at a time.
type AuditLog struct {
	mu   sync.Mutex
	w    io.Writer
	args bool
	// failed reports that a write failed; the log goes on.
	failed func(error)
}

// AuditOption configures an [AuditLog].
type AuditOption func(*AuditLog)

// AuditArguments makes the log record the calls' arguments, as the
// runner's maskers show them.
func AuditArguments() AuditOption { return func(l *AuditLog) { l.args = true } }

// AuditErrors receives the errors of the writes that failed; by default
// they are dropped.
func AuditErrors(fn func(error)) AuditOption { return func(l *AuditLog) { l.failed = fn } }

// NewAuditLog returns an audit log writing to w (a file opened to
// append, standard error). Give it to the runner with
// [WithEventPublisher].
func NewAuditLog(w io.Writer, opts ...AuditOption) *AuditLog {
	l := &AuditLog{w: w}
	for _, opt := range opts {
		opt(l)
	}
	return l
}

var _ EventPublisher = (*AuditLog)(nil)

// NewAuditRecord returns the audit record of a result or refusal event
// published with ctx, without the arguments: what [AuditLog] writes, for
// publishers that keep the records otherwise (in memory, for a console).
func NewAuditRecord(ctx context.Context, e Event) AuditRecord {
	req := RequestInfoFrom(ctx)
	rec := AuditRecord{
		Time: e.Time.UTC(), Request: req.ID, Session: req.Session, Caller: e.Metadata,
		Tool: e.ToolID, Backend: e.Backend, Outcome: "ok",
		Millis: e.Duration.Milliseconds(), Attempts: e.Attempts, ArgBytes: len(e.Args),
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		rec.Trace = sc.TraceID().String()
	}
	switch {
	case e.Err != nil:
		rec.Outcome = string(errors.CodeOf(e.Err))
	case e.ToolError:
		rec.Outcome = ErrorTypeToolError
	}
	return rec
}

// Publish writes the line of a result or refusal event; it ignores
// start events.
func (l *AuditLog) Publish(ctx context.Context, e Event) {
	if e.Kind == EventStart {
		return
	}
	rec := NewAuditRecord(ctx, e)
	if l.args && json.Valid([]byte(e.Args)) {
		rec.Args = json.RawMessage(e.Args)
	}
	line, err := json.Marshal(rec)
	if err != nil {
		l.fail(err)
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, err := l.w.Write(append(line, '\n')); err != nil {
		l.fail(err)
	}
}

func (l *AuditLog) fail(err error) {
	if l.failed != nil {
		l.failed(err)
	}
}
