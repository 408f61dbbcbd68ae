package runner_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

func TestLimitsArgsRoundTrip(t *testing.T) {
	for _, l := range []runner.Limits{
		{},
		{CPUTime: 2 * time.Second, AddressSpace: 1 << 30, FileSize: 1 << 20, OpenFiles: 64, Processes: 32},
		{CPUTime: 1500 * time.Millisecond},
	} {
		got, err := runner.ParseLimits(l.Args())
		require.NoError(t, err)
		assert.Equal(t, l, got)
	}
}

func TestParseLimitsRejects(t *testing.T) {
	for name, args := range map[string][]string{
		"unknown":    {"-memory=1"},
		"malformed":  {"-file-size=big"},
		"negative":   {"-open-files=-1"},
		"positional": {"extra"},
		"duration":   {"-cpu-time=5"},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := runner.ParseLimits(args)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}

func FuzzParseLimits(f *testing.F) {
	f.Add("-cpu-time=2s")
	f.Add("-address-space=1073741824")
	f.Add("-processes=-3")
	f.Fuzz(func(t *testing.T, arg string) {
		l, err := runner.ParseLimits([]string{arg})
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			return
		}
		back, err := runner.ParseLimits(l.Args())
		require.NoError(t, err)
		assert.Equal(t, l, back)
	})
}
