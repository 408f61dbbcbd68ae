package runner

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/metatools-go/metatools/errors"
)

// Apply sets l on the runner's own process as rlimits (soft and hard
// alike, so that the program cannot raise them again; the CPU time's hard
// limit is a second above the soft one, the soft one's SIGXCPU ending the
// runner with [ExitCPUTime]).
func (l Limits) Apply() error {
	set := func(name string, resource int, soft, hard uint64) error {
		if err := unix.Setrlimit(resource, &unix.Rlimit{Cur: soft, Max: hard}); err != nil {
			return errors.Opf("runner.Limits.Apply", errors.Internal, "set %s to %d: %v", name, soft, err)
		}
		return nil
	}
	if l.CPUTime > 0 {
		// SIGXCPU would be ignored by the Go runtime: end the process with
		// the status that names the limit.
		xcpu := make(chan os.Signal, 1)
		signal.Notify(xcpu, syscall.SIGXCPU)
		go func() {
			<-xcpu
			fmt.Fprintln(os.Stderr, "toolruntime-runner: cpu time limit reached")
			os.Exit(ExitCPUTime)
		}()
		secs := uint64((l.CPUTime + time.Second - 1) / time.Second)
		if err := set("RLIMIT_CPU", unix.RLIMIT_CPU, secs, secs+1); err != nil {
			return err
		}
	}
	for _, r := range []struct {
		name     string
		resource int
		value    int64
	}{
		{"RLIMIT_AS", unix.RLIMIT_AS, l.AddressSpace},
		{"RLIMIT_FSIZE", unix.RLIMIT_FSIZE, l.FileSize},
		{"RLIMIT_NOFILE", unix.RLIMIT_NOFILE, int64(l.OpenFiles)},
		{"RLIMIT_NPROC", unix.RLIMIT_NPROC, int64(l.Processes)},
	} {
		if r.value > 0 {
			if err := set(r.name, r.resource, uint64(r.value), uint64(r.value)); err != nil {
				return err
			}
		}
	}
	if l.FileSize > 0 {
		// A write past RLIMIT_FSIZE then fails with EFBIG instead of
		// killing the process.
		signal.Ignore(syscall.SIGXFSZ)
	}
	return nil
}
