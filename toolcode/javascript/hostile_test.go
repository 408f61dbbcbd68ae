//go:build linux

package javascript_test

import (
	"testing"
	"time"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
)

var hostileConfig = toolcodetest.HostileConfig{
	WallTime:  time.Second,
	Settle:    10 * time.Second,
	MemoryCap: 2 << 30,
	Engine:    []string{"github.com/dop251/goja"},
	Language:  javascript.LanguageJavaScript,
}

// TestHostilePrograms runs each program of the hostile suite in a process
// of its own, under a memory cap, and checks that the engine stops it
// with its limit, in time, without growing the process's memory past the
// engine's bound or holding up a search of the catalogue.
func TestHostilePrograms(t *testing.T) {
	if toolcodetest.HostileChild(t, hostileConfig, func(t *testing.T, f *toolcodetest.Fixture) *toolcode.Executor {
		// A small bound: one step of a program may take about the bound
		// again, and hold the other goroutines for as long as it copies.
		return toolcode.New(f.Ops, toolcode.WithEngine(javascript.New(javascript.WithMemoryLimit(8<<20))))
	}) {
		return
	}
	reports := toolcodetest.RunHostile(t, "TestHostilePrograms", hostileConfig)
	toolcodetest.CheckHostile(t, reports, hostileConfig, 500*time.Millisecond, 128<<20)
}
