package kubernetes

import (
	"testing"
	"time"

	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// startup bounds the start of a pod on the local cluster on a loaded
// machine, for the engine cases that give a program a short wall time.
const startup = 3 * time.Second

// TestConformance runs the backend conformance suite over the streaming
// set-up (newCluster): client-go's remotecommand, apimachinery's upgrade
// proxy, the kubelet's CRI streaming server, the real runner as a local
// process. The local kubelet isolates nothing, so the backend is told
// Guarantees{}: what only a container would enforce must be reported not
// enforced, and the suite holds it to the rest. Each pod has a user
// namespace of its own, as the package documentation advises, so that
// the processes limit of one execution does not count those of the
// executions that run beside it.
func TestConformance(t *testing.T) {
	c := newCluster(t)
	report := toolruntimetest.RunBackend(t, func(t *testing.T) toolruntime.Backend {
		return c.newBackend(t, WithUserNamespace())
	}, toolcodetest.OutOfProcess(startup))
	t.Logf("kubernetes backend (local kubelet, Guarantees{}):\n%s", report)
}
