package kubernetes

import (
	"flag"
	"fmt"
	"io"
	"os"
	"testing"

	"go.uber.org/goleak"
	"k8s.io/klog/v2"

	"github.com/metatools-go/metatools/toolruntime/toolruntimetest"
)

func TestMain(m *testing.M) {
	// The kubelet's streaming server and the upgrade proxy log through
	// klog what the tests provoke on purpose (a refused WebSocket, a
	// stream cut by a pod's deletion).
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	for name, value := range map[string]string{"logtostderr": "false", "alsologtostderr": "false", "stderrthreshold": "FATAL"} {
		if err := fs.Set(name, value); err != nil {
			fmt.Fprintln(os.Stderr, "klog:", err)
			os.Exit(1)
		}
	}
	klog.SetOutput(io.Discard)
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
