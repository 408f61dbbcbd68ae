package process_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
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
	b, err := process.New(runnerPath, opts...)
	require.NoError(t, err)
	return b
}

func TestConformance(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, newBackend(t, mode.opts...)))
			require.NoError(t, err)
			for _, lang := range []string{"javascript", "typescript"} {
				t.Run(lang, func(t *testing.T) {
					toolcodetest.RunEngine(t, func() toolcode.Engine {
						e, err := rt.Engine(toolruntime.Standard, lang)
						require.NoError(t, err)
						return e
					})
				})
			}
		})
	}
}
