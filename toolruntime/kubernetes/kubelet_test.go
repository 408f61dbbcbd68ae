package kubernetes

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	ktesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/remotecommand"
	runtimeapi "k8s.io/cri-api/pkg/apis/runtime/v1"
	"k8s.io/kubelet/pkg/cri/streaming"

	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// podsResource is the pods' resource, for the fake clientset's tracker.
var podsResource = corev1.SchemeGroupVersion.WithResource("pods")

// runnerOnce copies the probe runner (toolruntimetest.BuildRunner) into a
// directory every user may read, for a container running as RunAsUser.
var runnerOnce struct {
	sync.Once
	path string
	dir  string
	err  error
}

func sharedRunner(t testing.TB) string {
	t.Helper()
	built := toolruntimetest.BuildRunner(t, "", "")
	runnerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "kube-runner-") //nolint:usetesting // shared by every test of the binary; TestMain removes it
		if err != nil {
			runnerOnce.err = err
			return
		}
		runnerOnce.dir = dir
		if err = os.Chmod(dir, 0o755); err != nil {
			runnerOnce.err = err
			return
		}
		b, err := os.ReadFile(built)
		if err == nil {
			runnerOnce.path = filepath.Join(dir, "proberunner")
			err = os.WriteFile(runnerOnce.path, b, 0o755) //nolint:gosec // an executable for another user
		}
		runnerOnce.err = err
	})
	require.NoError(t, runnerOnce.err)
	return runnerOnce.path
}

// cluster stands in for a cluster, with Kubernetes' own streaming code:
// the fake clientset is the API's storage; a "kubelet" watches it, runs
// each pod's container as a local process of the runner (with the pod's
// arguments, environment and user), marks the pod Running, serves attach
// through the kubelet's CRI streaming server, and records the container's
// exit in the pod's status; an HTTP server stands in for the API server's
// pods/attach route, asking the streaming server for the attach URL and
// proxying the upgrade to it with apimachinery's UpgradeAwareHandler, as
// the API server does with the kubelet. It isolates nothing.
type cluster struct {
	t       testing.TB
	Client  *fake.Clientset
	Config  *rest.Config
	runner  string
	stream  streaming.Server
	kubelet *httptest.Server
	api     *httptest.Server

	mu         sync.Mutex
	containers map[string]*container // by "namespace/name"
	// images maps an image to the error reason its pull fails with.
	pullFails map[string]string

	watcher watch.Interface
	done    chan struct{}

	// upgrades lists the Upgrade header of each attach request, in order.
	upgrades []string
	// refuseAttach makes the API server refuse every attach, as it does
	// for a server whose Role lacks pods/attach.
	refuseAttach bool
	// userRanges counts the pods given a user namespace of their own.
	userRanges int64
}

// container is one pod's runner process.
type container struct {
	cmd            *exec.Cmd
	stdin          *os.File
	stdout, stderr *os.File
	exited         chan struct{}
	deleted        bool
}

