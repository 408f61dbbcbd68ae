// Package kubernetes is a toolruntime backend that runs each program in a
// Pod of its own, created through client-go, for users who outgrow one
// machine. It is a module of its own, so that only its users compile
// client-go.
//
//	b, err := kubernetes.New(clientset, restConfig,
//		kubernetes.WithImage("registry.example/toolruntime-runner@sha256:..."),
//		kubernetes.WithGuarantees(kubernetes.Guarantees{Containers: true, EgressDenied: true}))
//	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, b))
//
// # How a program runs
//
// Each execution creates a Pod in the backend's namespace whose one
// container is the runner's image, with stdin open (stdin and stdinOnce,
// no TTY), restartPolicy Never, the runner's rlimits as its arguments
// (CPU time, file size, processes; see the package runner), and nothing
// in its environment but GOTRACEBACK and GOMEMLIMIT. The backend waits,
// with a watch, for the container to run, attaches to its stdin, stdout
// and stderr through the pods/attach subresource with client-go's
// remotecommand (WebSocket, falling back to SPDY as kubectl does), and
// serves the execution over those streams with the gateway protocol. The
// program reaches tools only through the gateway, which runs in the host:
// the pod gets no credential, no service account token, no service
// links. The Pod is deleted (grace period 0, on a context detached from
// the run's) on every way out of Run. When the program ends early (its
// deadline, the caller's cancellation, its error), Run deletes the Pod
// first and then waits for the attach stream to end, which it does once
// the kubelet has killed the container; after 10 s it cuts the stream.
// (Cutting a SPDY stream still being set up would leave client-go's
// goroutines waiting half a minute for replies.)
//
// The Pod meets the restricted Pod Security Standard: runAsNonRoot as
// user and group 65532, a read-only root file system, every capability
// dropped, no privilege escalation, the RuntimeDefault seccomp profile,
// no host namespace, and a size-limited emptyDir as /tmp.
//
// # What bounds a program, and by what
//
// The backend cannot inspect the cluster: [Guarantees] says what the
// cluster guarantees, and [Backend.Enforces] claims only that.
//
//   - Wall time: the host deletes the pod at the deadline; the pod's
//     activeDeadlineSeconds (wall time + 30 s) is the kubelet's backstop.
//   - CPU time, file size, processes: the runner's rlimits. The runner is
//     not root, so RLIMIT_NPROC binds; it counts every process of user
//     65532 on the node, so pods sharing a node share the count, unless
//     each pod has a user namespace of its own ([WithUserNamespace]); set
//     the kubelet's podPidsLimit too.
//   - Memory: the pod's memory limit (the kubelet's cgroup; an OOM kill is
//     reported as toolcode.LimitError(toolruntime.LimitMemory)) when
//     Guarantees.Containers; otherwise RLIMIT_AS at
//     max(memory, process.MinAddressSpace), claimed only when that is the
//     memory asked for.
//   - Environment and files: the container, when Guarantees.Containers.
//   - Network: a NetworkPolicy denying egress, when
//     Guarantees.EgressDenied (deploy/networkpolicy.yaml).
//
// A runner that ends without answering is classified from its pod's
// status: OOMKilled is the memory limit, exit status runner.ExitCPUTime
// the CPU limit, DeadlineExceeded a timeout. A pod that cannot start (an
// image that cannot be pulled, a pod the scheduler cannot place) fails
// with code errors.Unavailable, not a hang; an attach the API server
// refuses (a Role without pods/attach) fails with the refusal's code
// (errors.PermissionDenied).
//
// # Warm pool
//
// [WithWarmPool] keeps pods started ahead with toolruntime.DefaultLimits;
// see the module's README for the trade-off and measured figures.
//
// # Leftovers
//
// Every pod carries the labels app.kubernetes.io/managed-by=
// metatools-toolruntime and app.kubernetes.io/instance=<instance>:
// [Backend.Reap] deletes the instance's pods a host that died left
// behind.
package kubernetes
