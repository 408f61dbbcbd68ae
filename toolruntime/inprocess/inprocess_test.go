package inprocess_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/inprocess"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// The regular expressions' match timeout runs a process-wide clock of
// regexp2's, which ends a moment after the last match's deadline: it is
// not an execution's.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/dlclark/regexp2/v2.runClock"))
}

func TestConformance(t *testing.T) {
	report := toolruntimetest.RunBackend(t, func(t *testing.T) toolruntime.Backend {
		b, err := inprocess.New(javascript.New(), javascript.NewTypeScript(), toolruntimetest.ProbeEngine())
		require.NoError(t, err)
		return b
	})
	// The backend claims no isolation: nothing may count as an escape, and
	// what would harm the test's process is recorded as not run.
	assert.Empty(t, report.Escapes())
	for _, row := range report.Rows() {
		if row.Way == "probe" && row.Attempt == "fork bomb" {
			assert.Equal(t, toolruntimetest.NotRun, row.Outcome)
		}
	}
}
