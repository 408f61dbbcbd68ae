//go:build linux

package process_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest/probe"
)

// TestSandboxRunsUnprivileged checks that the program's process, with
// bubblewrap and without, runs as an unprivileged user when this process
// is root (nobody by default, or the user given), and as this process's
// user otherwise; and that it can write its private directory.
func TestSandboxRunsUnprivileged(t *testing.T) {
	runner := toolruntimetest.BuildRunner(t, "", "")
	root := os.Geteuid() == 0
	tests := []struct {
		name     string
		opts     []process.Option
		uid, gid int
	}{
		{"bubblewrap", []process.Option{process.RequireBubblewrap()}, process.DefaultUser, process.DefaultGroup},
		{"plain", []process.Option{process.WithoutBubblewrap()}, process.DefaultUser, process.DefaultGroup},
		{"bubblewrap, given user", []process.Option{process.RequireBubblewrap(), process.WithUser(4321, 4322)}, 4321, 4322},
		{"plain, given user", []process.Option{process.WithoutBubblewrap(), process.WithUser(4321, 4322)}, 4321, 4322},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := newBackendOf(t, runner, tc.opts...)
			uid, gid, switched := b.User()
			assert.Equal(t, root, switched)
			want := []any{float64(os.Getuid()), float64(os.Geteuid()), float64(os.Getgid()), float64(os.Getegid())}
			if root {
				assert.Equal(t, []uint32{uint32(tc.uid), uint32(tc.gid)}, []uint32{uid, gid})
				want = []any{float64(tc.uid), float64(tc.uid), float64(tc.gid), float64(tc.gid)}
			}
			rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
			require.NoError(t, err)
			engine, err := rt.Engine(toolruntime.Standard, probe.Language)
			require.NoError(t, err)
			f := toolcodetest.NewFixture(t)
			x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
			res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: probe.Language,
				Code: "uid\nwrite scratch.txt written", Limits: toolcode.Limits{WallTime: 30 * time.Second}})
			require.NoError(t, err)
			var out []probe.Outcome
			require.NoError(t, json.Unmarshal(res.Value, &out))
			require.Len(t, out, 2)
			require.True(t, out[0].OK, out[0].Error)
			assert.Equal(t, want, out[0].Value, "uid, euid, gid, egid")
			assert.True(t, out[1].OK, "write in the private directory: %s", out[1].Error)
		})
	}
}

// TestUserOptions checks the options of the sandbox's user: root is
// refused, and, under root, a runner the user cannot reach fails New
// rather than every execution (bubblewrap, run as that user, cannot bind
// it).
func TestUserOptions(t *testing.T) {
	_, err := process.New(runnerPath, process.WithUser(0, 0))
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
	_, err = process.New(runnerPath, process.WithUser(1000, 0))
	require.Error(t, err)
	assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))

	if os.Geteuid() != 0 {
		t.Skip("the unreachable runner needs root")
	}
	hidden := t.TempDir()
	require.NoError(t, os.Chmod(hidden, 0o700))
	data, err := os.ReadFile(runnerPath)
	require.NoError(t, err)
	path := filepath.Join(hidden, "toolruntime-runner")
	require.NoError(t, os.WriteFile(path, data, 0o755))
	_, err = process.New(path, process.RequireBubblewrap())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "Permission denied")
	// Without bubblewrap, the error says why the runner did not start.
	_, err = process.New(path, process.WithoutBubblewrap())
	require.Error(t, err)
	assert.Contains(t, err.Error(), "permission denied")
	assert.Contains(t, err.Error(), "(it runs as uid 65534, which must be able to enter every folder above it and run it)")
}
