package kubernetes

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/httpstream"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/remotecommand"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
	"github.com/metatools-go/metatools/toolruntime/process"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

// exitGrace is how long a runner that broke off the protocol gets for its
// pod's status to say why it ended (an OOM kill, the CPU limit's exit
// status) before the backend deletes the pod.
const exitGrace = 5 * time.Second

// deleteTimeout bounds the deletion of a pod, which runs on a context of
// its own: the run's may be done already.
const deleteTimeout = 30 * time.Second

// Backend runs each program in a Pod of its own; see the package
// documentation. It is safe for concurrent use.
type Backend struct {
	client kubernetes.Interface
	rest   *rest.Config
	cfg    config
	pool   *pool
}

var _ toolruntime.Backend = (*Backend)(nil)

// New returns a backend that creates its pods through client and attaches
// to them with config (the same cluster's; its credentials stay in the
// host). [WithImage] is required. With [WithWarmPool], New starts the
// pool's pods in the background; call [Backend.Close] to delete them.
func New(client kubernetes.Interface, config *rest.Config, opts ...Option) (*Backend, error) {
	c := defaultConfig()
	for _, o := range opts {
		if err := o(&c); err != nil {
			return nil, errors.WithOp("kubernetes.New", err)
		}
	}
	switch {
	case client == nil:
		return nil, errors.Opf("kubernetes.New", errors.InvalidArgument, "no client")
	case config == nil:
		return nil, errors.Opf("kubernetes.New", errors.InvalidArgument, "no rest.Config")
	case c.image == "":
		return nil, errors.Opf("kubernetes.New", errors.InvalidArgument, "no runner image (WithImage)")
	}
	if c.instance == "" {
		c.instance = "metatools"
	}
	b := &Backend{client: client, rest: rest.CopyConfig(config), cfg: c}
	if c.warm > 0 {
		b.pool = newPool(b, c.warm)
	}
	return b, nil
}

// Name returns "kubernetes".
func (b *Backend) Name() string { return "kubernetes" }

// Enforces reports what holds under l, given the cluster's [Guarantees]:
// see the package documentation.
func (b *Backend) Enforces(l toolruntime.Limits) toolruntime.LimitsEnforced {
	return b.enforces(l, nil)
}

func (b *Backend) enforces(l toolruntime.Limits, wallTime any) toolruntime.LimitsEnforced {
	g := b.cfg.guarantees
	rl := b.rlimits(l)
	out := toolruntime.LimitsEnforced{
		toolruntime.Enforce(toolcode.LimitWallTime, wallTime, "pod deleted at deadline + activeDeadlineSeconds"),
		toolruntime.Enforce(toolruntime.LimitCPUTime, rl.CPUTime, "rlimit"),
	}
	switch {
	case g.Containers:
		out = append(out, toolruntime.Enforce(toolruntime.LimitMemory, l.Memory, "pod memory limit"))
	case rl.AddressSpace == l.Memory:
		out = append(out, toolruntime.Enforce(toolruntime.LimitMemory, rl.AddressSpace, "rlimit address space"))
	default:
		// The address space a Go runner needs is far above the memory
		// asked for: the rlimit is a backstop, not this bound.
		out = append(out, toolruntime.NotEnforced(toolruntime.LimitMemory))
	}
	out = append(out,
		// The runner runs as RunAsUser, not root: RLIMIT_NPROC binds.
		toolruntime.Enforce(toolruntime.LimitProcesses, l.Processes, "rlimit"),
		toolruntime.Enforce(toolruntime.LimitFileSize, l.FileSize, "rlimit"))
	if g.Containers {
		out = append(out,
			toolruntime.Enforce(toolruntime.IsolateEnvironment, nil, "container"),
			toolruntime.Enforce(toolruntime.IsolateFiles, nil, "container"))
	} else {
		out = append(out, toolruntime.NotEnforced(toolruntime.IsolateEnvironment), toolruntime.NotEnforced(toolruntime.IsolateFiles))
	}
	if g.EgressDenied {
		out = append(out, toolruntime.Enforce(toolruntime.IsolateNetwork, nil, "network policy"))
	} else {
		out = append(out, toolruntime.NotEnforced(toolruntime.IsolateNetwork))
	}
	return out
}

