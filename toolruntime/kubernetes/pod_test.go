package kubernetes

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/rest"

	"github.com/metatools-go/metatools/toolruntime"
)

func newTestBackend(t *testing.T, opts ...Option) *Backend {
	t.Helper()
	b, err := New(fake.NewClientset(), &rest.Config{Host: "http://127.0.0.1:1"}, append([]Option{WithImage("registry.example/runner:1")}, opts...)...)
	require.NoError(t, err)
	return b
}

func TestPodSpecRestricted(t *testing.T) {
	b := newTestBackend(t, WithRuntimeClass("gvisor"), WithCPU("500m"), WithInstance("prod"), WithNamespace("sandbox"), WithUserNamespace())
	l := toolruntime.Limits{CPUTime: 1500 * time.Millisecond, Memory: 128 << 20, Processes: 16, FileSize: 1 << 20}
	pod := b.podFor("toolruntime-x", l, 10*time.Second)

	assert.Equal(t, "sandbox", pod.Namespace)
	assert.Equal(t, map[string]string{LabelManagedBy: ManagedBy, LabelInstance: "prod", LabelComponent: "sandbox"}, pod.Labels)
	s := pod.Spec
	assert.Equal(t, corev1.RestartPolicyNever, s.RestartPolicy)
	require.NotNil(t, s.ActiveDeadlineSeconds)
	assert.Equal(t, int64(40), *s.ActiveDeadlineSeconds, "wall time + margin")
	assert.False(t, *s.AutomountServiceAccountToken)
	assert.False(t, *s.EnableServiceLinks)
	assert.False(t, s.HostNetwork)
	assert.False(t, s.HostPID)
	assert.False(t, s.HostIPC)
	require.NotNil(t, s.RuntimeClassName)
	assert.Equal(t, "gvisor", *s.RuntimeClassName)
	require.NotNil(t, s.HostUsers)
	assert.False(t, *s.HostUsers, "a user namespace of its own")
	require.NotNil(t, s.SecurityContext)
	assert.True(t, *s.SecurityContext.RunAsNonRoot)
	assert.Equal(t, int64(RunAsUser), *s.SecurityContext.RunAsUser)
	assert.Equal(t, int64(RunAsUser), *s.SecurityContext.RunAsGroup)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, s.SecurityContext.SeccompProfile.Type)

	require.Len(t, s.Containers, 1)
	c := s.Containers[0]
	assert.Equal(t, ContainerName, c.Name)
	assert.Equal(t, "registry.example/runner:1", c.Image)
	assert.True(t, c.Stdin)
	assert.True(t, c.StdinOnce)
	assert.False(t, c.TTY)
	assert.Equal(t, []string{"-cpu-time=2s", "-file-size=1048576", "-open-files=256", "-processes=16"}, c.Args)
	assert.Equal(t, []corev1.EnvVar{{Name: "GOTRACEBACK", Value: "single"}, {Name: "GOMEMLIMIT", Value: "117440512"}}, c.Env)
	sc := c.SecurityContext
	require.NotNil(t, sc)
	assert.True(t, *sc.RunAsNonRoot)
	assert.Equal(t, int64(RunAsUser), *sc.RunAsUser)
	assert.True(t, *sc.ReadOnlyRootFilesystem)
	assert.False(t, *sc.AllowPrivilegeEscalation)
	assert.False(t, *sc.Privileged)
	assert.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
	assert.Empty(t, sc.Capabilities.Add)
	assert.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, sc.SeccompProfile.Type)

	for _, rl := range []corev1.ResourceList{c.Resources.Requests, c.Resources.Limits} {
		assert.Equal(t, "500m", ptr(rl[corev1.ResourceCPU]).String())
		assert.Equal(t, int64(128<<20), ptr(rl[corev1.ResourceMemory]).Value())
		assert.Equal(t, int64(64<<20+16<<20), ptr(rl[corev1.ResourceEphemeralStorage]).Value())
	}
	require.Len(t, s.Volumes, 1)
	require.NotNil(t, s.Volumes[0].EmptyDir)
	assert.Equal(t, int64(64<<20), s.Volumes[0].EmptyDir.SizeLimit.Value())
	assert.Equal(t, []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}, c.VolumeMounts)
	for _, v := range s.Volumes {
		assert.Nil(t, v.HostPath, "no host path volume")
	}
}

func ptr(q resource.Quantity) *resource.Quantity { return &q }

