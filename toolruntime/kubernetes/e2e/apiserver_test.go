//go:build e2e_kubernetes

package e2e_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"

	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	k8sbackend "github.com/metatools-go/metatools/toolruntime/kubernetes"
)

// TestAgainstAPIServer submits what the module ships, and what the
// backend creates, to a real API server enforcing the restricted Pod
// Security level, and checks that cleanup leaves nothing.
func TestAgainstAPIServer(t *testing.T) {
	c := startCluster(t)
	ctx := t.Context()

	// The namespace, the RBAC and the NetworkPolicy of deploy/.
	objs := decodeFiles(t, "../deploy/namespace.yaml", "../deploy/rbac.yaml", "../deploy/networkpolicy.yaml")
	for _, o := range objs {
		create(t, c.client, "", o)
	}
	ns := k8sbackend.DefaultNamespace

	t.Run("restricted is enforced", func(t *testing.T) {
		// A privileged pod is refused: the admission the rest relies on
		// is really on.
		root := int64(0)
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "privileged"},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{
				Name: "c", Image: "busybox",
				SecurityContext: &corev1.SecurityContext{RunAsUser: &root},
			}}},
		}
		_, err := c.client.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{})
		require.Error(t, err)
		assert.True(t, apierrors.IsForbidden(err), "%v", err)
		assert.Contains(t, err.Error(), `violates PodSecurity "restricted:latest"`)
		t.Logf("rejected as it should be: %v", err)
	})

	// The backend acts as the server's service account, with only the
	// Role of deploy/rbac.yaml.
	sa := rest.CopyConfig(c.config)
	sa.Impersonate = rest.ImpersonationConfig{UserName: "system:serviceaccount:" + ns + ":metatools"}
	saClient, err := kubernetes.NewForConfig(sa)
	require.NoError(t, err)

	t.Run("the role allows what the backend does and nothing else", func(t *testing.T) {
		for _, tt := range []struct {
			ns, verb, resource, sub string
			allowed                 bool
		}{
			{ns, "create", "pods", "", true},
			{ns, "watch", "pods", "", true},
			{ns, "delete", "pods", "", true},
			{ns, "create", "pods", "attach", true},
			{ns, "create", "pods", "exec", false},
			{ns, "get", "secrets", "", false},
			{ns, "update", "pods", "", false},
			{"default", "create", "pods", "", false},
		} {
			review, err := saClient.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{
				Spec: authorizationv1.SelfSubjectAccessReviewSpec{ResourceAttributes: &authorizationv1.ResourceAttributes{
					Namespace: tt.ns, Verb: tt.verb, Resource: tt.resource, Subresource: tt.sub,
				}},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
			assert.Equal(t, tt.allowed, review.Status.Allowed, "%s %s/%s in %s", tt.verb, tt.resource, tt.sub, tt.ns)
		}
	})

	sandboxPods := func() []corev1.Pod {
		list, err := c.client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: k8sbackend.LabelManagedBy + "=" + k8sbackend.ManagedBy})
		require.NoError(t, err)
		return list.Items
	}

	t.Run("the backend's pod is admitted and deleted", func(t *testing.T) {
		b, err := k8sbackend.New(saClient, sa, k8sbackend.WithImage("registry.example/toolruntime-runner:e2e"))
		require.NoError(t, err)
		// Nothing schedules the pod here: Run waits for it to run until
		// its deadline, and must leave nothing behind.
		seen := watchCreated(t, c.client, ns)
		runCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		defer cancel()
		_, err = b.Run(runCtx, toolruntime.Request{
			Language: "javascript", Code: "return 1", Limits: toolruntime.DefaultLimits,
			Program: toolcode.Limits{WallTime: 5 * time.Second, ToolCalls: 1, ChainSteps: 1, OutputBytes: 1 << 10, Concurrency: 1},
		})
		require.Error(t, err)
		t.Logf("Run without a kubelet: %v", err)
		var pod *corev1.Pod
		select {
		case pod = <-seen:
		case <-time.After(time.Minute):
			t.Fatal("the backend created no pod")
		}
		require.NotNil(t, pod)
		assert.Equal(t, k8sbackend.ContainerName, pod.Spec.Containers[0].Name)
		assert.Empty(t, sandboxPods(), "Run left its pod")
	})

	t.Run("the warm pool's pods are admitted and Close deletes them", func(t *testing.T) {
		b, err := k8sbackend.New(saClient, sa, k8sbackend.WithImage("registry.example/toolruntime-runner:e2e"), k8sbackend.WithWarmPool(2))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(sandboxPods()) == 2 }, time.Minute, 100*time.Millisecond)
		require.NoError(t, b.Close())
		require.Eventually(t, func() bool { return len(sandboxPods()) == 0 }, time.Minute, 100*time.Millisecond)
	})

	t.Run("Reap deletes leftovers", func(t *testing.T) {
		b, err := k8sbackend.New(saClient, sa, k8sbackend.WithImage("registry.example/toolruntime-runner:e2e"), k8sbackend.WithWarmPool(1))
		require.NoError(t, err)
		require.Eventually(t, func() bool { return len(sandboxPods()) == 1 }, time.Minute, 100*time.Millisecond)
		// A second backend of the same instance, as after a restart.
		again, err := k8sbackend.New(saClient, sa, k8sbackend.WithImage("registry.example/toolruntime-runner:e2e"))
		require.NoError(t, err)
		require.NoError(t, again.Reap(ctx))
		assert.Empty(t, sandboxPods())
		require.NoError(t, b.Close())
	})

	t.Run("the server's manifests are admitted", func(t *testing.T) {
		create(t, c.client, "", &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "metatools", Labels: map[string]string{
			"pod-security.kubernetes.io/enforce": "restricted", "pod-security.kubernetes.io/warn": "restricted",
		}}})
		files, err := filepath.Glob("../../../toolserver/deploy/kubernetes/*.yaml")
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, o := range decodeFiles(t, files...) {
			create(t, c.client, "metatools", o)
			if d, ok := o.(*appsv1.Deployment); ok {
				// No controller makes its pods here: submit one from its
				// template, as the ReplicaSet controller would, so that
				// the Pod Security admission judges it.
				pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "from-template", Labels: d.Spec.Template.Labels}, Spec: d.Spec.Template.Spec}
				_, err := c.client.CoreV1().Pods("metatools").Create(ctx, pod, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
				require.NoError(t, err, "the Deployment's pod template")
			}
		}
	})
}

