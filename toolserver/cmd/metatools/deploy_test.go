package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

// The Kubernetes manifests of deploy/kubernetes and the image of
// deploy/Dockerfile are tied to the code: the probes' paths, the flags,
// the token's variable, the drain and shutdown times. These tests read
// them as a user's `kubectl apply -f deploy/kubernetes/` would, and check
// those ties, and the restricted Pod Security Standard.

// deployDir is the folder of the manifests, relative to this package.
const deployDir = "../../deploy/kubernetes"

// manifest is the part of a Kubernetes object these tests read.
type manifest struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   struct {
		Name   string            `yaml:"name"`
		Labels map[string]string `yaml:"labels"`
	} `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	StringData map[string]string `yaml:"stringData"`
	Spec       yaml.Node         `yaml:"spec"`
	file       string
}

// deploymentSpec is the part of a Deployment's spec these tests read.
type deploymentSpec struct {
	Replicas int `yaml:"replicas"`
	Selector struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"selector"`
	Template struct {
		Metadata struct {
			Labels map[string]string `yaml:"labels"`
		} `yaml:"metadata"`
		Spec podSpec `yaml:"spec"`
	} `yaml:"template"`
}

type podSpec struct {
	AutomountServiceAccountToken  *bool           `yaml:"automountServiceAccountToken"`
	TerminationGracePeriodSeconds int             `yaml:"terminationGracePeriodSeconds"`
	SecurityContext               securityContext `yaml:"securityContext"`
	Containers                    []container     `yaml:"containers"`
	Volumes                       []struct {
		Name      string `yaml:"name"`
		ConfigMap *struct {
			Name string `yaml:"name"`
		} `yaml:"configMap"`
	} `yaml:"volumes"`
}

type securityContext struct {
	RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
	RunAsUser                *int  `yaml:"runAsUser"`
	AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
	Capabilities             struct {
		Drop []string `yaml:"drop"`
	} `yaml:"capabilities"`
	SeccompProfile struct {
		Type string `yaml:"type"`
	} `yaml:"seccompProfile"`
}

type container struct {
	Name  string   `yaml:"name"`
	Image string   `yaml:"image"`
	Args  []string `yaml:"args"`
	Env   []struct {
		Name      string `yaml:"name"`
		ValueFrom struct {
			SecretKeyRef struct {
				Name string `yaml:"name"`
				Key  string `yaml:"key"`
			} `yaml:"secretKeyRef"`
		} `yaml:"valueFrom"`
	} `yaml:"env"`
	Ports []struct {
		Name          string `yaml:"name"`
		ContainerPort int    `yaml:"containerPort"`
	} `yaml:"ports"`
	LivenessProbe  probe `yaml:"livenessProbe"`
	ReadinessProbe probe `yaml:"readinessProbe"`
	Resources      struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext securityContext `yaml:"securityContext"`
	VolumeMounts    []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

type probe struct {
	HTTPGet struct {
		Path string `yaml:"path"`
		Port string `yaml:"port"`
	} `yaml:"httpGet"`
	PeriodSeconds    int `yaml:"periodSeconds"`
	FailureThreshold int `yaml:"failureThreshold"`
}

// parseManifests decodes a stream of YAML documents, each of which must be
// one Kubernetes object.
func parseManifests(file string, data []byte) ([]manifest, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var out []manifest
	for i := 0; ; i++ {
		var m manifest
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("%s: document %d: %w", file, i+1, err)
		}
		if m.APIVersion == "" || m.Kind == "" || m.Metadata.Name == "" {
			return nil, fmt.Errorf("%s: document %d: not a Kubernetes object (apiVersion, kind and metadata.name are needed)", file, i+1)
		}
		if strings.HasSuffix(m.Kind, "List") {
			return nil, fmt.Errorf("%s: document %d: a %s: write one object per document", file, i+1, m.Kind)
		}
		m.file = file
		out = append(out, m)
	}
}

// loadManifests reads every manifest of deployDir, by kind.
func loadManifests(t *testing.T) map[string]manifest {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(deployDir, "*.yaml"))
	require.NoError(t, err)
	require.NotEmpty(t, files)
	byKind := map[string]manifest{}
	for _, f := range files {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		ms, err := parseManifests(filepath.Base(f), data)
		require.NoError(t, err)
		for _, m := range ms {
			_, dup := byKind[m.Kind]
			require.False(t, dup, "one %s only", m.Kind)
			byKind[m.Kind] = m
		}
	}
	return byKind
}