func TestPodSpecDefaults(t *testing.T) {
	b := newTestBackend(t)
	pod := b.podFor("p", toolruntime.DefaultLimits, 0)
	assert.Equal(t, DefaultNamespace, pod.Namespace)
	assert.Equal(t, "metatools", pod.Labels[LabelInstance])
	assert.Nil(t, pod.Spec.RuntimeClassName)
	assert.Nil(t, pod.Spec.HostUsers, "the cluster's default")
	assert.Equal(t, int64(defaultDeadline/time.Second), *pod.Spec.ActiveDeadlineSeconds)
	assert.Equal(t, "1", ptr(pod.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU]).String())
	assert.NotContains(t, pod.Spec.Containers[0].Args, "-address-space", "a container's memory limit needs no RLIMIT_AS")

	local := newTestBackend(t, WithGuarantees(Guarantees{}))
	args := local.podFor("p", toolruntime.DefaultLimits, 0).Spec.Containers[0].Args
	assert.Contains(t, args, "-address-space=2147483648", "without a container, RLIMIT_AS is the backstop")
}

func TestEnforces(t *testing.T) {
	l := toolruntime.DefaultLimits
	cases := []struct {
		name     string
		g        Guarantees
		enforced map[string]string // name -> by; absent: not enforced
	}{
		{"containers", Guarantees{Containers: true}, map[string]string{
			toolruntime.LimitCPUTime: "rlimit", toolruntime.LimitMemory: "pod memory limit",
			toolruntime.LimitProcesses: "rlimit", toolruntime.LimitFileSize: "rlimit",
			toolruntime.IsolateEnvironment: "container", toolruntime.IsolateFiles: "container",
		}},
		{"containers and egress denied", Guarantees{Containers: true, EgressDenied: true}, map[string]string{
			toolruntime.LimitCPUTime: "rlimit", toolruntime.LimitMemory: "pod memory limit",
			toolruntime.LimitProcesses: "rlimit", toolruntime.LimitFileSize: "rlimit",
			toolruntime.IsolateEnvironment: "container", toolruntime.IsolateFiles: "container",
			toolruntime.IsolateNetwork: "network policy",
		}},
		{"no container", Guarantees{}, map[string]string{
			toolruntime.LimitCPUTime: "rlimit", toolruntime.LimitProcesses: "rlimit", toolruntime.LimitFileSize: "rlimit",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := newTestBackend(t, WithGuarantees(c.g)).Enforces(l)
			for _, name := range []string{toolruntime.LimitCPUTime, toolruntime.LimitMemory, toolruntime.LimitProcesses,
				toolruntime.LimitFileSize, toolruntime.IsolateEnvironment, toolruntime.IsolateFiles, toolruntime.IsolateNetwork} {
				row, ok := got.Get(name)
				require.True(t, ok, "row %s", name)
				assert.Equal(t, c.enforced[name], row.By, "row %s", name)
			}
		})
	}
	// RLIMIT_AS at the memory asked for is the bound itself.
	big := toolruntime.Limits{CPUTime: time.Second, Memory: 4 << 30, Processes: 8, FileSize: 1 << 20}
	row, _ := newTestBackend(t, WithGuarantees(Guarantees{})).Enforces(big).Get(toolruntime.LimitMemory)
	assert.Equal(t, "rlimit address space", row.By)
}

func TestOptionsInvalid(t *testing.T) {
	cases := map[string]Option{
		"namespace":   WithNamespace("Not_A_Label"),
		"image":       WithImage(" "),
		"pull policy": WithImagePullPolicy("Sometimes"),
		"cpu":         WithCPU("-1"),
		"cpu unit":    WithCPU("1Gi5"),
		"cpu fine":    WithCPU("0.0001"),
		"tmp":         WithTmpSize(10),
		"class":       WithRuntimeClass("Bad Class"),
		"pool":        WithWarmPool(-1),
		"instance":    WithInstance(""),
	}
	for name, o := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := New(fake.NewClientset(), &rest.Config{}, WithImage("x"), o)
			require.Error(t, err)
		})
	}
	_, err := New(fake.NewClientset(), &rest.Config{})
	require.ErrorContains(t, err, "WithImage")
	_, err = New(nil, &rest.Config{}, WithImage("x"))
	require.ErrorContains(t, err, "client")
}

func FuzzParseCPU(f *testing.F) {
	for _, s := range []string{"1", "500m", "0.5", "2k", "1e3", "-1", "", "1Gi", "0.0001", "1025"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		q, err := parseCPU(s)
		if err != nil {
			return
		}
		if q.Sign() <= 0 || q.MilliValue() > 1024000 {
			t.Fatalf("parseCPU(%q) = %s, out of range", s, q.String())
		}
		back, err := parseCPU(q.String())
		if err != nil || back.Cmp(q) != 0 {
			t.Fatalf("parseCPU(%q) = %s does not round-trip: %v", s, q.String(), err)
		}
	})
}
