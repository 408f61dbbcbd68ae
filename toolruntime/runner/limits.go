package runner

import (
	"flag"
	"io"
	"strconv"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// ExitCPUTime is the runner's exit status when it reached its CPU time
// limit: the kernel's SIGXCPU at the soft limit makes it exit with this
// status, so that the host tells a CPU limit from a crash. The hard limit,
// one second later, is the kernel's SIGKILL.
const ExitCPUTime = 3

// Limits are the resource limits the runner applies to its own process, as
// rlimits, before it reads the execution: nothing of the program runs
// before they hold, and the processes it could start inherit them. A zero
// field leaves that resource unlimited. The host passes them as arguments
// ([Limits.Args]); [Main] parses them ([ParseLimits]).
type Limits struct {
	// CPUTime is RLIMIT_CPU, rounded up to a whole second.
	CPUTime time.Duration
	// AddressSpace is RLIMIT_AS in bytes. A Go process reserves address
	// space far beyond what it uses: below about 1 GiB the runner cannot
	// start.
	AddressSpace int64
	// FileSize is RLIMIT_FSIZE in bytes.
	FileSize int64
	// OpenFiles is RLIMIT_NOFILE.
	OpenFiles int
	// Processes is RLIMIT_NPROC: it counts every process of the user, and
	// the kernel does not apply it to root.
	Processes int
}

// The runner's arguments.
const (
	flagCPUTime      = "cpu-time"
	flagAddressSpace = "address-space"
	flagFileSize     = "file-size"
	flagOpenFiles    = "open-files"
	flagProcesses    = "processes"
)

// Args returns the arguments that give l to the runner.
func (l Limits) Args() []string {
	var args []string
	add := func(name string, v int64) {
		if v > 0 {
			args = append(args, "-"+name+"="+strconv.FormatInt(v, 10))
		}
	}
	if l.CPUTime > 0 {
		args = append(args, "-"+flagCPUTime+"="+l.CPUTime.String())
	}
	add(flagAddressSpace, l.AddressSpace)
	add(flagFileSize, l.FileSize)
	add(flagOpenFiles, int64(l.OpenFiles))
	add(flagProcesses, int64(l.Processes))
	return args
}

// ParseLimits parses the runner's arguments ([Limits.Args]). It fails with
// code [errors.InvalidArgument], naming the argument, on an unknown
// argument, a malformed or negative value, or a positional argument.
func ParseLimits(args []string) (Limits, error) {
	var l Limits
	fs := flag.NewFlagSet("toolruntime-runner", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.DurationVar(&l.CPUTime, flagCPUTime, 0, "RLIMIT_CPU")
	fs.Int64Var(&l.AddressSpace, flagAddressSpace, 0, "RLIMIT_AS in bytes")
	fs.Int64Var(&l.FileSize, flagFileSize, 0, "RLIMIT_FSIZE in bytes")
	fs.IntVar(&l.OpenFiles, flagOpenFiles, 0, "RLIMIT_NOFILE")
	fs.IntVar(&l.Processes, flagProcesses, 0, "RLIMIT_NPROC")
	if err := fs.Parse(args); err != nil {
		return Limits{}, errors.Opf("runner.ParseLimits", errors.InvalidArgument, "%v", err)
	}
	if fs.NArg() > 0 {
		return Limits{}, errors.Opf("runner.ParseLimits", errors.InvalidArgument, "unexpected argument %q", fs.Arg(0))
	}
	for name, v := range map[string]int64{
		flagCPUTime: int64(l.CPUTime), flagAddressSpace: l.AddressSpace, flagFileSize: l.FileSize,
		flagOpenFiles: int64(l.OpenFiles), flagProcesses: int64(l.Processes),
	} {
		if v < 0 {
			return Limits{}, errors.Opf("runner.ParseLimits", errors.InvalidArgument, "-%s is negative (%d)", name, v)
		}
	}
	return l, nil
}