func decodeSpec[T any](t *testing.T, m manifest) T {
	t.Helper()
	var spec T
	require.NoError(t, m.Spec.Decode(&spec), "%s: spec", m.file)
	return spec
}

func TestParseManifestsRefusesWhatIsNotOneObject(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"no kind", "apiVersion: v1\nmetadata: {name: a}\n", "not a Kubernetes object"},
		{"no name", "apiVersion: v1\nkind: Service\n", "not a Kubernetes object"},
		{"a list", "apiVersion: v1\nkind: List\nmetadata: {name: a}\n", "one object per document"},
		{"second document bad", "apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\nkind: [\n", "document 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := parseManifests("x.yaml", []byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	ms, err := parseManifests("x.yaml", []byte("apiVersion: v1\nkind: Service\nmetadata: {name: a}\n---\napiVersion: v1\nkind: Secret\nmetadata: {name: b}\n"))
	require.NoError(t, err)
	assert.Len(t, ms, 2)
}

func FuzzParseManifests(f *testing.F) {
	for _, file := range []string{"deployment.yaml", "service.yaml", "configmap.yaml"} {
		if data, err := os.ReadFile(filepath.Join(deployDir, file)); err == nil {
			f.Add(data)
		}
	}
	f.Add([]byte("apiVersion: v1\nkind: List\nmetadata: {name: a}\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ms, err := parseManifests("fuzz.yaml", data)
		if err != nil {
			return
		}
		for _, m := range ms {
			if m.Kind == "" || m.APIVersion == "" || m.Metadata.Name == "" {
				t.Fatalf("accepted an object without kind, apiVersion or name: %+v", m)
			}
		}
	})
}

