//go:build !linux

package runner

import (
	"runtime"

	"github.com/metatools-go/metatools/errors"
)

// Apply sets l on the runner's own process. The runner sets rlimits on
// Linux only: elsewhere it refuses limits rather than run without them.
func (l Limits) Apply() error {
	if l == (Limits{}) {
		return nil
	}
	return errors.Opf("runner.Limits.Apply", errors.Unsupported, "the runner applies limits on linux only, not on %s", runtime.GOOS)
}
