package kubernetes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"
	ktesting "k8s.io/client-go/testing"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
)

// onCreate returns a fake clientset that calls f on each pod created,
// before the API stores it: f writes the status a kubelet would.
func onCreate(f func(*corev1.Pod)) *fake.Clientset {
	c := fake.NewClientset()
	c.PrependReactor("create", "pods", func(a ktesting.Action) (bool, runtime.Object, error) {
		f(a.(ktesting.CreateAction).GetObject().(*corev1.Pod))
		return false, nil, nil
	})
	return c
}

func podsLeft(t *testing.T, c *fake.Clientset, ns string) []string {
	t.Helper()
	list, err := c.CoreV1().Pods(ns).List(context.Background(), metav1.ListOptions{})
	require.NoError(t, err)
	var names []string
	for _, p := range list.Items {
		names = append(names, p.Name)
	}
	return names
}

func TestRunPodFailingToStart(t *testing.T) {
	waiting := func(reason string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName,
				State: corev1.ContainerState{Waiting: &corev1.ContainerStateWaiting{Reason: reason, Message: "pull failed"}}}}
		}
	}
	cases := []struct {
		name   string
		status func(*corev1.Pod)
		want   string
	}{
		{"image pull", waiting("ErrImagePull"), "ErrImagePull"},
		{"image pull back-off", waiting("ImagePullBackOff"), "ImagePullBackOff"},
		{"unschedulable", func(p *corev1.Pod) {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodScheduled, Status: corev1.ConditionFalse,
				Reason: corev1.PodReasonUnschedulable, Message: "0/3 nodes are available"}}
		}, "cannot be scheduled"},
		{"failed", func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }, "ended before"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			client := onCreate(c.status)
			b, err := New(client, &rest.Config{Host: "http://127.0.0.1:1"}, WithImage("missing:1"))
			require.NoError(t, err)
			_, err = b.Run(context.Background(), toolruntime.Request{Language: "javascript", Code: "return 1", Limits: toolruntime.DefaultLimits})
			require.Error(t, err)
			assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
			require.ErrorContains(t, err, c.want)
			assert.Empty(t, podsLeft(t, client, DefaultNamespace), "the pod is deleted")
		})
	}
}

func TestRunCanceledWhilePending(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// The pod stays pending; the caller gives up once it exists.
	client := onCreate(func(*corev1.Pod) { cancel() })
	b, err := New(client, &rest.Config{Host: "http://127.0.0.1:1"}, WithImage("r:1"))
	require.NoError(t, err)
	res, err := b.Run(ctx, toolruntime.Request{Language: "javascript", Code: "return 1", Limits: toolruntime.DefaultLimits, Program: toolcode.Limits{WallTime: 1}})
	require.Error(t, err)
	assert.Equal(t, errors.Canceled, errors.CodeOf(err))
	assert.NotEmpty(t, res.Enforced, "the rows are reported on failure too")
	assert.Empty(t, podsLeft(t, client, DefaultNamespace), "the pod is deleted on a context detached from the canceled one")
}

func TestRunCreateRefused(t *testing.T) {
	client := fake.NewClientset()
	client.PrependReactor("create", "pods", func(ktesting.Action) (bool, runtime.Object, error) {
		return true, nil, errors.New("admission webhook denied the pod")
	})
	b, err := New(client, &rest.Config{Host: "http://127.0.0.1:1"}, WithImage("r:1"))
	require.NoError(t, err)
	_, err = b.Run(context.Background(), toolruntime.Request{Language: "javascript", Code: "return 1", Limits: toolruntime.DefaultLimits})
	require.ErrorContains(t, err, "admission webhook denied")
	assert.Equal(t, errors.Unavailable, errors.CodeOf(err))
}

func TestReap(t *testing.T) {
	mine := func(name, instance string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: DefaultNamespace,
			Labels: map[string]string{LabelManagedBy: ManagedBy, LabelInstance: instance}}}
	}
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: DefaultNamespace, Labels: map[string]string{"app": "web"}}}
	elsewhere := mine("left-elsewhere", "metatools")
	elsewhere.Namespace = "other"
	client := fake.NewClientset(mine("left-1", "metatools"), mine("left-2", "metatools"), mine("theirs", "staging"), other, elsewhere)
	b, err := New(client, &rest.Config{}, WithImage("r:1"))
	require.NoError(t, err)
	require.NoError(t, b.Reap(context.Background()))
	assert.ElementsMatch(t, []string{"theirs", "web"}, podsLeft(t, client, DefaultNamespace), "only this instance's pods are reaped")
	assert.Equal(t, []string{"left-elsewhere"}, podsLeft(t, client, "other"), "only in the backend's namespace")
}

func TestWarmPoolClose(t *testing.T) {
	client := fake.NewClientset()
	b, err := New(client, &rest.Config{}, WithImage("r:1"), WithWarmPool(3))
	require.NoError(t, err)
	// The fillers create their pods in the background; take one when
	// the pool has it.
	var name string
	for name == "" {
		w := <-b.pool.ready
		b.pool.ready <- w
		name = b.pool.take(toolruntime.DefaultLimits)
	}
	pod, err := client.CoreV1().Pods(DefaultNamespace).Get(context.Background(), name, metav1.GetOptions{})
	require.NoError(t, err)
	assert.Equal(t, "true", pod.Labels[labelPool])
	assert.Empty(t, b.pool.take(toolruntime.Limits{CPUTime: 1, Memory: 1, Processes: 1, FileSize: 1}), "other limits run cold")
	require.NoError(t, b.Close())
	require.NoError(t, b.Close(), "Close is idempotent")
	assert.Equal(t, []string{name}, podsLeft(t, client, DefaultNamespace), "Close deletes the pool's pods, not one taken by an execution")
}

func TestWaitRunningIgnoresOtherPods(t *testing.T) {
	pending := func(name string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: DefaultNamespace}}
	}
	running := pending("mine")
	running.Status.ContainerStatuses = []corev1.ContainerStatus{{Name: ContainerName,
		State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{}}}}
	// A watch that ignores its field selector, as the fake clientset's
	// own does, reports the other pods of the namespace too.
	events := watch.NewRaceFreeFake()
	events.Delete(pending("theirs"))
	events.Modify(running)
	client := fake.NewClientset(pending("mine"))
	client.PrependWatchReactor("pods", ktesting.DefaultWatchReactor(events, nil))
	b, err := New(client, &rest.Config{}, WithImage("r:1"))
	require.NoError(t, err)

	pod, err := b.waitRunning(context.Background(), "mine")
	require.NoError(t, err, "another pod's deletion is not this pod's")
	assert.Equal(t, "mine", pod.Name)
}
