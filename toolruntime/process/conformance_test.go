package process_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// modes are the ways the backend runs on this machine: with bubblewrap
// (required, so that its absence fails the test rather than weakening it)
// and without.
var modes = []struct {
	name string
	opts []process.Option
}{
	{"bubblewrap", []process.Option{process.RequireBubblewrap()}},
	{"plain", []process.Option{process.WithoutBubblewrap()}},
}

func newBackend(t testing.TB, opts ...process.Option) *process.Backend {
	t.Helper()
	return newBackendOf(t, runnerPath, opts...)
}

// newBackendOf returns a backend of the runner at path, closed (its
// processes started ahead stopped) when t ends.
func newBackendOf(t testing.TB, path string, opts ...process.Option) *process.Backend {
	t.Helper()
	b, err := process.New(path, opts...)
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, b.Close(context.Background())) })
	return b
}

// startup bounds the start of a runner process on a loaded machine, for
// the engine cases that give a program a short wall time to make a call.
const startup = 2 * time.Second

func TestConformance(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			// The suite closes each backend, and checks that nothing of
			// its pool is left.
			report := toolruntimetest.RunBackend(t, func(t *testing.T) toolruntime.Backend {
				b, err := process.New(toolruntimetest.BuildRunner(t, "", ""), mode.opts...)
				require.NoError(t, err)
				return b
			}, toolcodetest.OutOfProcess(startup))
			t.Logf("process backend (%s):\n%s", mode.name, report)
		})
	}
}
