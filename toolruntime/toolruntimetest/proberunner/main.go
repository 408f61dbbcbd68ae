// Command proberunner is the runner of the conformance suite of
// toolruntime backends: toolruntime-runner with, besides JavaScript and
// TypeScript, the probe engine (package toolruntimetest/probe), which does
// for real what an escaped engine could do. Backend tests build it with
// toolruntimetest.BuildRunner; it also builds for GOOS=wasip1 GOARCH=wasm.
package main

import (
	"os"

	"github.com/metatools-go/metatools/toolruntime/toolruntimetest/probe"
)

func main() { os.Exit(probe.Main()) }
