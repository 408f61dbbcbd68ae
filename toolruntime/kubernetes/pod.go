package kubernetes

import (
	"crypto/rand"
	"encoding/hex"
	"strconv"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/metatools-go/metatools/toolruntime"
)

// Labels of the backend's pods: deploy/networkpolicy.yaml selects on
// [LabelManagedBy], [Backend.Reap] on it and [LabelInstance].
const (
	LabelManagedBy = "app.kubernetes.io/managed-by"
	LabelInstance  = "app.kubernetes.io/instance"
	LabelComponent = "app.kubernetes.io/component"
	// ManagedBy is the value of [LabelManagedBy] on every pod of the
	// backend.
	ManagedBy = "metatools-toolruntime"
	// labelPool marks a pod started ahead for the warm pool.
	labelPool = "toolruntime.metatools.dev/pool"
)

// ContainerName is the name of the runner's container in a pod.
const ContainerName = "runner"

// RunAsUser is the user and group the runner runs as: not root, so that
// RLIMIT_NPROC binds and the restricted Pod Security Standard admits the
// pod. It is distroless's "nonroot".
const RunAsUser = 65532

// deadlineMargin is added to the program's wall time for the pod's
// activeDeadlineSeconds: the host kills the pod at the deadline itself,
// the kubelet's deadline is for a host that died before it could.
const deadlineMargin = 30 * time.Second

// defaultDeadline is the pod's activeDeadlineSeconds when the program has
// no wall time (the runtime always gives one), and the lifetime of a
// pool pod waiting for an execution.
const defaultDeadline = time.Hour

// podName returns a fresh pod name; names are chosen here, not by the API
// server's generateName, so that the watch can select the pod before it
// exists.
func podName() string {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	return "toolruntime-" + hex.EncodeToString(b)
}

// podFor returns the pod of one execution under limits l, whose program
// has wall time wall (0 for none).
func (b *Backend) podFor(name string, l toolruntime.Limits, wall time.Duration) *corev1.Pod {
	deadline := defaultDeadline
	if wall > 0 {
		deadline = wall + deadlineMargin
	}
	secs := int64((deadline + time.Second - 1) / time.Second)
	yes, no := true, false
	uid := int64(RunAsUser)
	mem := resource.NewQuantity(l.Memory, resource.BinarySI)
	tmp := resource.NewQuantity(b.cfg.tmpSize, resource.BinarySI)
	// What the pod may write: /tmp, and its logs (the runner's stderr).
	storage := resource.NewQuantity(b.cfg.tmpSize+16<<20, resource.BinarySI)
	res := corev1.ResourceList{
		corev1.ResourceCPU:              b.cfg.cpu,
		corev1.ResourceMemory:           *mem,
		corev1.ResourceEphemeralStorage: *storage,
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: b.cfg.namespace,
			Labels:    b.labels(),
		},
		Spec: corev1.PodSpec{
			RestartPolicy:                 corev1.RestartPolicyNever,
			ActiveDeadlineSeconds:         &secs,
			AutomountServiceAccountToken:  &no,
			EnableServiceLinks:            &no,
			TerminationGracePeriodSeconds: new(int64),
			HostNetwork:                   false,
			HostPID:                       false,
			HostIPC:                       false,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot:   &yes,
				RunAsUser:      &uid,
				RunAsGroup:     &uid,
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			Containers: []corev1.Container{{
				Name:            ContainerName,
				Image:           b.cfg.image,
				ImagePullPolicy: corev1.PullPolicy(b.cfg.pullPolicy),
				Args:            b.rlimits(l).Args(),
				Env:             environment(l),
				WorkingDir:      "/tmp",
				Stdin:           true,
				StdinOnce:       true,
				TTY:             false,
				Resources:       corev1.ResourceRequirements{Requests: res, Limits: res},
				SecurityContext: &corev1.SecurityContext{
					RunAsNonRoot:             &yes,
					RunAsUser:                &uid,
					RunAsGroup:               &uid,
					ReadOnlyRootFilesystem:   &yes,
					AllowPrivilegeEscalation: &no,
					Privileged:               &no,
					Capabilities:             &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
					SeccompProfile:           &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
				},
				VolumeMounts:             []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}},
				TerminationMessagePolicy: corev1.TerminationMessageFallbackToLogsOnError,
			}},
			Volumes: []corev1.Volume{{
				Name:         "tmp",
				VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{SizeLimit: tmp}},
			}},
		},
	}
	if b.cfg.userNS {
		pod.Spec.HostUsers = &no
	}
	if b.cfg.runtimeClass != "" {
		rc := b.cfg.runtimeClass
		pod.Spec.RuntimeClassName = &rc
	}
	return pod
}

// labels returns the labels of the backend's pods.
func (b *Backend) labels() map[string]string {
	return map[string]string{
		LabelManagedBy: ManagedBy,
		LabelInstance:  b.cfg.instance,
		LabelComponent: "sandbox",
	}
}

// environment is the runner's whole environment, as the process backend
// gives it: GOTRACEBACK, and GOMEMLIMIT below the memory limit so that the
// collector works harder near the cap instead of letting the heap grow
// into the kill.
func environment(l toolruntime.Limits) []corev1.EnvVar {
	env := []corev1.EnvVar{{Name: "GOTRACEBACK", Value: "single"}}
	if l.Memory > 0 {
		env = append(env, corev1.EnvVar{Name: "GOMEMLIMIT", Value: strconv.FormatInt(l.Memory/8*7, 10)})
	}
	return env
}
