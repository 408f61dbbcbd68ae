//go:build wasip1 || js

package probe

import "github.com/metatools-go/metatools/errors"

// startSelf fails: there are no processes on this platform.
func startSelf() (int, error) {
	return 0, errors.Errorf(errors.Unsupported, "no process can be started on this platform")
}

// forkSelf fails: there are no processes on this platform.
func forkSelf(int, string) (int, error) {
	return 0, errors.Errorf(errors.Unsupported, "no process can be started on this platform")
}