// TestKubernetesManifests checks the ties between the manifests and the
// code, and the restricted Pod Security Standard.
func TestKubernetesManifests(t *testing.T) {
	byKind := loadManifests(t)
	wantAPI := map[string]string{
		"ConfigMap":               "v1",
		"Secret":                  "v1",
		"Service":                 "v1",
		"Deployment":              "apps/v1",
		"HorizontalPodAutoscaler": "autoscaling/v2",
		"PodDisruptionBudget":     "policy/v1",
	}
	for kind, api := range wantAPI {
		m, ok := byKind[kind]
		if assert.True(t, ok, "a %s", kind) {
			assert.Equal(t, api, m.APIVersion, kind)
		}
	}
	require.Len(t, byKind, len(wantAPI), "no other objects")

	dep := decodeSpec[deploymentSpec](t, byKind["Deployment"])
	pod := dep.Template.Spec
	require.Len(t, pod.Containers, 1)
	c := pod.Containers[0]
	assert.Equal(t, 2, dep.Replicas)
	assert.Equal(t, dep.Selector.MatchLabels, dep.Template.Metadata.Labels, "the selector selects the pods")

	t.Run("serve as replicas", func(t *testing.T) {
		require.NotEmpty(t, c.Args)
		assert.Equal(t, "serve", c.Args[0])
		assert.Contains(t, c.Args, "--stateless")
		addr := flagValue(c.Args, "--http")
		host, port, err := net.SplitHostPort(addr)
		require.NoError(t, err, "--http %q", addr)
		assert.Equal(t, "0.0.0.0", host, "listen beyond the loopback, where the kubelet and the Service reach it")
		require.Len(t, c.Ports, 1)
		assert.Equal(t, port, fmt.Sprint(c.Ports[0].ContainerPort), "the container port is the one served")
	})

	t.Run("probes", func(t *testing.T) {
		assert.Equal(t, healthzPath, c.LivenessProbe.HTTPGet.Path)
		assert.Equal(t, readyzPath, c.ReadinessProbe.HTTPGet.Path)
		assert.Equal(t, c.Ports[0].Name, c.LivenessProbe.HTTPGet.Port)
		assert.Equal(t, c.Ports[0].Name, c.ReadinessProbe.HTTPGet.Port)
	})

	cfgPath := flagValue(c.Args, "--config")
	cfgData := configMapFile(t, byKind["ConfigMap"], pod, c, cfgPath)
	for _, kv := range secretEnv(byKind["Secret"], c) {
		name, value, _ := strings.Cut(kv, "=")
		t.Setenv(name, value)
	}
	cfg, err := config.Parse([]byte(cfgData))
	require.NoError(t, err, "the ConfigMap's configuration")

	t.Run("grace period", func(t *testing.T) {
		drain, shutdown := drainDelay(cfg, nil), shutdownTimeout(cfg)
		grace := time.Duration(pod.TerminationGracePeriodSeconds) * time.Second
		assert.Greater(t, grace, drain+shutdown, "terminationGracePeriodSeconds > drainDelay %s + shutdownTimeout %s", drain, shutdown)
		period := time.Duration(c.ReadinessProbe.PeriodSeconds*max(c.ReadinessProbe.FailureThreshold, 1)) * time.Second
		assert.Less(t, period, drain, "the readiness probe notices the 503 within the drain delay")
	})

	t.Run("token", func(t *testing.T) {
		secret := byKind["Secret"]
		var found bool
		for _, e := range c.Env {
			if e.Name != tokenEnv {
				continue
			}
			found = true
			ref := e.ValueFrom.SecretKeyRef
			assert.Equal(t, secret.Metadata.Name, ref.Name, "the token comes from the Secret")
			assert.Contains(t, secret.StringData, ref.Key, "the Secret holds the key")
			assert.Contains(t, secret.StringData[ref.Key], "REPLACE", "the example token is marked to replace")
		}
		assert.True(t, found, "%s is set", tokenEnv)
	})

	t.Run("restricted", func(t *testing.T) {
		require.NotNil(t, pod.AutomountServiceAccountToken)
		assert.False(t, *pod.AutomountServiceAccountToken)
		for _, sc := range []securityContext{pod.SecurityContext, c.SecurityContext} {
			if assert.NotNil(t, sc.RunAsNonRoot) {
				assert.True(t, *sc.RunAsNonRoot)
			}
			assert.Equal(t, "RuntimeDefault", sc.SeccompProfile.Type)
		}
		sc := c.SecurityContext
		if assert.NotNil(t, sc.AllowPrivilegeEscalation) {
			assert.False(t, *sc.AllowPrivilegeEscalation)
		}
		if assert.NotNil(t, sc.ReadOnlyRootFilesystem) {
			assert.True(t, *sc.ReadOnlyRootFilesystem)
		}
		assert.Equal(t, []string{"ALL"}, sc.Capabilities.Drop)
		if assert.NotNil(t, pod.SecurityContext.RunAsUser) {
			assert.NotZero(t, *pod.SecurityContext.RunAsUser)
			assert.Contains(t, readDockerfile(t), fmt.Sprintf("USER %d:", *pod.SecurityContext.RunAsUser), "the image's user")
		}
		for _, r := range []string{"cpu", "memory"} {
			assert.NotEmpty(t, c.Resources.Requests[r], "requests.%s", r)
			assert.NotEmpty(t, c.Resources.Limits[r], "limits.%s", r)
		}
	})

	t.Run("service and autoscaler", func(t *testing.T) {
		type serviceSpec struct {
			Selector map[string]string `yaml:"selector"`
			Ports    []struct {
				TargetPort string `yaml:"targetPort"`
			} `yaml:"ports"`
		}
		svc := decodeSpec[serviceSpec](t, byKind["Service"])
		assert.Equal(t, dep.Template.Metadata.Labels, svc.Selector, "the Service selects the pods")
		require.Len(t, svc.Ports, 1)
		assert.Equal(t, c.Ports[0].Name, svc.Ports[0].TargetPort)

		type hpaSpec struct {
			ScaleTargetRef struct {
				APIVersion string `yaml:"apiVersion"`
				Kind       string `yaml:"kind"`
				Name       string `yaml:"name"`
			} `yaml:"scaleTargetRef"`
			MinReplicas int `yaml:"minReplicas"`
			MaxReplicas int `yaml:"maxReplicas"`
			Metrics     []struct {
				Resource struct {
					Name string `yaml:"name"`
				} `yaml:"resource"`
			} `yaml:"metrics"`
		}
		hpa := decodeSpec[hpaSpec](t, byKind["HorizontalPodAutoscaler"])
		assert.Equal(t, "Deployment", hpa.ScaleTargetRef.Kind)
		assert.Equal(t, byKind["Deployment"].Metadata.Name, hpa.ScaleTargetRef.Name)
		assert.GreaterOrEqual(t, hpa.MinReplicas, 2)
		assert.Greater(t, hpa.MaxReplicas, hpa.MinReplicas)
		require.Len(t, hpa.Metrics, 1)
		assert.Equal(t, "cpu", hpa.Metrics[0].Resource.Name)
	})
}

