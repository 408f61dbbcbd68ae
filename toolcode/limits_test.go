package toolcode_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// TestLimitsValidate checks that Validate names the first negative field
// in the order of the fields, so that with several the message is always
// the same.
func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name   string
		limits toolcode.Limits
		want   string // "" when the limits are valid
	}{
		{"zero", toolcode.Limits{}, ""},
		{"defaults", toolcode.DefaultLimits, ""},
		{"tool calls", toolcode.Limits{ToolCalls: -1}, "limit tool_calls is negative (-1)"},
		{"chain steps", toolcode.Limits{ChainSteps: -2}, "limit chain_steps is negative (-2)"},
		{"wall time", toolcode.Limits{WallTime: -time.Second}, "limit wall_time is negative (-1000000000)"},
		{"output bytes", toolcode.Limits{OutputBytes: -4}, "limit output_bytes is negative (-4)"},
		{"concurrency", toolcode.Limits{Concurrency: -5}, "limit concurrency is negative (-5)"},
		{"all negative", toolcode.Limits{ToolCalls: -1, ChainSteps: -2, WallTime: -3, OutputBytes: -4, Concurrency: -5},
			"limit tool_calls is negative (-1)"},
		{"the last two negative", toolcode.Limits{OutputBytes: -4, Concurrency: -5}, "limit output_bytes is negative (-4)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.limits.Validate()
			if tt.want == "" {
				require.NoError(t, err)
				return
			}
			require.EqualError(t, err, tt.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}
