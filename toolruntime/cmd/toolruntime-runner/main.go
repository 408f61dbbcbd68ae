// Command toolruntime-runner runs one program for an out-of-process
// toolruntime backend: it reads the execution from stdin, runs it in the
// built-in JavaScript or TypeScript engine, reaches tools only through the
// gateway protocol on stdin and stdout, and writes the outcome. It is
// started by a backend, not by hand; see the package toolruntime/runner.
package main

import (
	"os"

	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

// The process runs one program: a runtime made ahead for a next one
// would be wasted.
var noSpare = javascript.WithSpareRuntimes(1)

func main() { os.Exit(runner.Main(javascript.New(noSpare), javascript.NewTypeScript(noSpare))) }
