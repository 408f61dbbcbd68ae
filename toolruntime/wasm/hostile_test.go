//go:build linux

package wasm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
)

// TestHostilePrograms runs each program of the hostile suite under the
// hardened profile (the runner in a WebAssembly module, its memory capped
// by pages), in this process, one after the other: the module's memory is
// part of it, so its resident size is what the programs can make it grow.
// Each must end with its limit in time, leave nothing running, keep the
// process's growth within the cap and a margin, and let searches of the
// catalogue answer meanwhile.
func TestHostilePrograms(t *testing.T) {
	const memory = 128 << 20
	cfg := toolcodetest.HostileConfig{
		WallTime: time.Second,
		Settle:   10 * time.Second,
		// No spare instance: the goroutines of the module are the
		// execution's alone.
		Engine:     []string{"toolruntime/wasm.(*Backend).Run", "toolruntime/gateway.Host"},
		Goroutines: true,
		Language:   javascript.LanguageJavaScript,
		Also:       []string{toolruntime.LimitMemory, toolruntime.LimitCPUTime, toolcode.LimitWallTime},
	}
	reports := toolcodetest.RunHostileInProcess(t, cfg, func(t *testing.T, f *toolcodetest.Fixture) *toolcode.Executor {
		rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, unspared),
			toolruntime.WithLimits(toolruntime.Limits{Memory: memory}))
		require.NoError(t, err)
		engine, err := rt.Engine(toolruntime.Hardened, javascript.LanguageJavaScript)
		require.NoError(t, err)
		return toolcode.New(f.Ops, toolcode.WithEngine(engine))
	})
	toolcodetest.CheckHostile(t, reports, cfg, 500*time.Millisecond, 2*memory)
}