func newCluster(t testing.TB) *cluster {
	t.Helper()
	c := &cluster{t: t, Client: fake.NewClientset(), runner: sharedRunner(t),
		containers: map[string]*container{}, pullFails: map[string]string{}, done: make(chan struct{})}

	// The kubelet's streaming server, on a listener of its own.
	c.kubelet = httptest.NewUnstartedServer(nil)
	cfg := streaming.DefaultConfig
	cfg.Addr = c.kubelet.Listener.Addr().String()
	cfg.BaseURL = &url.URL{Scheme: "http", Host: cfg.Addr}
	s, err := streaming.NewServer(cfg, c)
	require.NoError(t, err)
	c.stream = s
	c.kubelet.Config.Handler = s
	c.kubelet.Start()

	// The API server's pods/attach route.
	c.api = httptest.NewServer(http.HandlerFunc(c.serveAttach))
	c.Config = &rest.Config{Host: c.api.URL}

	// Deleting a pod kills its container before the API call returns, as
	// a grace period of 0 asks.
	c.Client.PrependReactor("delete", "pods", func(a ktesting.Action) (bool, runtime.Object, error) {
		d := a.(ktesting.DeleteAction)
		c.kill(d.GetNamespace() + "/" + d.GetName())
		return false, nil, nil
	})
	w, err := c.Client.CoreV1().Pods("").Watch(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	c.watcher = w
	go c.run()
	t.Cleanup(c.close)
	return c
}

// close stops the kubelet and the servers, killing what still runs.
func (c *cluster) close() {
	c.watcher.Stop()
	<-c.done
	c.mu.Lock()
	keys := make([]string, 0, len(c.containers))
	for k := range c.containers {
		keys = append(keys, k)
	}
	c.mu.Unlock()
	for _, k := range keys {
		c.kill(k)
	}
	c.api.Close()
	c.kubelet.Close()
}

// run is the kubelet's loop: a pod added gets its container started.
func (c *cluster) run() {
	defer close(c.done)
	for ev := range c.watcher.ResultChan() {
		pod, ok := ev.Object.(*corev1.Pod)
		if !ok || ev.Type != watch.Added {
			continue
		}
		c.start(pod)
	}
}

// setStatus writes the pod's status through the tracker, which the
// fake's reactors do not lock: a delete reactor waiting for a container
// cannot block it.
func (c *cluster) setStatus(ns, name string, f func(*corev1.PodStatus)) {
	obj, err := c.Client.Tracker().Get(podsResource, ns, name)
	if err != nil {
		return // deleted
	}
	pod := obj.(*corev1.Pod).DeepCopy()
	f(&pod.Status)
	_ = c.Client.Tracker().Update(podsResource, pod, ns)
}

// start starts the pod's container: the runner, as the pod's user, with
// its arguments and environment and nothing else.
func (c *cluster) start(pod *corev1.Pod) {
	key := pod.Namespace + "/" + pod.Name
	spec := pod.Spec.Containers[0]
	c.mu.Lock()
	reason := c.pullFails[spec.Image]
	c.mu.Unlock()
	if reason != "" {
		c.setStatus(pod.Namespace, pod.Name, func(s *corev1.PodStatus) {
			s.Phase = corev1.PodPending
			s.ContainerStatuses = []corev1.ContainerStatus{{Name: spec.Name, Image: spec.Image,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "image " + spec.Image + " not found"}}}}
		})
		return
	}
	cmd := exec.Command(c.runner, spec.Args...)
	for _, e := range spec.Env {
		cmd.Env = append(cmd.Env, e.Name+"="+e.Value)
	}
	if cmd.Env == nil {
		cmd.Env = []string{}
	}
	cmd.Dir = "/tmp"
	uid, gid := *pod.Spec.SecurityContext.RunAsUser, *pod.Spec.SecurityContext.RunAsGroup
	if hostUsers := pod.Spec.HostUsers; hostUsers != nil && !*hostUsers {
		// A user namespace of its own: the node maps the pod's users to
		// a range of its own that no other pod shares.
		base := c.userRange()
		uid, gid = base+uid, base+gid
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Setpgid: true, Pdeathsig: syscall.SIGKILL,
		Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid), Groups: []uint32{}}, //nolint:gosec // 65532
	}
	ct := &container{cmd: cmd, exited: make(chan struct{})}
	var childIn, childOut, childErr *os.File
	var err error
	if childIn, ct.stdin, err = os.Pipe(); err == nil {
		if ct.stdout, childOut, err = os.Pipe(); err == nil {
			ct.stderr, childErr, err = os.Pipe()
		}
	}
	if err == nil {
		cmd.Stdin, cmd.Stdout, cmd.Stderr = childIn, childOut, childErr
		err = cmd.Start()
		_ = childIn.Close()
		_ = childOut.Close()
		_ = childErr.Close()
	}
	if err != nil {
		c.setStatus(pod.Namespace, pod.Name, func(s *corev1.PodStatus) {
			s.Phase = corev1.PodFailed
			s.ContainerStatuses = []corev1.ContainerStatus{{Name: spec.Name,
				State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: "StartError", ExitCode: 128, Message: err.Error()}}}}
		})
		return
	}
	c.mu.Lock()
	c.containers[key] = ct
	c.mu.Unlock()
	c.setStatus(pod.Namespace, pod.Name, func(s *corev1.PodStatus) {
		s.Phase = corev1.PodRunning
		s.ContainerStatuses = []corev1.ContainerStatus{{Name: spec.Name, Image: spec.Image, Ready: true, ContainerID: "local://" + key,
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: metav1.Now()}}}}
	})
	go func() {
		_ = cmd.Wait()
		code := int32(cmd.ProcessState.ExitCode()) //nolint:gosec // an exit status
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			code = 128 + int32(ws.Signal())
		}
		c.mu.Lock()
		deleted := ct.deleted
		c.mu.Unlock()
		if !deleted {
			c.setStatus(pod.Namespace, pod.Name, func(s *corev1.PodStatus) {
				reason, phase := "Completed", corev1.PodSucceeded
				if code != 0 {
					reason, phase = "Error", corev1.PodFailed
				}
				s.Phase = phase
				s.ContainerStatuses = []corev1.ContainerStatus{{Name: spec.Name, Image: spec.Image,
					State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}}}
			})
		}
		close(ct.exited)
	}()
}

// kill kills the container of key, if it runs, and waits for its end.
func (c *cluster) kill(key string) {
	c.mu.Lock()
	ct := c.containers[key]
	delete(c.containers, key)
	if ct != nil {
		ct.deleted = true
	}
	c.mu.Unlock()
	if ct == nil {
		return
	}
	_ = syscall.Kill(-ct.cmd.Process.Pid, syscall.SIGKILL)
	<-ct.exited
	_ = ct.stdin.Close()
	_ = ct.stdout.Close()
	_ = ct.stderr.Close()
}

