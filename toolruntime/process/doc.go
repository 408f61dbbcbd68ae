// Package process is the backend of the standard profile: each program
// runs in a fresh child process of the runner (the command
// toolruntime-runner, or one's own built on the package runner), which
// reaches tools only through the gateway protocol on its stdin and stdout.
// It runs on Linux; elsewhere [New] fails with code errors.Unsupported.
//
//	proc, err := process.New("/usr/libexec/toolruntime-runner")
//	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, proc))
//
// # What bounds a program, and by what
//
// Every execution gets a new process: started with nothing of the host's
// environment (only GOTRACEBACK and GOMEMLIMIT, which the backend sets), in
// a private temporary directory removed afterwards, in a process group of
// its own that is killed (SIGKILL to the group) on every way out of Run —
// success, the program's error, the deadline, the caller's context, a
// guest breaking the protocol — and with the parent-death signal set, so
// that it dies with the host. Its stderr is kept, its first and last
// kilobytes, for the internal error of a runner that ends without
// answering.
//
// The runner applies its rlimits to itself, from the arguments the backend
// gives it ([runner.Limits]), before it reads the execution: nothing of the
// program runs before they hold.
//
//   - CPU time: RLIMIT_CPU, rounded up to a second; at the soft limit the
//     runner exits with runner.ExitCPUTime, a second later the kernel
//     kills it. Reported as toolcode.LimitError(toolruntime.LimitCPUTime).
//   - Memory: the memory cgroup (memory.max on v2, memory.limit_in_bytes on
//     v1) when there is one; an OOM kill (memory.events or
//     memory.oom_control) is reported as LimitError(LimitMemory). Without
//     a cgroup, RLIMIT_AS at max(Limits.Memory, [MinAddressSpace]) — a Go
//     process needs far more address space than memory — and the row says
//     that value, not the one asked for.
//   - File size: RLIMIT_FSIZE (a write past it fails with EFBIG).
//   - Processes: the pids cgroup (pids.max). Without it, RLIMIT_NPROC,
//     which the kernel does not apply to root: for a host running as root
//     the row says not enforced.
//   - Open files: RLIMIT_NOFILE (256, [WithOpenFiles]); not a row.
//   - Wall time: the engine's own deadline in the runner, and the host
//     killing the process group at the deadline.
//   - Environment: always isolated (a clean environment).
//   - Files and network: only with bubblewrap.
//   - User: when the host runs as root, the runner (and bubblewrap, which
//     then makes an unprivileged user namespace) runs as nobody, uid and
//     gid 65534 with no supplementary group, or as [WithUser] says; the
//     private directory is that user's. A program never runs as root. New
//     runs the runner once as that user, so that a runner it cannot reach
//     fails there. A host that is not root runs the runner as itself.
//
// # cgroups
//
// [New] looks for cgroup v2 with the memory and pids controllers (enabling
// them in the parent's cgroup.subtree_control if it may), else for the v1
// memory and pids hierarchies, and probes each by creating and removing a
// cgroup. Each execution gets a cgroup of its own in each, under the
// host's own cgroup by default (so that what bounds the host bounds its
// programs too) or under [WithCgroupParent]; the runner is moved in before
// the program is sent, and the cgroup is emptied and removed afterwards.
// Creating cgroups usually needs root, or a delegated sub-tree; without
// one the rows fall back as said above. [WithoutCgroup] turns them off.
//
// # bubblewrap
//
// When bwrap is in PATH ([WithBubblewrap] names another), works (New runs
// the runner once under it) and [WithoutBubblewrap] is not given, the
// runner runs under bubblewrap: --unshare-all (no network but lo, its own
// pid, ipc, uts, cgroup and user namespaces), --die-with-parent,
// --new-session, --clearenv, no capability, and a file system holding
// only the runner (read-only, so it must be a static binary: build it with
// CGO_ENABLED=0), /proc, a minimal /dev, and the private directory as
// /tmp. Nothing of the host's home or working directory is there. The
// sandbox's first process waits (--block-fd) until the backend has moved
// it into the cgroups, so that everything it starts is in them.
// [RequireBubblewrap] makes New fail when bubblewrap is missing; without
// it the files and network rows say not enforced, which the hardened
// profile refuses.
//
// # Processes started ahead
//
// Starting a sandbox (bubblewrap's namespaces and mounts, the cgroups,
// the Go runtime of the runner) is most of the cost of a short program.
// The backend keeps [DefaultSpares] processes started ahead ([WithSpares]),
// for each set of [toolruntime.Limits] it has run programs under: each
// started as a cold start does, with those limits, its start-up over
// (the runner has sent the gateway's ready notification and waits for
// its execution). An execution takes one, runs its program in it, and
// the process is destroyed as any other; a goroutine starts the next in
// the background and ends when the pool is full, so that a full pool
// holds processes but no goroutine. Nothing passes from one execution to
// the next: each process serves one program. A process that ended while
// it waited is not used. [Backend.Warm] fills a pool ahead of the first
// program; [Backend.Close] stops the pools and waits until their
// processes are gone.
//
// # Cost
//
// A process per execution. On a two-core machine busy with other builds
// and tests (median of six runs of BenchmarkStartup), a trivial program
// took 59 ms cold and 12 ms on a process started ahead without
// bubblewrap, 99 ms cold and 24 ms warm under it (on the same machine
// quiet, cold starts take 23 and 32 ms). What is left of a warm
// execution is the runner's own work (its engine's runtime made, the
// program run, the answer sent) and the end of its process (killed,
// reaped, its namespaces torn down). A tool call through the gateway
// costs about half a millisecond against some 30 µs in process
// (BenchmarkToolCall).
package process