// flagValue returns the value of flag in args ("--flag value").
func flagValue(args []string, flag string) string {
	i := slices.Index(args, flag)
	if i < 0 || i+1 >= len(args) {
		return ""
	}
	return args[i+1]
}

// configMapFile returns the content the container reads at path, from the
// ConfigMap mounted there.
func configMapFile(t *testing.T, cm manifest, pod podSpec, c container, path string) string {
	t.Helper()
	require.NotEmpty(t, path, "serve is given --config")
	for _, m := range c.VolumeMounts {
		rel, err := filepath.Rel(m.MountPath, path)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name == m.Name && v.ConfigMap != nil {
				assert.Equal(t, cm.Metadata.Name, v.ConfigMap.Name, "the mounted ConfigMap")
				data, ok := cm.Data[rel]
				require.True(t, ok, "the ConfigMap holds %s", rel)
				return data
			}
		}
	}
	require.FailNow(t, "no ConfigMap is mounted where --config "+path+" is")
	return ""
}

func readDockerfile(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(deployDir, "..", "Dockerfile"))
	require.NoError(t, err)
	return string(data)
}

// TestDockerfile checks that the image is a static build of this command
// on a distroless, non-root base, run as the command itself.
func TestDockerfile(t *testing.T) {
	d := readDockerfile(t)
	for _, want := range []string{
		"CGO_ENABLED=0",
		"./cmd/metatools",
		"FROM gcr.io/distroless/static-debian12:nonroot",
		`ENTRYPOINT ["/metatools"]`,
		`"--stateless"`,
	} {
		assert.Contains(t, d, want)
	}
}

// secretEnv is the environment the container is given from the Secret,
// as NAME=value.
func secretEnv(secret manifest, c container) []string {
	var env []string
	for _, e := range c.Env {
		if ref := e.ValueFrom.SecretKeyRef; ref.Key != "" {
			env = append(env, e.Name+"="+secret.StringData[ref.Key])
		}
	}
	return env
}

// TestManifestsServe runs the binary as the Deployment does (its args
// and its token, on a loopback port) with the ConfigMap's configuration,
// and asks the probes' paths of the manifest: the server answers them.
func TestManifestsServe(t *testing.T) {
	byKind := loadManifests(t)
	dep := decodeSpec[deploymentSpec](t, byKind["Deployment"])
	pod := dep.Template.Spec
	c := pod.Containers[0]
	cfgPath := flagValue(c.Args, "--config")
	cfgFile := writeFile(t, "metatools.yaml", configMapFile(t, byKind["ConfigMap"], pod, c, cfgPath))

	var args []string
	for i := 1; i < len(c.Args); i++ {
		switch c.Args[i] {
		case "--http":
			i++ // startServed listens on a loopback port
		case "--config":
			args = append(args, "--config", cfgFile)
			i++
		default:
			args = append(args, c.Args[i])
		}
	}
	env := secretEnv(byKind["Secret"], c)
	var token string
	for _, kv := range env {
		if value, ok := strings.CutPrefix(kv, tokenEnv+"="); ok {
			token = value
		}
	}
	require.NotEmpty(t, token, "the Deployment gives %s from the Secret", tokenEnv)
	s := startServed(t, env, args...)
	for _, path := range []string{c.LivenessProbe.HTTPGet.Path, c.ReadinessProbe.HTTPGet.Path} {
		status, body := s.probe(t, path)
		assert.Equal(t, 200, status, "%s: %s", path, body)
	}
	cs := connectHTTP(t, s.endpoint, token)
	res, _ := callTool(t, cs, "search_tools", map[string]any{"query": "time zone"})
	assert.False(t, res.IsError, resultText(res))
}