// Attach wires the container's stdin, stdout and stderr to the attach
// streams until the container ends; the end of in closes the container's
// stdin (stdinOnce).
func (c *cluster) Attach(ctx context.Context, containerID string, in io.Reader, out, errw io.WriteCloser, _ bool, _ <-chan remotecommand.TerminalSize) error {
	c.mu.Lock()
	ct := c.containers[containerID]
	c.mu.Unlock()
	if ct == nil {
		return fmt.Errorf("container %s is not running", containerID)
	}
	if in != nil {
		go func() {
			_, _ = io.Copy(ct.stdin, in)
			_ = ct.stdin.Close()
		}()
	}
	var wg sync.WaitGroup
	for _, p := range []struct {
		w io.Writer
		r *os.File
	}{{out, ct.stdout}, {errw, ct.stderr}} {
		if p.w == nil {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _ = io.Copy(p.w, p.r)
		}()
	}
	copied := make(chan struct{})
	go func() {
		wg.Wait()
		close(copied)
	}()
	select {
	case <-copied:
	case <-ctx.Done():
		_ = ct.stdout.Close()
		_ = ct.stderr.Close()
		<-copied
	}
	return nil
}

// Exec is not used: the backend only attaches.
func (c *cluster) Exec(context.Context, string, []string, io.Reader, io.WriteCloser, io.WriteCloser, bool, <-chan remotecommand.TerminalSize) error {
	return fmt.Errorf("exec is not served by this kubelet")
}

// PortForward is not used: the backend only attaches.
func (c *cluster) PortForward(context.Context, string, int32, io.ReadWriteCloser) error {
	return fmt.Errorf("port-forward is not served by this kubelet")
}

// serveAttach is the API server's pods/attach route: it asks the
// kubelet's streaming server for an attach URL and proxies the upgrade
// request to it.
func (c *cluster) serveAttach(w http.ResponseWriter, r *http.Request) {
	// /api/v1/namespaces/{ns}/pods/{name}/attach
	parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
	if len(parts) != 7 || parts[0] != "api" || parts[1] != "v1" || parts[2] != "namespaces" || parts[4] != "pods" || parts[6] != "attach" {
		http.NotFound(w, r)
		return
	}
	ns, name := parts[3], parts[5]
	c.mu.Lock()
	c.upgrades = append(c.upgrades, strings.ToLower(r.Header.Get("Upgrade")))
	refuse := c.refuseAttach
	c.mu.Unlock()
	if refuse {
		// As the API server answers: a Status.
		status := apierrors.NewForbidden(podsResource.GroupResource(), name, fmt.Errorf(`cannot create resource "pods/attach"`)).Status()
		status.APIVersion, status.Kind = "v1", "Status"
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		_ = json.NewEncoder(w).Encode(status)
		return
	}
	if _, err := c.Client.Tracker().Get(podsResource, ns, name); err != nil {
		http.Error(w, err.Error(), http.StatusNotFound)
		return
	}
	q := r.URL.Query()
	resp, err := c.stream.GetAttach(&runtimeapi.AttachRequest{
		ContainerId: ns + "/" + name,
		Stdin:       q.Get("stdin") == "true",
		Stdout:      q.Get("stdout") == "true",
		Stderr:      q.Get("stderr") == "true",
	})
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	loc, err := url.Parse(resp.Url)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	transport := &http.Transport{DialContext: (&net.Dialer{Timeout: 5 * time.Second}).DialContext, DisableKeepAlives: true}
	defer transport.CloseIdleConnections()
	h := proxy.NewUpgradeAwareHandler(loc, transport, false, true, responder{})
	h.ServeHTTP(w, r)
}

// responder answers a failed proxy request with 502.
type responder struct{}

func (responder) Error(w http.ResponseWriter, _ *http.Request, err error) {
	http.Error(w, err.Error(), http.StatusBadGateway)
}

// failPull makes the pull of image fail with reason.
func (c *cluster) failPull(image, reason string) {
	c.mu.Lock()
	c.pullFails[image] = reason
	c.mu.Unlock()
}

// newBackend returns a backend on the cluster, which isolates nothing.
func (c *cluster) newBackend(t testing.TB, opts ...Option) *Backend {
	t.Helper()
	b, err := New(c.Client, c.Config, append([]Option{WithImage("proberunner:test"), WithGuarantees(Guarantees{})}, opts...)...)
	require.NoError(t, err)
	return b
}

// userRange returns the first node user of the range of a new pod with
// a user namespace of its own: 65536 users past those of the pods before.
func (c *cluster) userRange() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.userRanges++
	return 1<<20 + c.userRanges<<16
}

// attachUpgrades returns the Upgrade header of each attach request so far.
func (c *cluster) attachUpgrades() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.upgrades...)
}

// running returns the pids of the containers that run.
func (c *cluster) running() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pids []int
	for _, ct := range c.containers {
		select {
		case <-ct.exited:
		default:
			pids = append(pids, ct.cmd.Process.Pid)
		}
	}
	return pids
}
