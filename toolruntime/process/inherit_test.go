//go:build linux

package process_test

import (
	"context"
	"encoding/json"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest/probe"
)

// TestSandboxInheritsNoDescriptor opens a file of the host read-write
// without close-on-exec, as a descriptor this process inherited from its
// parent would be: the program's process, with bubblewrap and without,
// does not have it.
func TestSandboxInheritsNoDescriptor(t *testing.T) {
	planted := filepath.Join(t.TempDir(), "host-secret.txt")
	fd, err := syscall.Open(planted, syscall.O_RDWR|syscall.O_CREAT, 0o600)
	require.NoError(t, err)
	t.Cleanup(func() { _ = syscall.Close(fd) })

	runner := toolruntimetest.BuildRunner(t, "", "")
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			b := newBackendOf(t, runner, mode.opts...)
			rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
			require.NoError(t, err)
			engine, err := rt.Engine(toolruntime.Standard, probe.Language)
			require.NoError(t, err)
			f := toolcodetest.NewFixture(t)
			x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: probe.Language, Code: "files",
				Limits: toolcode.Limits{WallTime: 30 * time.Second}})
			require.NoError(t, err)
			var out probe.Outcome
			require.NoError(t, json.Unmarshal(res.Value, &out))
			require.True(t, out.OK, out.Error)
			files, ok := out.Value.([]any)
			require.True(t, ok, "%v", out.Value)
			for _, f := range files {
				assert.NotEqual(t, planted, f, "the sandbox holds a descriptor of the host's file: %v", files)
			}
		})
	}
}