// rlimits returns the runner's rlimits under l: what a container does not
// bound by itself (CPU time, file size, processes), and the address space
// when the memory cgroup of a container is not guaranteed.
func (b *Backend) rlimits(l toolruntime.Limits) runner.Limits {
	rl := runner.Limits{
		CPUTime:   (l.CPUTime + time.Second - 1).Truncate(time.Second),
		FileSize:  l.FileSize,
		OpenFiles: 256,
		Processes: l.Processes,
	}
	if !b.cfg.guarantees.Containers {
		rl.AddressSpace = max(l.Memory, process.MinAddressSpace)
	}
	return rl
}

// Run runs one program in a pod of its own; see [toolruntime.Backend].
// The pod is deleted when Run returns, whatever the outcome.
func (b *Backend) Run(ctx context.Context, req toolruntime.Request) (toolruntime.Result, error) {
	res := toolruntime.Result{Enforced: b.enforces(req.Limits, req.Program.WallTime)}
	if err := errors.FromContext(ctx, "kubernetes.Run", context.Cause(ctx)); err != nil {
		return res, err
	}
	if err := req.Limits.Validate(); err != nil {
		return res, errors.WithOp("kubernetes.Run", err)
	}
	started := time.Now()
	var name string
	if b.pool != nil {
		name = b.pool.take(req.Limits)
	}
	if name == "" {
		name = podName()
		if err := b.createPod(ctx, b.podFor(name, req.Limits, req.Program.WallTime)); err != nil {
			// A pod the API created although the call failed.
			b.deletePod(ctx, name)
			return res, errors.WithOp("kubernetes.Run", err)
		}
	}
	remove := sync.OnceFunc(func() { b.deletePod(ctx, name) })
	defer remove()
	if _, err := b.waitRunning(ctx, name); err != nil {
		return res, errors.WithOp("kubernetes.Run", err)
	}
	res.Startup = time.Since(started)
	value, err := b.attachAndHost(ctx, name, req, remove)
	if err == nil {
		res.Value = value
	}
	return res, err
}

// createPod creates pod.
func (b *Backend) createPod(ctx context.Context, pod *corev1.Pod) error {
	_, err := b.client.CoreV1().Pods(b.cfg.namespace).Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		return apiError(ctx, "create pod", err)
	}
	return nil
}

// deletePod deletes the pod name at once (grace period 0), on a context
// detached from ctx, which may be done already.
func (b *Backend) deletePod(ctx context.Context, name string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), deleteTimeout)
	defer cancel()
	zero := int64(0)
	_ = b.client.CoreV1().Pods(b.cfg.namespace).Delete(ctx, name, metav1.DeleteOptions{GracePeriodSeconds: &zero})
}

// apiError turns a failed API call into an error with a code: the
// context's when it is done.
func apiError(ctx context.Context, what string, err error) error {
	if e := errors.FromContext(ctx, "", context.Cause(ctx)); e != nil {
		return e
	}
	code := errors.Unavailable
	switch {
	case apierrors.IsForbidden(err):
		code = errors.PermissionDenied
	case apierrors.IsUnauthorized(err):
		code = errors.Unauthenticated
	case apierrors.IsInvalid(err), apierrors.IsBadRequest(err):
		code = errors.InvalidArgument
	case apierrors.IsAlreadyExists(err):
		code = errors.Conflict
	case apierrors.IsNotFound(err):
		code = errors.NotFound
	}
	return errors.Errorf(code, "%s: %v", what, err)
}

// waitRunning waits, with a watch, for the pod's container to run, and
// fails with code errors.Unavailable when it cannot start (an image that
// cannot be pulled, a pod the scheduler cannot place, a container that
// ended already), or with the context's error.
func (b *Backend) waitRunning(ctx context.Context, name string) (*corev1.Pod, error) {
	pods := b.client.CoreV1().Pods(b.cfg.namespace)
	selector := fields.OneTermEqualSelector("metadata.name", name).String()
	rv := ""
	for {
		w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: selector, ResourceVersion: rv})
		if err != nil {
			return nil, apiError(ctx, "watch pod", err)
		}
		// A status written between the creation and the watch is not
		// an event of the watch: read it once.
		pod, err := pods.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			w.Stop()
			return nil, apiError(ctx, "get pod", err)
		}
		if done, err := started(pod); done {
			w.Stop()
			return pod, err
		}
		pod, rv, err = b.watchUntilRunning(ctx, w, name)
		w.Stop()
		if pod != nil || err != nil {
			return pod, err
		}
	}
}

