package kubernetes

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/client-go/kubernetes/scheme"

	"github.com/metatools-go/metatools/toolruntime"
)

// documentSeparator splits a YAML stream into its documents.
var (
	documentSeparator = regexp.MustCompile(`(?m)^---[ \t]*$`)
	comment           = regexp.MustCompile(`(?m)^#.*$`)
)

// deployObjects decodes every document of every YAML file of deploy/
// with client-go's scheme, and again strictly: an unknown kind, a
// duplicate or an unknown field fails the test.
func deployObjects(t *testing.T) []runtime.Object {
	t.Helper()
	files, err := filepath.Glob("deploy/*.yaml")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	decoder := scheme.Codecs.UniversalDeserializer()
	strict := serializer.NewCodecFactory(scheme.Scheme, serializer.EnableStrict).UniversalDeserializer()
	var out []runtime.Object
	for _, f := range files {
		b, err := os.ReadFile(f)
		require.NoError(t, err)
		for i, doc := range documentSeparator.Split(string(b), -1) {
			if strings.TrimSpace(comment.ReplaceAllString(doc, "")) == "" {
				continue
			}
			obj, gvk, err := decoder.Decode([]byte(doc), nil, nil)
			require.NoError(t, err, "%s, document %d", f, i+1)
			require.NotEmpty(t, gvk.Kind, "%s, document %d", f, i+1)
			_, _, err = strict.Decode([]byte(doc), nil, nil)
			require.NoError(t, err, "%s, document %d (strict)", f, i+1)
			out = append(out, obj)
		}
	}
	return out
}

func TestDeployManifests(t *testing.T) {
	objs := deployObjects(t)
	var (
		ns       []*corev1.Namespace
		roles    []*rbacv1.Role
		bindings []*rbacv1.RoleBinding
		accounts []*corev1.ServiceAccount
		policies []*networkingv1.NetworkPolicy
	)
	for _, o := range objs {
		switch o := o.(type) {
		case *corev1.Namespace:
			ns = append(ns, o)
		case *rbacv1.Role:
			roles = append(roles, o)
		case *rbacv1.RoleBinding:
			bindings = append(bindings, o)
		case *corev1.ServiceAccount:
			accounts = append(accounts, o)
		case *networkingv1.NetworkPolicy:
			policies = append(policies, o)
		default:
			t.Errorf("unexpected object %T in deploy/", o)
		}
		if m, ok := o.(metav1.Object); ok {
			if _, isNS := o.(*corev1.Namespace); !isNS {
				assert.Equal(t, DefaultNamespace, m.GetNamespace(), "%T %s", o, m.GetName())
			}
		}
	}

	t.Run("namespace", func(t *testing.T) {
		require.Len(t, ns, 1)
		assert.Equal(t, DefaultNamespace, ns[0].Name)
		assert.Equal(t, "restricted", ns[0].Labels["pod-security.kubernetes.io/enforce"])
	})

	t.Run("rbac", func(t *testing.T) {
		require.Len(t, roles, 1)
		want := map[string][]string{
			"pods":        {"create", "get", "list", "watch", "delete"},
			"pods/attach": {"create", "get"},
		}
		got := map[string][]string{}
		for _, r := range roles[0].Rules {
			assert.Equal(t, []string{""}, r.APIGroups, "core group only")
			assert.Empty(t, r.ResourceNames)
			assert.Empty(t, r.NonResourceURLs)
			for _, res := range r.Resources {
				got[res] = append(got[res], r.Verbs...)
			}
		}
		require.Len(t, got, len(want), "resources: %v", got)
		for res, verbs := range want {
			assert.ElementsMatch(t, verbs, got[res], "verbs on %s", res)
		}
		require.Len(t, accounts, 1)
		require.Len(t, bindings, 1)
		bnd := bindings[0]
		assert.Equal(t, rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: roles[0].Name}, bnd.RoleRef)
		require.Len(t, bnd.Subjects, 1)
		assert.Equal(t, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Name: accounts[0].Name, Namespace: accounts[0].Namespace}, bnd.Subjects[0])
	})

	t.Run("network policy", func(t *testing.T) {
		require.Len(t, policies, 1)
		np := policies[0]
		assert.ElementsMatch(t, []networkingv1.PolicyType{networkingv1.PolicyTypeIngress, networkingv1.PolicyTypeEgress}, np.Spec.PolicyTypes)
		assert.Empty(t, np.Spec.Ingress, "no ingress allowed")
		assert.Empty(t, np.Spec.Egress, "no egress allowed")
		sel, err := metav1.LabelSelectorAsSelector(&np.Spec.PodSelector)
		require.NoError(t, err)
		require.False(t, sel.Empty(), "the policy selects the sandbox pods, not every pod")
		for _, instance := range []string{"metatools", "staging"} {
			b := newTestBackend(t, WithInstance(instance))
			pod := b.podFor("p", toolruntime.DefaultLimits, 0)
			assert.True(t, sel.Matches(labels.Set(pod.Labels)), "the policy selects the pods of instance %s", instance)
			pool := b.podFor("p", toolruntime.DefaultLimits, 0)
			pool.Labels[labelPool] = "true"
			assert.True(t, sel.Matches(labels.Set(pool.Labels)), "and the warm pool's")
		}
		assert.False(t, sel.Matches(labels.Set{"app": "metatools-server"}), "not the server's")
	})
}

func TestDeployDockerfile(t *testing.T) {
	b, err := os.ReadFile("deploy/Dockerfile")
	require.NoError(t, err)
	s := string(b)
	assert.Contains(t, s, "CGO_ENABLED=0", "a static runner")
	assert.Contains(t, s, "./cmd/toolruntime-runner")
	assert.Regexp(t, `(?m)^FROM gcr\.io/distroless/static[^ ]*:nonroot$`, s)
	assert.Regexp(t, `(?m)^USER 65532(:65532)?$`, s)
	assert.Regexp(t, `(?m)^ENTRYPOINT \["/toolruntime-runner"\]$`, s)
}
