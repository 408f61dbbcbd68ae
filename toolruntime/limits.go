package toolruntime

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
)

// Limits are the bounds a sandbox puts on the process or module that runs a
// program, on top of the limits of the program itself ([toolcode.Limits]:
// wall time, tool calls, chain steps, output bytes, concurrency), which the
// engine and the gateway enforce whatever the backend. A zero field takes
// the value of [DefaultLimits].
type Limits struct {
	// CPUTime bounds the CPU time the program's process may use.
	CPUTime time.Duration `json:"cpuTime,omitempty" yaml:"cpuTime,omitempty"`
	// Memory bounds, in bytes, the memory the program may use.
	Memory int64 `json:"memory,omitempty" yaml:"memory,omitempty"`
	// Processes bounds the number of processes (and threads) the sandbox
	// may hold at once.
	Processes int `json:"processes,omitempty" yaml:"processes,omitempty"`
	// FileSize bounds, in bytes, the size of a file the sandbox writes.
	FileSize int64 `json:"fileSize,omitempty" yaml:"fileSize,omitempty"`
}

// DefaultLimits fill the zero fields of the limits a [Runtime] is given.
var DefaultLimits = Limits{
	CPUTime:   30 * time.Second,
	Memory:    256 << 20,
	Processes: 64,
	FileSize:  16 << 20,
}

// Names of the sandbox's limits and isolation properties, as they appear in
// a [LimitsEnforced] (the names of the program's own limits are toolcode's:
// [toolcode.LimitWallTime] and the others).
const (
	LimitCPUTime   = "cpu_time"
	LimitMemory    = toolcode.LimitMemory
	LimitProcesses = "processes"
	LimitFileSize  = "file_size"

	// IsolateEnvironment: the program's process does not see the host's
	// environment variables (secrets).
	IsolateEnvironment = "no_host_environment"
	// IsolateFiles: the program cannot read or write the host's files.
	IsolateFiles = "no_host_files"
	// IsolateNetwork: the program cannot open a network connection.
	IsolateNetwork = "no_network"
)

// Validate reports the first negative field, in the order of the fields,
// with code [errors.InvalidArgument].
func (l Limits) Validate() error {
	// In the order of the fields, so that the first negative one is the
	// one named, whatever the others.
	for _, f := range []struct {
		name  string
		value int64
	}{
		{LimitCPUTime, int64(l.CPUTime)}, {LimitMemory, l.Memory},
		{LimitProcesses, int64(l.Processes)}, {LimitFileSize, l.FileSize},
	} {
		if f.value < 0 {
			e := errors.Errorf(errors.InvalidArgument, "limit %s is negative (%d)", f.name, f.value)
			e.Meta = map[string]string{"limit": f.name}
			return e
		}
	}
	return nil
}

// withDefaults fills the zero fields from d.
func (l Limits) withDefaults(d Limits) Limits {
	l.CPUTime = cmp.Or(l.CPUTime, d.CPUTime)
	l.Memory = cmp.Or(l.Memory, d.Memory)
	l.Processes = cmp.Or(l.Processes, d.Processes)
	l.FileSize = cmp.Or(l.FileSize, d.FileSize)
	return l
}

// LimitsEnforced says, for each limit and isolation property, what enforced
// it in one execution (see [toolcode.Enforcement]). Backends build it with
// [Enforce] and [NotEnforced].
type LimitsEnforced []toolcode.Enforcement

// Enforce returns the row of a limit or property enforced by mechanism by,
// at value (which may be nil for a property).
func Enforce(name string, value any, by string) toolcode.Enforcement {
	e := toolcode.Enforcement{Name: name, By: by}
	if value != nil {
		e.Value = fmt.Sprint(value)
	}
	return e
}

// NotEnforced returns the row of a limit or property nothing enforced.
func NotEnforced(name string) toolcode.Enforcement { return toolcode.Enforcement{Name: name} }

// Get returns the row of name, if there is one.
func (l LimitsEnforced) Get(name string) (toolcode.Enforcement, bool) {
	i := slices.IndexFunc(l, func(e toolcode.Enforcement) bool { return e.Name == name })
	if i < 0 {
		return toolcode.Enforcement{}, false
	}
	return l[i], true
}

// Enforced reports whether name is enforced.
func (l LimitsEnforced) Enforced(name string) bool {
	e, ok := l.Get(name)
	return ok && e.Enforced()
}

// Missing returns the names of required that l does not enforce, in the
// order of required.
func (l LimitsEnforced) Missing(required []string) []string {
	var out []string
	for _, name := range required {
		if !l.Enforced(name) {
			out = append(out, name)
		}
	}
	return out
}

// String lists the rows as "name=value by mechanism", one per line, with
// "not enforced" for the others.
func (l LimitsEnforced) String() string {
	var b strings.Builder
	for _, e := range l {
		b.WriteString(e.Name)
		if e.Value != "" {
			b.WriteString("=" + e.Value)
		}
		if e.Enforced() {
			b.WriteString(" by " + e.By)
		} else {
			b.WriteString(" not enforced")
		}
		b.WriteByte('\n')
	}
	return b.String()
}

// order is the order of the rows of a [LimitsEnforced] a [Runtime]
// reports: the limits, then the isolation properties.
var order = []string{
	toolcode.LimitWallTime, LimitCPUTime, LimitMemory, LimitProcesses, LimitFileSize,
	toolcode.LimitOutputBytes, toolcode.LimitToolCalls, toolcode.LimitChainSteps, toolcode.LimitConcurrency,
	IsolateEnvironment, IsolateFiles, IsolateNetwork,
}

// sorted returns the rows in [order], rows of other names last, in the
// order they came.
func (l LimitsEnforced) sorted() LimitsEnforced {
	rank := func(e toolcode.Enforcement) int {
		if i := slices.Index(order, e.Name); i >= 0 {
			return i
		}
		return len(order)
	}
	out := slices.Clone(l)
	slices.SortStableFunc(out, func(a, b toolcode.Enforcement) int { return rank(a) - rank(b) })
	return out
}

// gatewayLimits returns the rows of the program's limits that the gateway
// enforces on every backend: it is the only way to tools, it runs in the
// host, and it counts every call and every byte the program prints.
func gatewayLimits(l toolcode.Limits) LimitsEnforced {
	return LimitsEnforced{
		Enforce(toolcode.LimitToolCalls, l.ToolCalls, "gateway"),
		Enforce(toolcode.LimitChainSteps, l.ChainSteps, "gateway"),
		Enforce(toolcode.LimitOutputBytes, l.OutputBytes, "gateway"),
		Enforce(toolcode.LimitConcurrency, l.Concurrency, "gateway"),
	}
}
