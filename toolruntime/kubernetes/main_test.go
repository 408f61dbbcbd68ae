package kubernetes

import (
	"fmt"
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

func TestMain(m *testing.M) {
	code := m.Run()
	toolruntimetest.RemoveRunners()
	if runnerOnce.dir != "" {
		_ = os.RemoveAll(runnerOnce.dir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}
