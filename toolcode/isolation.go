package toolcode

import "time"

// Isolation says how an engine confined a program: what ran it, under
// which security profile, and what enforced each limit. An engine that runs
// programs behind a boundary of its own (a process, a WebAssembly runtime)
// reports it through [Program.Report]; the [Executor] returns it in
// [Result.Isolation]. It is nil for an engine that reports nothing.
type Isolation struct {
	// Backend names what ran the program ("process", "wasm").
	Backend string `json:"backend"`
	// Profile is the security profile the program ran under, if any.
	Profile string `json:"profile,omitempty"`
	// Enforced says, limit by limit and for each isolation property, what
	// enforced it.
	Enforced []Enforcement `json:"enforced,omitempty"`
	// Startup is how long getting the sandbox ready took before the
	// program ran in it (see [MetricSandboxStart]); zero when there was
	// nothing to start.
	Startup time.Duration `json:"-"`
}

// Enforcement says whether and how one limit, or one isolation property
// (no host files, no network, no host environment), was enforced.
type Enforcement struct {
	// Name is the limit's or the property's name ([LimitWallTime], ...).
	Name string `json:"name"`
	// Value is the bound enforced, as text ("2s", "67108864"); it may
	// differ from the bound asked for when the mechanism is coarser, and
	// is empty for a property.
	Value string `json:"value,omitempty"`
	// By names the mechanism that enforced it ("engine", "gateway",
	// "rlimit", "cgroup", "bubblewrap", "wasm"); empty when nothing did.
	By string `json:"by,omitempty"`
}

// Enforced reports whether something enforced it.
func (e Enforcement) Enforced() bool { return e.By != "" }