// watchUntilRunning follows w until the pod runs or cannot; it returns a
// nil pod and error when the watch ended first, with the last resource
// version seen.
func (b *Backend) watchUntilRunning(ctx context.Context, w watch.Interface, name string) (*corev1.Pod, string, error) {
	rv := ""
	for {
		select {
		case <-ctx.Done():
			return nil, rv, errors.FromContext(ctx, "", context.Cause(ctx))
		case ev, ok := <-w.ResultChan():
			if !ok {
				return nil, rv, nil
			}
			if ev.Type == watch.Error {
				err := apierrors.FromObject(ev.Object)
				if apierrors.IsResourceExpired(err) || apierrors.IsGone(err) {
					// Watch again from the current state.
					return nil, "", nil
				}
				return nil, rv, errors.Errorf(errors.Unavailable, "watch pod %s: %v", name, err)
			}
			// A watch that ignores the field selector (a proxy, a fake
			// clientset) reports other pods too: only this pod's events count.
			pod, ok := ev.Object.(*corev1.Pod)
			if !ok || pod.Name != name {
				continue
			}
			if ev.Type == watch.Deleted {
				return nil, rv, errors.Errorf(errors.Unavailable, "pod %s was deleted before it ran", name)
			}
			rv = pod.ResourceVersion
			if done, err := started(pod); done {
				return pod, rv, err
			}
		}
	}
}

// startFailures are the reasons of a waiting container that will not
// start by itself soon.
var startFailures = map[string]bool{
	"ErrImagePull": true, "ImagePullBackOff": true, "InvalidImageName": true,
	"ErrImageNeverPull": true, "CreateContainerConfigError": true, "CreateContainerError": true,
	"RunContainerError": true,
}

// started reports whether the pod's container runs (done, nil), cannot
// (done, an error of code errors.Unavailable), or may yet (not done).
func started(pod *corev1.Pod) (bool, error) {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return true, errors.Errorf(errors.Unavailable, "pod %s ended before the backend attached to it (%s): %s", pod.Name, pod.Status.Phase, describe(pod))
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return true, errors.Errorf(errors.Unavailable, "pod %s cannot be scheduled: %s", pod.Name, c.Message)
		}
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name != ContainerName {
			continue
		}
		switch {
		case cs.State.Running != nil:
			return true, nil
		case cs.State.Terminated != nil:
			return true, errors.Errorf(errors.Unavailable, "the runner of pod %s ended before the backend attached to it: %s", pod.Name, describe(pod))
		case cs.State.Waiting != nil && startFailures[cs.State.Waiting.Reason]:
			return true, errors.Errorf(errors.Unavailable, "the runner of pod %s cannot start: %s: %s", pod.Name, cs.State.Waiting.Reason, cs.State.Waiting.Message)
		}
	}
	return false, nil
}

// describe summarizes the pod's status for an error message.
func describe(pod *corev1.Pod) string {
	var parts []string
	if pod.Status.Reason != "" {
		parts = append(parts, "reason "+pod.Status.Reason)
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if t := cs.State.Terminated; t != nil {
			parts = append(parts, fmt.Sprintf("container %s terminated (%s, exit status %d) %s", cs.Name, t.Reason, t.ExitCode, strings.TrimSpace(t.Message)))
		}
	}
	if len(parts) == 0 {
		return string(pod.Status.Phase)
	}
	return strings.Join(parts, "; ")
}

// streamGrace is how long the attach stream gets to end by itself once
// the pod is deleted, before the backend cancels it: cancelling a SPDY
// stream still being set up leaves client-go's goroutines waiting for
// replies that never come (half a minute), while a deleted container's
// attach ends cleanly on both sides.
const streamGrace = 10 * time.Second

