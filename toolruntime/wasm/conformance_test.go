package wasm_test

import (
	"testing"
	"time"

	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

// startup bounds the start of an instance that no spare was ready for,
// under the race detector on a loaded machine.
const startup = 3 * time.Second

func TestConformance(t *testing.T) {
	report := toolruntimetest.RunBackend(t, func(*testing.T) toolruntime.Backend { return unspared },
		toolcodetest.OutOfProcess(startup))
	t.Logf("wasm backend:\n%s", report)
}
