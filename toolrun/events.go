package toolrun

import (
	"context"
	"log/slog"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// EventKind says what an [Event] reports.
type EventKind string

// The kinds of event.
const (
	// EventStart: a call passed its checks and is about to execute.
	EventStart EventKind = "start"
	// EventResult: a call ended, with a result or an error.
	EventResult EventKind = "result"
	// EventRefused: a call of a tool that was found did not start, its
	// error saying why: its authorization refused it, a hook stopped it,
	// its arguments were invalid. Its Args are empty: arguments a policy
	// refuses are not shown.
	EventRefused EventKind = "refused"
)

// Event is what the runner publishes about a call.
type Event struct {
	Kind    EventKind
	ToolID  string
	Backend string
	// Args are the call's arguments as the maskers let them be shown, in
	// compact JSON.
	Args string
	// Metadata is the call's metadata.
	Metadata map[string]string
	// Time is when the event happened.
	Time time.Time
	// Duration, Attempts, ToolError and Err are set on result events.
	Duration time.Duration
	Attempts int
	// ToolError reports that the tool ran and failed.
	ToolError bool
	// Err is the run's error, if any.
	Err error
}

// EventPublisher receives the runner's events. Publish is called on the
// caller's goroutine and must be quick; it must not modify the event.
// Events of concurrent calls are published concurrently: implementations
// must be safe for concurrent use.
//
// A publisher that panics fails the call at [OpPublish] with code
// [errors.Internal], and keeps no other publisher from the event. On the
// start event, the call then does not run; on the result event, the call
// keeps its result, which the caller gets with the error (see "Panics" in
// the package documentation).
type EventPublisher interface {
	Publish(ctx context.Context, event Event)
}

// EventPublisherFunc adapts a function to the [EventPublisher] interface.
type EventPublisherFunc func(ctx context.Context, event Event)

// Publish calls f(ctx, event).
func (f EventPublisherFunc) Publish(ctx context.Context, event Event) { f(ctx, event) }

// SlogPublisher is an [EventPublisher] that logs each event with a
// [slog.Logger]: start events at debug level, results and refusals (with
// their code, not their message) at info, failures at warn.
type SlogPublisher struct {
	logger *slog.Logger
}

// NewSlogPublisher returns a publisher logging to logger, or to
// [slog.Default] when logger is nil.
func NewSlogPublisher(logger *slog.Logger) *SlogPublisher {
	if logger == nil {
		logger = slog.Default()
	}
	return &SlogPublisher{logger: logger}
}

var _ EventPublisher = (*SlogPublisher)(nil)

// Publish implements [EventPublisher].
func (p *SlogPublisher) Publish(ctx context.Context, e Event) {
	attrs := []slog.Attr{slog.String("tool", e.ToolID), slog.String("backend", e.Backend)}
	if e.Kind == EventStart {
		attrs = append(attrs, slog.String("args", e.Args))
		p.logger.LogAttrs(ctx, slog.LevelDebug, "tool call started", attrs...)
		return
	}
	if e.Kind == EventRefused {
		attrs = append(attrs, slog.String("code", string(errors.CodeOf(e.Err))))
		p.logger.LogAttrs(ctx, slog.LevelInfo, "tool call refused", attrs...)
		return
	}
	attrs = append(attrs, slog.Duration("duration", e.Duration), slog.Int("attempts", e.Attempts))
	switch {
	case e.Err != nil:
		attrs = append(attrs, slog.String("code", string(errors.CodeOf(e.Err))), slog.String("error", e.Err.Error()))
		p.logger.LogAttrs(ctx, slog.LevelWarn, "tool call failed", attrs...)
	case e.ToolError:
		p.logger.LogAttrs(ctx, slog.LevelWarn, "tool reported an error", attrs...)
	default:
		p.logger.LogAttrs(ctx, slog.LevelInfo, "tool call finished", attrs...)
	}
}
