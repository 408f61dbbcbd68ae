package wasm_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
	"github.com/metatools-go/metatools/toolruntime/wasm"
)

// startup bounds the start of an instance that no spare was ready for,
// under the race detector on a loaded machine.
const startup = 3 * time.Second

func TestConformance(t *testing.T) {
	// A backend of its own per subtest, with its spares: the suite closes
	// it and checks that nothing of it is left.
	report := toolruntimetest.RunBackend(t, func(t *testing.T) toolruntime.Backend {
		dir, err := cacheDir()
		require.NoError(t, err)
		b, err := wasm.NewFromFile(modulePath, wasm.WithCacheDir(dir))
		require.NoError(t, err)
		return b
	}, toolcodetest.OutOfProcess(startup))
	t.Logf("wasm backend:\n%s", report)
}
