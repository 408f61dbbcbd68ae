package kubernetes

import (
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/validation"

	"github.com/metatools-go/metatools/errors"
)

// Option configures a [Backend].
type Option func(*config) error

// Guarantees is what the cluster guarantees and the backend cannot check
// from its side: it decides which rows [Backend.Enforces] claims.
type Guarantees struct {
	// Containers says that each Pod runs in a real container: its own
	// root file system, no environment but the Pod's, and the kubelet's
	// memory cgroup enforcing the Pod's memory limit. Default true; false
	// when pods are not isolated (a test kubelet running local processes).
	Containers bool
	// EgressDenied says that a NetworkPolicy denying all egress of the
	// backend's pods (deploy/networkpolicy.yaml) is in force, with a
	// network plugin that enforces it. Default false.
	EgressDenied bool
}

type config struct {
	namespace    string
	image        string
	pullPolicy   string
	cpu          resource.Quantity
	tmpSize      int64
	runtimeClass string
	guarantees   Guarantees
	warm         int
	instance     string
	spdyOnly     bool
	userNS       bool
	stderrTail   int
}

func defaultConfig() config {
	return config{
		namespace:  DefaultNamespace,
		cpu:        resource.MustParse("1"),
		tmpSize:    64 << 20,
		guarantees: Guarantees{Containers: true},
		stderrTail: 4 << 10,
	}
}

// DefaultNamespace is the namespace the backend creates its pods in
// unless [WithNamespace] names another; deploy/namespace.yaml creates it.
const DefaultNamespace = "metatools-sandbox"

// WithNamespace creates the pods in namespace ns.
func WithNamespace(ns string) Option {
	return func(c *config) error {
		if errs := validation.IsDNS1123Label(ns); len(errs) > 0 {
			return errors.Errorf(errors.InvalidArgument, "WithNamespace: %q: %s", ns, strings.Join(errs, "; "))
		}
		c.namespace = ns
		return nil
	}
}

// WithImage names the runner's image (required): the command
// toolruntime-runner, or one's own runner, as the image's entrypoint;
// deploy/Dockerfile builds it. Pin it by digest in production.
func WithImage(image string) Option {
	return func(c *config) error {
		if strings.TrimSpace(image) == "" || strings.ContainsAny(image, " \t\n") {
			return errors.Errorf(errors.InvalidArgument, "WithImage: %q is not an image reference", image)
		}
		c.image = image
		return nil
	}
}

// WithImagePullPolicy sets the container's imagePullPolicy: "Always",
// "IfNotPresent" or "Never" (default: the cluster's, which is IfNotPresent
// for an image pinned by tag or digest).
func WithImagePullPolicy(policy string) Option {
	return func(c *config) error {
		switch policy {
		case "Always", "IfNotPresent", "Never":
			c.pullPolicy = policy
			return nil
		}
		return errors.Errorf(errors.InvalidArgument, "WithImagePullPolicy: %q is not Always, IfNotPresent or Never", policy)
	}
}

// WithCPU sets the CPU each pod requests and is limited to, as a
// Kubernetes quantity ("500m", "2"); default "1", one core.
func WithCPU(quantity string) Option {
	return func(c *config) error {
		q, err := parseCPU(quantity)
		if err != nil {
			return errors.WithOp("WithCPU", err)
		}
		c.cpu = q
		return nil
	}
}

// parseCPU parses a CPU quantity: positive, at most 1024 cores, in
// millicores at the finest.
func parseCPU(s string) (resource.Quantity, error) {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return resource.Quantity{}, errors.Errorf(errors.InvalidArgument, "CPU quantity %q: %v", s, err)
	}
	if q.Sign() <= 0 || q.Cmp(resource.MustParse("1024")) > 0 {
		return resource.Quantity{}, errors.Errorf(errors.InvalidArgument, "CPU quantity %q is not in (0, 1024]", s)
	}
	if q.MilliValue() == 0 || resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI).Cmp(q) != 0 {
		return resource.Quantity{}, errors.Errorf(errors.InvalidArgument, "CPU quantity %q is finer than a millicore", s)
	}
	return *resource.NewMilliQuantity(q.MilliValue(), resource.DecimalSI), nil
}

// WithTmpSize sets the size limit, in bytes, of the pod's /tmp, an
// emptyDir (default 64 MiB). The root file system is read-only: /tmp is
// the only place a program may write.
func WithTmpSize(bytes int64) Option {
	return func(c *config) error {
		if bytes < 1<<20 {
			return errors.Errorf(errors.InvalidArgument, "WithTmpSize: %d is below 1 MiB", bytes)
		}
		c.tmpSize = bytes
		return nil
	}
}

// WithRuntimeClass runs the pods under the RuntimeClass name (gVisor's
// "gvisor", Kata's "kata"): a kernel of their own between the program and
// the node's.
func WithRuntimeClass(name string) Option {
	return func(c *config) error {
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			return errors.Errorf(errors.InvalidArgument, "WithRuntimeClass: %q: %s", name, strings.Join(errs, "; "))
		}
		c.runtimeClass = name
		return nil
	}
}

// WithGuarantees says what the cluster guarantees (default:
// Guarantees{Containers: true}); see [Guarantees].
func WithGuarantees(g Guarantees) Option {
	return func(c *config) error {
		c.guarantees = g
		return nil
	}
}

// WithWarmPool keeps n pods started ahead with the backend's default
// limits (toolruntime.DefaultLimits), each used for one execution, then
// deleted and replaced in the background. An execution whose limits
// differ runs in a pod of its own, started cold. The cost is n idle
// pods' resource requests held at all times; see the package
// documentation.
func WithWarmPool(n int) Option {
	return func(c *config) error {
		if n < 0 || n > 256 {
			return errors.Errorf(errors.InvalidArgument, "WithWarmPool: %d is not in [0, 256]", n)
		}
		c.warm = n
		return nil
	}
}

// WithInstance sets the value of the instance label
// (app.kubernetes.io/instance) of the backend's pods, which
// [Backend.Reap] selects on; default "metatools". Backends sharing a
// namespace with different instances reap only their own pods.
func WithInstance(name string) Option {
	return func(c *config) error {
		if errs := validation.IsValidLabelValue(name); len(errs) > 0 || name == "" {
			return errors.Errorf(errors.InvalidArgument, "WithInstance: %q is not a label value", name)
		}
		c.instance = name
		return nil
	}
}

// WithSPDY attaches to pods with SPDY only, instead of WebSocket with a
// fallback to SPDY (kubectl's default). It is for API servers or proxies
// that answer a WebSocket upgrade with something other than an upgrade
// failure.
func WithSPDY() Option {
	return func(c *config) error {
		c.spdyOnly = true
		return nil
	}
}

// WithUserNamespace runs each pod in a user namespace of its own
// (hostUsers: false; the cluster must support user namespaces): user
// 65532 in the pod is a user of its own on the node, so RLIMIT_NPROC
// counts only the pod's processes instead of every sandbox pod's on the
// node, and a process escaping the container is no user the node knows.
func WithUserNamespace() Option {
	return func(c *config) error {
		c.userNS = true
		return nil
	}
}
