package console_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver/internal/console"
)

func TestCallsKeepTheLatest(t *testing.T) {
	calls := console.NewCalls(3)
	assert.Empty(t, calls.Recent())
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, tool := range []string{"a:1", "a:2", "a:3", "a:4", "a:5"} {
		calls.Publish(context.Background(), toolrun.Event{Kind: toolrun.EventStart, ToolID: "ignored:" + tool, Time: at})
		calls.Publish(context.Background(), toolrun.Event{Kind: toolrun.EventResult, ToolID: tool, Time: at.Add(time.Duration(i) * time.Second),
			Duration: 1500 * time.Microsecond, Attempts: 1, ToolError: i == 4})
	}
	var tools, outcomes []string
	for _, rec := range calls.Recent() {
		tools = append(tools, rec.Tool)
		outcomes = append(outcomes, rec.Outcome)
	}
	assert.Equal(t, []string{"a:5", "a:4", "a:3"}, tools, "the three latest, latest first; start events are no calls")
	assert.Equal(t, []string{"tool_error", "ok", "ok"}, outcomes)
	assert.Equal(t, int64(1), calls.Recent()[0].Millis)
	calls = console.NewCalls(0)
	calls.Publish(context.Background(), toolrun.Event{Kind: toolrun.EventResult, ToolID: "a:6"})
	assert.Len(t, calls.Recent(), 1, "a record of no call keeps one")
}
