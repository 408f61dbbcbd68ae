package toolruntime_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime"
)

// TestLimitsValidateNamesTheFirstNegativeField checks that with several
// negative fields the message is always the same: the first field's.
func TestLimitsValidateNamesTheFirstNegativeField(t *testing.T) {
	l := toolruntime.Limits{CPUTime: -1, Memory: -2, Processes: -3, FileSize: -4}
	for range 50 {
		err := l.Validate()
		require.Error(t, err)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		assert.Equal(t, "limit cpu_time is negative (-1)", err.Error())
	}
	err := toolruntime.Limits{Processes: -3, FileSize: -4}.Validate()
	require.EqualError(t, err, "limit processes is negative (-3)")
	require.NoError(t, toolruntime.Limits{}.Validate())
}
