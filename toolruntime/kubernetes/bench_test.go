package kubernetes

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// BenchmarkStartup measures a trivial program, from Run to its value,
// over the streaming set-up (newCluster): "cold" creates its pod, waits
// for it to run and attaches; "warm" takes a pod of the warm pool that
// already runs (the benchmark waits, untimed, for the pool to have one).
// The local kubelet starts a process where a real one pulls an image and
// starts a container, so the figures measure the backend's own overhead
// (API calls, watch, attach through the upgrade proxy), not a cluster's;
// and the warm pool's replacement pod starts on the same machine during
// the timed execution, as it would not on a cluster of several nodes.
func BenchmarkStartup(b *testing.B) {
	ctx := context.Background()
	// A cluster per run: the fake clientset keeps every watch it served.
	b.Run("cold", func(b *testing.B) {
		c := newCluster(b)
		// SPDY alone: this kubelet refuses kubectl's WebSocket first try
		// (see TestStreamRun), which would add a round trip a real API
		// server does not cost.
		be := c.newBackend(b, WithSPDY())
		b.ReportAllocs()
		for b.Loop() {
			_, err := execute(ctx, b, be, `return 1`, 20*time.Second, nil)
			require.NoError(b, err)
		}
	})
	b.Run("warm", func(b *testing.B) {
		c := newCluster(b)
		be := c.newBackend(b, WithSPDY(), WithWarmPool(1))
		defer func() { require.NoError(b, be.Close()) }()
		b.ReportAllocs()
		for b.Loop() {
			b.StopTimer()
			w := <-be.pool.ready
			_, err := be.waitRunning(ctx, w.name)
			require.NoError(b, err)
			be.pool.ready <- w
			b.StartTimer()
			_, err = execute(ctx, b, be, `return 1`, 20*time.Second, nil)
			require.NoError(b, err)
		}
	})
}
