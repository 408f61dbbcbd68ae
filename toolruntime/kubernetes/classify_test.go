package kubernetes

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/runner"
)

// TestClassify checks how the end of a runner that did not answer is
// read from its pod's status, for the ends the streaming set-up cannot
// produce (a kubelet's OOM kill, its deadline) and the others.
func TestClassify(t *testing.T) {
	terminated := func(reason string, code int32) corev1.PodStatus {
		return corev1.PodStatus{Phase: corev1.PodFailed, ContainerStatuses: []corev1.ContainerStatus{{Name: ContainerName,
			State: corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{Reason: reason, ExitCode: code}}}}}
	}
	cases := []struct {
		name   string
		status corev1.PodStatus
		code   errors.Code
		limit  string
		text   string
	}{
		{"oom killed", terminated("OOMKilled", 137), errors.ResourceExhausted, toolruntime.LimitMemory, ""},
		{"cpu time", terminated("Error", runner.ExitCPUTime), errors.ResourceExhausted, toolruntime.LimitCPUTime, ""},
		{"deadline", corev1.PodStatus{Phase: corev1.PodFailed, Reason: "DeadlineExceeded"}, errors.Timeout, "", "activeDeadlineSeconds"},
		{"crash", terminated("Error", 2), errors.Internal, "", "exit status 2"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: DefaultNamespace}, Status: c.status}
			b, err := New(fake.NewClientset(pod), &rest.Config{}, WithImage("r:1"))
			require.NoError(t, err)
			stderr := runner.NewStderr(1024)
			_, _ = stderr.Write([]byte("toolruntime-runner: the end"))
			err = b.classify(context.Background(), "p", errors.New("the guest ended without answering"), nil, stderr, toolruntime.DefaultLimits)
			require.Error(t, err)
			assert.Equal(t, c.code, errors.CodeOf(err))
			if c.limit != "" {
				assert.Equal(t, c.limit, toolcode.LimitOf(err))
			}
			if c.text != "" {
				assert.Contains(t, err.Error(), c.text)
			}
		})
	}
}