// attachAndHost attaches to the pod's container and serves the execution
// over its stdin and stdout. remove deletes the pod; it is called before
// the attach stream is waited for on every way out but the runner's own
// end, whose pod's status is read first.
func (b *Backend) attachAndHost(ctx context.Context, name string, req toolruntime.Request, remove func()) (json []byte, err error) {
	exec, err := b.executor(name)
	if err != nil {
		return nil, err
	}
	stdinR, stdinW := io.Pipe()
	stdoutR, stdoutW := io.Pipe()
	stderr := runner.NewStderr(b.cfg.stderrTail)
	// The stream is not tied to ctx: see streamGrace.
	streamCtx, cancelStream := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelStream()
	var streamErr error
	streamDone := make(chan struct{})
	go func() {
		defer close(streamDone)
		streamErr = exec.StreamWithContext(streamCtx, remotecommand.StreamOptions{Stdin: stdinR, Stdout: stdoutW, Stderr: stderr})
		// The guest's output ends with the stream: Host reads the end.
		_ = stdoutW.Close()
		_ = stdinR.Close()
	}()
	// end closes the guest's stdin, deletes the pod (unless keep) and
	// waits for the stream to end.
	end := func(keep bool) {
		_ = stdinW.Close()
		if !keep {
			remove()
		}
		t := time.NewTimer(streamGrace)
		defer t.Stop()
		select {
		case <-streamDone:
		case <-t.C:
			cancelStream()
			<-streamDone
		}
		_ = stdoutR.Close()
	}
	value, err := gateway.Host(ctx, stdoutR, stdinW, gateway.Execution{Language: req.Language, Code: req.Code, Limits: req.Program}, req.Tools, 0)
	switch {
	case err == nil:
		end(false)
		return value, nil
	case ctx.Err() != nil:
		end(false)
		return nil, errors.FromContext(ctx, "kubernetes.Run", context.Cause(ctx))
	case !vanished(err) && !errors.Is(err, io.ErrClosedPipe):
		// The program's own error, or a guest breaking the protocol.
		end(false)
		return nil, err
	}
	// The runner ended without answering, or the attach stream did
	// (closing the pipes Host used).
	end(true)
	return nil, b.classify(ctx, name, err, streamErr, stderr, req.Limits)
}

// vanished reports whether err is the host's "the guest ended without
// answering", as opposed to an error the guest sent.
func vanished(err error) bool {
	var e *errors.Error
	return errors.As(err, &e) && e.Code == errors.Unavailable && e.Op == "gateway.Host"
}

// executor returns the executor of an attach to the pod's container:
// WebSocket with a fallback to SPDY, as kubectl does, or SPDY alone.
func (b *Backend) executor(name string) (remotecommand.Executor, error) {
	u, err := b.attachURL(name)
	if err != nil {
		return nil, err
	}
	spdy, err := remotecommand.NewSPDYExecutor(b.rest, http.MethodPost, u)
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "attach executor: %v", err)
	}
	if b.cfg.spdyOnly {
		return spdy, nil
	}
	ws, err := remotecommand.NewWebSocketExecutor(b.rest, http.MethodGet, u.String())
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "attach executor: %v", err)
	}
	fallback, err := remotecommand.NewFallbackExecutor(ws, spdy, func(err error) bool {
		return httpstream.IsUpgradeFailure(err) || httpstream.IsHTTPSProxyError(err)
	})
	if err != nil {
		return nil, errors.Errorf(errors.Internal, "attach executor: %v", err)
	}
	return fallback, nil
}

// attachURL returns the URL of the pod's attach subresource, for the
// container's stdin, stdout and stderr.
func (b *Backend) attachURL(name string) (*url.URL, error) {
	c := rest.CopyConfig(b.rest)
	c.APIPath = "/api"
	c.GroupVersion = &corev1.SchemeGroupVersion
	base, path, err := rest.DefaultServerUrlFor(c)
	if err != nil {
		return nil, errors.Errorf(errors.InvalidArgument, "rest.Config host %q: %v", b.rest.Host, err)
	}
	u := *base
	u.Path = strings.TrimRight(path, "/") + "/namespaces/" + b.cfg.namespace + "/pods/" + name + "/attach"
	q := url.Values{}
	q.Set("container", ContainerName)
	q.Set("stdin", "true")
	q.Set("stdout", "true")
	q.Set("stderr", "true")
	u.RawQuery = q.Encode()
	return &u, nil
}

