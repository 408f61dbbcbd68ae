package toolrun

import (
	"context"

	"github.com/metatools-go/metatools/errors"
)

// StreamEventKind says what a [StreamEvent] carries.
type StreamEventKind string

// The kinds of stream event.
const (
	// StreamProgress carries a progress notification.
	StreamProgress StreamEventKind = "progress"
	// StreamChunk carries a partial result.
	StreamChunk StreamEventKind = "chunk"
	// StreamDone ends the stream with the run's result or error.
	StreamDone StreamEventKind = "done"
)

// StreamEvent is one event of [Runner.RunStream]. The [StreamDone] event
// carries Result, Err, or both, as [Runner.Run] returns them.
type StreamEvent struct {
	Kind     StreamEventKind
	Progress *Progress
	Chunk    any
	Result   *RunResult
	Err      error
}

// RunStream runs a tool like [Runner.Run] and delivers, on the returned
// channel, its progress notifications and partial results as they come,
// then one [StreamDone] event with the result or error; then the channel
// is closed. The caller must read the channel to the end or cancel ctx:
// once ctx is done, undelivered progress and chunks are dropped, and the
// final event is still delivered if the caller is reading.
//
// opts is optional, as for [Runner.Run].
func (r *Runner) RunStream(ctx context.Context, toolID string, args map[string]any, opts ...CallOptions) <-chan StreamEvent {
	events := make(chan StreamEvent, 16)
	send := func(ev StreamEvent) {
		select {
		case events <- ev:
		case <-ctx.Done():
		}
	}
	cfg, cfgErr := newCallConfig(opts)
	userProgress, userChunk := cfg.OnProgress, cfg.OnChunk
	cfg.OnProgress = func(p Progress) {
		if userProgress != nil {
			userProgress(p)
		}
		send(StreamEvent{Kind: StreamProgress, Progress: &p})
	}
	cfg.OnChunk = func(c any) {
		if userChunk != nil {
			userChunk(c)
		}
		send(StreamEvent{Kind: StreamChunk, Chunk: c})
	}
	go func() {
		defer close(events)
		var result *RunResult
		var err error
		if cfgErr != nil {
			err = stageError(cfgErr, OpResolve, toolID, "", errors.InvalidArgument)
		} else {
			result, err = r.run(ctx, toolID, args, &cfg)
		}
		done := StreamEvent{Kind: StreamDone, Result: result, Err: err}
		select {
		case events <- done:
		default:
			send(done)
		}
	}()
	return events
}
