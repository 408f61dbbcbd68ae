package toolruntime_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime"
)

// TestLimitsValidate checks that Validate names the first negative field
// in the order of the fields, so that with several the message is always
// the same.
func TestLimitsValidate(t *testing.T) {
	tests := []struct {
		name   string
		limits toolruntime.Limits
		want   string // "" when the limits are valid
	}{
		{"zero", toolruntime.Limits{}, ""},
		{"positive", toolruntime.Limits{CPUTime: time.Second, Memory: 1, Processes: 1, FileSize: 1}, ""},
		{"cpu time", toolruntime.Limits{CPUTime: -1}, "limit cpu_time is negative (-1)"},
		{"memory", toolruntime.Limits{Memory: -2}, "limit memory is negative (-2)"},
		{"processes", toolruntime.Limits{Processes: -3}, "limit processes is negative (-3)"},
		{"file size", toolruntime.Limits{FileSize: -4}, "limit file_size is negative (-4)"},
		{"all negative", toolruntime.Limits{CPUTime: -1, Memory: -2, Processes: -3, FileSize: -4}, "limit cpu_time is negative (-1)"},
		{"the last two negative", toolruntime.Limits{Processes: -3, FileSize: -4}, "limit processes is negative (-3)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Map iteration would name any of several negative fields,
			// differently from one call to the next.
			for range 50 {
				err := tt.limits.Validate()
				if tt.want == "" {
					require.NoError(t, err)
					continue
				}
				require.EqualError(t, err, tt.want)
				assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			}
		})
	}
}
