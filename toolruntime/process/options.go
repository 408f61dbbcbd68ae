package process

import "github.com/metatools-go/metatools/errors"

// Option configures a [Backend].
type Option func(*config) error

type config struct {
	bwrap        string // path given, or "" to look in PATH
	bwrapMode    bwrapMode
	cgroupParent string
	noCgroup     bool
	openFiles    int
	stderrTail   int
	onStart      func(pid int)
	user         *credential
	warm         int
}

// credential is the user and group a sandbox runs as.
type credential struct{ uid, gid uint32 }

// DefaultUser and DefaultGroup are the user and group IDs the runner runs
// as when this process runs as root (see [WithUser]): nobody and nogroup.
const (
	DefaultUser  = 65534
	DefaultGroup = 65534
)

type bwrapMode int

const (
	bwrapAuto bwrapMode = iota
	bwrapRequired
	bwrapOff
)

// WithBubblewrap uses the bubblewrap executable at path instead of the
// one found in PATH.
func WithBubblewrap(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.Errorf(errors.InvalidArgument, "WithBubblewrap: empty path")
		}
		c.bwrap = path
		return nil
	}
}

// RequireBubblewrap makes [New] fail, with code [errors.Unsupported], when
// bubblewrap is missing or does not work, instead of running programs
// without namespaces.
func RequireBubblewrap() Option {
	return func(c *config) error {
		if c.bwrapMode == bwrapOff {
			return errors.Errorf(errors.InvalidArgument, "RequireBubblewrap and WithoutBubblewrap exclude each other")
		}
		c.bwrapMode = bwrapRequired
		return nil
	}
}

// WithoutBubblewrap runs programs without bubblewrap even when it is
// present: no file system or network isolation, which [Backend.Enforces]
// then reports.
func WithoutBubblewrap() Option {
	return func(c *config) error {
		if c.bwrapMode == bwrapRequired {
			return errors.Errorf(errors.InvalidArgument, "RequireBubblewrap and WithoutBubblewrap exclude each other")
		}
		c.bwrapMode = bwrapOff
		return nil
	}
}

// WithCgroupParent creates the cgroup of each execution under the cgroup
// at path (relative to the root of each hierarchy, like "/metatools")
// instead of under the host process's own cgroup.
func WithCgroupParent(path string) Option {
	return func(c *config) error {
		if path == "" {
			return errors.Errorf(errors.InvalidArgument, "WithCgroupParent: empty path")
		}
		c.cgroupParent = path
		return nil
	}
}

// WithoutCgroup uses no cgroup even when the machine has one: memory is
// then bounded by the address space rlimit, processes by nothing for root,
// which [Backend.Enforces] reports.
func WithoutCgroup() Option {
	return func(c *config) error {
		c.noCgroup = true
		return nil
	}
}

// WithOpenFiles sets the runner's RLIMIT_NOFILE (default 256).
func WithOpenFiles(n int) Option {
	return func(c *config) error {
		if n < 16 {
			return errors.Errorf(errors.InvalidArgument, "WithOpenFiles: %d is below 16, too few for the runner", n)
		}
		c.openFiles = n
		return nil
	}
}

// DefaultSpares is how many runner processes the backend keeps started
// ahead of the executions, for each set of limits it runs programs under
// (see [WithSpares]).
const DefaultSpares = 1

// MaxWarmLimits is how many different sets of limits the backend keeps
// processes started ahead for; the pool of the limits used least recently
// goes first. A [toolruntime.Runtime] runs all its programs under one.
const MaxWarmLimits = 4

// WithSpares keeps n runner processes started ahead of the executions
// (default [DefaultSpares]; 0 starts each process when its execution comes).
// A process started ahead is what a cold start makes, with its limits:
// under bubblewrap, in its cgroups, with its rlimits and private
// directory, its start-up done, waiting for its execution (it has sent
// the gateway's ready notification). It serves one execution and is then
// destroyed as any other; the pool starts another in the background.
//
// The pool is kept per set of [toolruntime.Limits]: the first execution
// under limits starts cold and fills their pool; a process is never given
// to an execution under other limits. A process started ahead holds its
// memory (about 10 MiB) and counts against the processes of its user.
// [Backend.Close] stops the pools.
func WithSpares(n int) Option {
	return func(c *config) error {
		if n < 0 {
			return errors.Errorf(errors.InvalidArgument, "WithSpares: negative number of processes %d", n)
		}
		c.warm = n
		return nil
	}
}

// WithUser sets the user and group IDs the runner (and bubblewrap, which
// starts it) runs as when this process runs as root; the default is
// [DefaultUser] and [DefaultGroup]. uid 0 is refused: a program never
// runs as root. When this process is not root, the runner runs as its
// user and the option has no effect.
func WithUser(uid, gid uint32) Option {
	return func(c *config) error {
		if uid == 0 || gid == 0 {
			return errors.Errorf(errors.InvalidArgument, "WithUser: the sandbox must not run as root (uid %d, gid %d)", uid, gid)
		}
		c.user = &credential{uid: uid, gid: gid}
		return nil
	}
}