// watchCreated returns the first pod the backend creates in ns.
func watchCreated(t *testing.T, client kubernetes.Interface, ns string) <-chan *corev1.Pod {
	t.Helper()
	w, err := client.CoreV1().Pods(ns).Watch(t.Context(), metav1.ListOptions{LabelSelector: k8sbackend.LabelManagedBy + "=" + k8sbackend.ManagedBy})
	require.NoError(t, err)
	out := make(chan *corev1.Pod, 1)
	go func() {
		defer w.Stop()
		for ev := range w.ResultChan() {
			if pod, ok := ev.Object.(*corev1.Pod); ok {
				out <- pod
				return
			}
		}
		close(out)
	}()
	return out
}

var documentSeparator = regexp.MustCompile(`(?m)^---\s*$`)

// decodeFiles decodes every YAML document of files into typed objects.
func decodeFiles(t *testing.T, files ...string) []runtime.Object {
	t.Helper()
	var out []runtime.Object
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for _, doc := range documentSeparator.Split(string(b), -1) {
			if strings.TrimSpace(regexp.MustCompile(`(?m)^\s*#.*$`).ReplaceAllString(doc, "")) == "" {
				continue
			}
			obj, _, err := scheme.Codecs.UniversalDeserializer().Decode([]byte(doc), nil, nil)
			require.NoError(t, err, f)
			out = append(out, obj)
		}
	}
	return out
}

// create submits obj to the API server, in ns when the object names none,
// and fails the test with the server's reason when it is refused.
func create(t *testing.T, client kubernetes.Interface, ns string, obj runtime.Object) {
	t.Helper()
	ctx := t.Context()
	opts := metav1.CreateOptions{FieldValidation: "Strict"}
	in := func(m metav1.Object) string {
		if m.GetNamespace() != "" {
			return m.GetNamespace()
		}
		return ns
	}
	var err error
	switch o := obj.(type) {
	case *corev1.Namespace:
		_, err = client.CoreV1().Namespaces().Create(ctx, o, opts)
		if err == nil {
			// The service account controller is not running: make the
			// namespace's default account, which pods are admitted under.
			_, err = client.CoreV1().ServiceAccounts(o.Name).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "default"}}, opts)
		}
	case *corev1.ServiceAccount:
		_, err = client.CoreV1().ServiceAccounts(in(o)).Create(ctx, o, opts)
	case *corev1.ConfigMap:
		_, err = client.CoreV1().ConfigMaps(in(o)).Create(ctx, o, opts)
	case *corev1.Secret:
		_, err = client.CoreV1().Secrets(in(o)).Create(ctx, o, opts)
	case *corev1.Service:
		_, err = client.CoreV1().Services(in(o)).Create(ctx, o, opts)
	case *rbacv1.Role:
		_, err = client.RbacV1().Roles(in(o)).Create(ctx, o, opts)
	case *rbacv1.RoleBinding:
		_, err = client.RbacV1().RoleBindings(in(o)).Create(ctx, o, opts)
	case *networkingv1.NetworkPolicy:
		_, err = client.NetworkingV1().NetworkPolicies(in(o)).Create(ctx, o, opts)
	case *appsv1.Deployment:
		_, err = client.AppsV1().Deployments(in(o)).Create(ctx, o, opts)
	case *autoscalingv2.HorizontalPodAutoscaler:
		_, err = client.AutoscalingV2().HorizontalPodAutoscalers(in(o)).Create(ctx, o, opts)
	case *policyv1.PodDisruptionBudget:
		_, err = client.PolicyV1().PodDisruptionBudgets(in(o)).Create(ctx, o, opts)
	default:
		t.Fatalf("no client for %T", obj)
	}
	require.NoError(t, err, "create %T", obj)
}
