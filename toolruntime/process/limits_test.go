package process_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/process"
)

const allocate = `const a = []; while (true) a.push('x'.repeat(1 << 20))`

// runLimited runs code under the sandbox limits l and returns what the
// execution reported as enforced and its error.
func runLimited(t *testing.T, opts []process.Option, l toolruntime.Limits, code string) (toolruntime.LimitsEnforced, error) {
	t.Helper()
	x, _ := executor(t, newBackend(t, opts...), toolruntime.Standard, "javascript", toolruntime.WithLimits(l))
	res, err := x.Execute(context.Background(), toolcode.ExecuteParams{Code: code, Limits: toolcode.Limits{WallTime: 60 * time.Second}})
	require.NotNil(t, res)
	return toolruntime.LimitsEnforced(res.Isolation.Enforced), err
}

func TestLimitMemoryCgroup(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			enforced, err := runLimited(t, mode.opts, toolruntime.Limits{Memory: 64 << 20}, allocate)
			row, ok := enforced.Get(toolruntime.LimitMemory)
			require.True(t, ok)
			require.Contains(t, row.By, "cgroup", "this machine has a memory cgroup")
			assert.Equal(t, "67108864", row.Value)
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
			assert.Equal(t, toolruntime.LimitMemory, toolcode.LimitOf(err), "%v", err)
		})
	}
}

func TestLimitMemoryAddressSpace(t *testing.T) {
	enforced, err := runLimited(t, []process.Option{process.WithoutCgroup(), process.WithoutBubblewrap()}, toolruntime.Limits{Memory: 64 << 20}, `return 'x'.repeat(1 << 20).length`)
	row, ok := enforced.Get(toolruntime.LimitMemory)
	require.True(t, ok)
	assert.Equal(t, "rlimit address space", row.By)
	assert.Equal(t, "2147483648", row.Value, "the address space actually enforced, not the 64 MiB asked")
	require.NoError(t, err, "the runner works under that address space")
}

func TestLimitCPUTime(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			enforced, err := runLimited(t, mode.opts, toolruntime.Limits{CPUTime: time.Second}, `while (true) {}`)
			assert.True(t, enforced.Enforced(toolruntime.LimitCPUTime))
			require.Error(t, err)
			assert.Equal(t, errors.ResourceExhausted, errors.CodeOf(err))
			assert.Equal(t, toolruntime.LimitCPUTime, toolcode.LimitOf(err), "%v", err)
		})
	}
}

func TestEnforces(t *testing.T) {
	l := toolruntime.DefaultLimits
	cases := []struct {
		name string
		opts []process.Option
		want map[string]string // name -> mechanism; "" for not enforced
	}{
		{"bubblewrap", []process.Option{process.RequireBubblewrap()}, map[string]string{
			toolcode.LimitWallTime: "kill at deadline", toolruntime.LimitCPUTime: "rlimit",
			toolruntime.LimitMemory: "cgroup v1 memory", toolruntime.LimitProcesses: "cgroup v1 pids",
			toolruntime.LimitFileSize: "rlimit", toolruntime.IsolateEnvironment: "clean environment",
			toolruntime.IsolateFiles: "bubblewrap", toolruntime.IsolateNetwork: "bubblewrap",
		}},
		{"plain", []process.Option{process.WithoutBubblewrap()}, map[string]string{
			toolruntime.LimitMemory: "cgroup v1 memory", toolruntime.LimitProcesses: "cgroup v1 pids",
			toolruntime.IsolateFiles: "", toolruntime.IsolateNetwork: "",
		}},
		{"no cgroup, root", []process.Option{process.WithoutBubblewrap(), process.WithoutCgroup()}, map[string]string{
			toolruntime.LimitMemory: "rlimit address space", toolruntime.LimitProcesses: "",
			toolruntime.IsolateEnvironment: "clean environment",
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := newBackend(t, c.opts...).Enforces(l)
			for name, by := range c.want {
				row, ok := got.Get(name)
				require.True(t, ok, name)
				assert.Equal(t, by, row.By, name)
			}
		})
	}
}

func TestStandardProfileAccepts(t *testing.T) {
	for _, mode := range modes {
		_, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Standard, newBackend(t, mode.opts...)))
		require.NoError(t, err, mode.name)
	}
	// Hardened needs processes bounded: with bubblewrap and the pids
	// cgroup, this machine has it.
	_, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, newBackend(t, process.RequireBubblewrap())))
	require.NoError(t, err)
	_, err = toolruntime.New(toolruntime.WithBackend(toolruntime.Hardened, newBackend(t, process.WithoutBubblewrap())))
	require.Error(t, err)
	assert.Equal(t, errors.Unsupported, errors.CodeOf(err))
}

func TestNewRejects(t *testing.T) {
	cases := []struct {
		name   string
		runner string
		opts   []process.Option
		code   errors.Code
	}{
		{"missing runner", "/nonexistent/toolruntime-runner", nil, errors.InvalidArgument},
		{"bubblewrap required but absent", "", []process.Option{process.WithBubblewrap("/nonexistent/bwrap"), process.RequireBubblewrap()}, errors.Unsupported},
		{"bubblewrap both required and off", "", []process.Option{process.RequireBubblewrap(), process.WithoutBubblewrap()}, errors.InvalidArgument},
		{"empty cgroup parent", "", []process.Option{process.WithCgroupParent("")}, errors.InvalidArgument},
		{"too few files", "", []process.Option{process.WithOpenFiles(3)}, errors.InvalidArgument},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := c.runner
			if path == "" {
				path = runnerPath
			}
			_, err := process.New(path, c.opts...)
			require.Error(t, err)
			assert.Equal(t, c.code, errors.CodeOf(err), "%v", err)
		})
	}
}

// TestStartupIsMeasured shows that an execution reports the time its
// runner process took to start, apart from the program's.
func TestStartupIsMeasured(t *testing.T) {
	for _, mode := range modes {
		t.Run(mode.name, func(t *testing.T) {
			x, _ := executor(t, newBackend(t, mode.opts...), toolruntime.Standard, "javascript")
			res, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: "return 1"})
			require.NoError(t, err)
			assert.Positive(t, res.Isolation.Startup, "starting a process takes time")
			assert.Less(t, res.Isolation.Startup, res.Duration)
		})
	}
}
