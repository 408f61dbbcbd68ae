//go:build !linux

package process

import (
	"context"
	"runtime"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolruntime"
)

// MinAddressSpace is the smallest RLIMIT_AS the runner gets on Linux.
const MinAddressSpace = 1 << 30

// Backend runs programs in processes of the runner, on Linux only.
type Backend struct{}

var (
	_ toolruntime.Backend = (*Backend)(nil)
	_ toolruntime.Warmer  = (*Backend)(nil)
	_ toolruntime.Closer  = (*Backend)(nil)
)

// New fails with code [errors.Unsupported]: the backend relies on Linux's
// rlimits, cgroups, parent-death signal and namespaces, and runs programs
// nowhere else rather than without them.
func New(string, ...Option) (*Backend, error) {
	return nil, errors.Opf("process.New", errors.Unsupported, "the process backend runs on linux only, not on %s", runtime.GOOS)
}

// Name returns "process".
func (*Backend) Name() string { return "process" }

// Bubblewrap returns "".
func (*Backend) Bubblewrap() string { return "" }

// Enforces reports nothing enforced.
func (*Backend) Enforces(toolruntime.Limits) toolruntime.LimitsEnforced { return nil }

// Run fails with code [errors.Unsupported].
func (*Backend) Run(context.Context, toolruntime.Request) (toolruntime.Result, error) {
	return toolruntime.Result{}, errors.Opf("process.Run", errors.Unsupported, "the process backend runs on linux only, not on %s", runtime.GOOS)
}

// Warm returns nil: there is no pool.
func (*Backend) Warm(context.Context, toolruntime.Limits) error { return nil }

// Close returns nil: there is nothing to stop.
func (*Backend) Close(context.Context) error { return nil }