// classify turns the end of a runner that did not answer into the error
// of the limit that ended it, read from its pod's status, or an internal
// error with the end of its stderr.
func (b *Backend) classify(ctx context.Context, name string, hostErr, streamErr error, stderr *runner.Stderr, l toolruntime.Limits) error {
	if streamErr != nil {
		// An attach that failed (refused, cut) while the runner still
		// runs says nothing of the runner: report the attach.
		pod, err := b.client.CoreV1().Pods(b.cfg.namespace).Get(ctx, name, metav1.GetOptions{})
		if err == nil && !terminated(pod) {
			return errors.WithOp("kubernetes.Run", apiError(ctx, "attach to pod "+name, streamErr))
		}
	}
	pod := b.waitTerminated(ctx, name)
	if err := errors.FromContext(ctx, "kubernetes.Run", context.Cause(ctx)); err != nil {
		return err
	}
	status := "status unknown"
	if pod != nil {
		if pod.Status.Reason == "DeadlineExceeded" {
			return errors.Opf("kubernetes.Run", errors.Timeout, "pod %s reached its activeDeadlineSeconds", name)
		}
		for _, cs := range pod.Status.ContainerStatuses {
			t := cs.State.Terminated
			if cs.Name != ContainerName || t == nil {
				continue
			}
			switch {
			case t.Reason == "OOMKilled":
				return errors.WithOp("kubernetes.Run", toolcode.LimitError(toolruntime.LimitMemory, l.Memory))
			case t.ExitCode == runner.ExitCPUTime:
				return errors.WithOp("kubernetes.Run", toolcode.LimitError(toolruntime.LimitCPUTime, l.CPUTime))
			case !b.cfg.guarantees.Containers && strings.Contains(stderr.String(), "out of memory"):
				// The runtime's allocation failed under RLIMIT_AS.
				return errors.WithOp("kubernetes.Run", toolcode.LimitError(toolruntime.LimitMemory, l.Memory))
			}
		}
		status = describe(pod)
	}
	detail := fmt.Sprint(hostErr)
	if streamErr != nil {
		detail += "; attach: " + streamErr.Error()
	}
	return errors.Opf("kubernetes.Run", errors.Internal, "the runner ended without answering (%s: %s); its stderr ends with: %s", status, detail, stderr.String())
}

// waitTerminated waits, at most exitGrace, for the pod's container to be
// reported terminated, and returns the last pod read (nil when none).
func (b *Backend) waitTerminated(ctx context.Context, name string) *corev1.Pod {
	ctx, cancel := context.WithTimeout(ctx, exitGrace)
	defer cancel()
	pods := b.client.CoreV1().Pods(b.cfg.namespace)
	w, err := pods.Watch(ctx, metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("metadata.name", name).String()})
	if err != nil {
		return nil
	}
	defer w.Stop()
	pod, err := pods.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	for !terminated(pod) {
		select {
		case <-ctx.Done():
			return pod
		case ev, ok := <-w.ResultChan():
			if !ok {
				return pod
			}
			if p, ok := ev.Object.(*corev1.Pod); ok && p.Name == name {
				pod = p
			}
		}
	}
	return pod
}

// terminated reports whether the pod or its runner's container has ended.
func terminated(pod *corev1.Pod) bool {
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		return true
	}
	for _, cs := range pod.Status.ContainerStatuses {
		if cs.Name == ContainerName && cs.State.Terminated != nil {
			return true
		}
	}
	return false
}

// Reap deletes every pod of this backend's instance in its namespace:
// pods left by a host that died before it could delete them. Call it at
// start-up, before the first execution (it would delete running ones).
func (b *Backend) Reap(ctx context.Context) error {
	sel := labels.SelectorFromSet(labels.Set{LabelManagedBy: ManagedBy, LabelInstance: b.cfg.instance}).String()
	pods := b.client.CoreV1().Pods(b.cfg.namespace)
	list, err := pods.List(ctx, metav1.ListOptions{LabelSelector: sel})
	if err != nil {
		return errors.WithOp("kubernetes.Reap", apiError(ctx, "list pods", err))
	}
	zero := int64(0)
	var errs []error
	for _, p := range list.Items {
		if err := pods.Delete(ctx, p.Name, metav1.DeleteOptions{GracePeriodSeconds: &zero}); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, apiError(ctx, "delete pod "+p.Name, err))
		}
	}
	if len(errs) > 0 {
		return errors.WithOp("kubernetes.Reap", errors.Join(errs...))
	}
	return nil
}

// Close stops the warm pool and deletes its pods; executions running keep
// their pods until they end. The backend runs no program after Close
// from the pool, only cold. Close is idempotent.
func (b *Backend) Close() error {
	if b.pool == nil {
		return nil
	}
	return b.pool.close()
}
