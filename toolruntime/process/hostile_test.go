//go:build linux

package process_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
)

var hostileConfig = toolcodetest.HostileConfig{
	WallTime:  time.Second,
	Settle:    10 * time.Second,
	MemoryCap: 2 << 30,
	// The backend's goroutines: the gateway's and the watch of the
	// runner's process.
	Engine:   []string{"toolruntime/gateway.", "toolruntime/process.(*"},
	Language: javascript.LanguageJavaScript,
	// The runner's own limits, and the wall time: memory is slow to get
	// in the sandbox, and a program growing it may meet its deadline
	// first.
	Also: []string{toolruntime.LimitMemory, toolruntime.LimitCPUTime, toolcode.LimitWallTime},
}

// TestHostilePrograms runs each program of the hostile suite under the
// standard profile (the runner in bubblewrap, in its cgroups, as nobody
// when the host is root), with the host in a process of its own, and
// checks that each ends with its limit in time, that nothing of it is
// left, that the host's memory stays put and that searches of the
// catalogue answer meanwhile.
func TestHostilePrograms(t *testing.T) {
	if toolcodetest.HostileChild(t, hostileConfig, func(t *testing.T, f *toolcodetest.Fixture) *toolcode.Executor {
		b, err := process.New(runnerPath, process.RequireBubblewrap())
		require.NoError(t, err)
		rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b),
			toolruntime.WithLimits(toolruntime.Limits{Memory: 256 << 20, CPUTime: 10 * time.Second}))
		require.NoError(t, err)
		engine, err := rt.Engine(toolruntime.Standard, javascript.LanguageJavaScript)
		require.NoError(t, err)
		return toolcode.New(f.Ops, toolcode.WithEngine(engine))
	}) {
		return
	}
	reports := toolcodetest.RunHostile(t, "TestHostilePrograms", hostileConfig)
	toolcodetest.CheckHostile(t, reports, hostileConfig, 500*time.Millisecond, 256<<20)
}
