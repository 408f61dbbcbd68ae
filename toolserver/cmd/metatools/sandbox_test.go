package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLocateSaysHowToGetTheRunner shows that the error for a runner found
// nowhere names the make target that builds it and the setting that
// points to it, and that a configured file that is not there is named by
// its setting.
func TestLocateSaysHowToGetTheRunner(t *testing.T) {
	_, err := sandboxFile{name: "no-such-runner.wasm", setting: "wasmModule", target: "runner-wasm"}.locate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "no-such-runner.wasm is neither next to the metatools executable nor on the PATH")
	assert.Contains(t, err.Error(), "build it with `make runner-wasm`, or set codeMode.sandbox.wasmModule")

	missing := filepath.Join(t.TempDir(), "runner")
	_, err = sandboxFile{missing, "toolruntime-runner", "runner", "runner"}.locate()
	require.Error(t, err)
	assert.Contains(t, err.Error(), "codeMode.sandbox.runner: stat "+missing)

	found, err := sandboxFile{filepath.Join("testdata", "."), "x", "runner", "runner"}.locate()
	require.NoError(t, err)
	assert.Equal(t, "testdata", found)
}
