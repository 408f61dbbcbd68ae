package probe

import (
	"os"
	"time"

	"github.com/metatools-go/metatools/toolcode/javascript"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

// Main is the main function of the command proberunner: the runner
// ([runner.Main]) with the JavaScript, TypeScript and probe engines, which
// also answers the flags the probe starts it with ([FlagExit],
// [FlagSleep]). It returns the process's exit status.
func Main() int {
	if len(os.Args) > 1 {
		switch os.Args[1] {
		case FlagExit:
			return 0
		case FlagSleep:
			// A process the probe left behind: it lives long enough for
			// the suite to find it if the backend does not stop it.
			time.Sleep(time.Minute)
			return 0
		}
	}
	// Like toolruntime-runner, one program per process: no spare runtime.
	noSpare := javascript.WithSpareRuntimes(0)
	return runner.Main(javascript.New(noSpare), javascript.NewTypeScript(noSpare), New())
}
