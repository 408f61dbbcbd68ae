//go:build !wasip1 && !js

package probe

import (
	"os"
	"os/exec"
	"strconv"

	"github.com/metatools-go/metatools/errors"
)

// startSelf runs the probe's own executable with [FlagExit] and returns its
// exit status: a process started at all is what the probe looks for.
func startSelf() (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	cmd := exec.Command(exe, FlagExit)
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	err = cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return 0, err
	}
	return cmd.ProcessState.ExitCode(), nil
}

// forkSelf starts n processes of the probe's own executable that sleep a
// minute, and returns how many started. It waits for none of them: they
// are left for the backend to stop, as a fork bomb would leave them.
func forkSelf(n int, token string) (int, error) {
	exe, err := os.Executable()
	if err != nil {
		return 0, err
	}
	for i := range n {
		cmd := exec.Command(exe, FlagSleep, token, strconv.Itoa(i))
		if err := cmd.Start(); err != nil {
			return i, err
		}
		// Release the process without waiting: the probe leaves it behind.
		_ = cmd.Process.Release()
	}
	return n, nil
}
