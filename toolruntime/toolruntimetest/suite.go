package toolruntimetest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.uber.org/goleak"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolcode/toolcodetest"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolruntime/gateway"
	"github.com/metatools-go/metatools/toolruntime/toolruntimetest/probe"
)

// SuiteLimits are the sandbox's limits the suite runs every backend with:
// low enough that the limit attempts reach them soon. The CPU time leaves
// room for a backend that bounds it by the time since the start, start-up
// included (wasm): on a loaded machine, a program that fails at its first
// line took more than a second there, against 0.3 s when quiet.
var SuiteLimits = toolruntime.Limits{
	CPUTime:   2 * time.Second,
	Memory:    128 << 20,
	Processes: 16,
	FileSize:  1 << 20,
}

// SecretEnv is the environment variable the suite plants, with a random
// value, before the environment attempts.
const SecretEnv = "TOOLRUNTIME_PROBE_SECRET"

// deniedTool is the tool the suite's authorization policy refuses: a
// program must find it unknown (not_found), as on every face.
const deniedTool = "math:add"

// ProbeEngine returns the probe engine (see the package probe): register
// it, with the JavaScript and TypeScript engines, in the backend given to
// [RunBackend] — an in-process backend directly, an out-of-process one
// through the runner [BuildRunner] builds.
func ProbeEngine() toolcode.Engine { return probe.New() }

// env is what the attempts of one backend share: the planted secrets, the
// listener and the runtime.
type env struct {
	t         *testing.T
	rt        *toolruntime.Runtime
	backend   toolruntime.Backend
	claims    toolruntime.LimitsEnforced
	inProcess bool
	// pooled says that the backend keeps instances of its own in the
	// background (it is a [toolruntime.Closer]): the attempts then check what they
	// started, and the backend's Close the rest.
	pooled bool

	dir        string // the test's temporary directory
	secretFile string // a file the test planted, with secret in it
	secret     string
	hostname   string // the host's /etc/hostname, "" when unreadable
	writeTo    string // a file outside the sandbox the attempts try to create
	token      string // marks the processes a fork probe starts
	addr       string // the loopback listener's address
	accepted   *atomic.Int64
}

// attempt is one escape or limit attempt, made as a JavaScript program and
// as a probe.
type attempt struct {
	name string
	// property is the claim that judges the probe; "" for what the
	// gateway or the engine always enforce.
	property string
	// js is the JavaScript program; jsCodes the codes it may fail with,
	// jsLimit the limit its error must name (when not empty).
	js      string
	jsCodes []errors.Code
	jsLimit string
	// probe is the probe program; harmful marks one that would harm the
	// host if run in the test's own process.
	probe   string
	harmful bool
	// limits are the program's limits; jsLimits, when set, replace them
	// for the JavaScript program.
	limits   toolcode.Limits
	jsLimits toolcode.Limits
	// sandbox, when set, replaces [SuiteLimits] for the attempt, so that
	// the limit it attacks is the one that stops it.
	sandbox *toolruntime.Limits
	// escaped judges a probe that returned a value: did it get through?
	escaped func(e *env, o probe.Outcome) (bool, string)
	// wantProbe checks a probe that failed: the codes and limit it must
	// fail with when the backend claims the property (or always, for the
	// gateway's attempts).
	probeCodes []errors.Code
	probeLimit string
}

var ioCodes = []errors.Code{errors.Execution, errors.InvalidArgument}

func (e *env) attempts() []attempt {
	gotSecret := func(want string) func(*env, probe.Outcome) (bool, string) {
		return func(_ *env, o probe.Outcome) (bool, string) {
			v, _ := o.Value.(string)
			if o.OK && want != "" && strings.TrimSpace(v) == strings.TrimSpace(want) {
				return true, "read the host's value"
			}
			if o.OK {
				return false, fmt.Sprintf("got another value (%.40q)", v)
			}
			return false, o.Error
		}
	}
	short := toolcode.Limits{WallTime: 10 * time.Second}
	spinWall := 3 * time.Second
	if e.claims.Enforced(toolruntime.LimitCPUTime) {
		// The CPU limit must stop the probe before the wall time does.
		spinWall = 30 * time.Second
	}
	return []attempt{
		{
			name: "read planted file", property: toolruntime.IsolateFiles,
			js:      fmt.Sprintf(`return require("fs").readFileSync(%q, "utf8");`, e.secretFile),
			jsCodes: ioCodes,
			probe:   "read " + e.secretFile, limits: short,
			escaped: gotSecret(e.secret),
		},
		{
			name: "read /etc/hostname", property: toolruntime.IsolateFiles,
			js:      `const fs = await import("fs"); return fs.readFileSync("/etc/hostname", "utf8");`,
			jsCodes: ioCodes,
			probe:   "read /etc/hostname", limits: short,
			escaped: gotSecret(e.hostname),
		},
		{
			name: "write outside the sandbox", property: toolruntime.IsolateFiles,
			js:      fmt.Sprintf(`Deno.writeTextFileSync(%q, "escaped"); return "written";`, e.writeTo),
			jsCodes: ioCodes,
			probe:   "write " + e.writeTo + " escaped", limits: short,
			escaped: func(e *env, o probe.Outcome) (bool, string) {
				if _, err := os.Stat(e.writeTo); err == nil {
					return true, "the file exists on the host"
				}
				if o.OK {
					return false, "wrote a file the host does not see"
				}
				return false, o.Error
			},
		},
		{
			name: "connect to loopback", property: toolruntime.IsolateNetwork,
			js:      fmt.Sprintf(`const r = await fetch("http://%s/"); return r.status;`, e.addr),
			jsCodes: ioCodes,
			probe:   "connect " + e.addr, limits: short,
			escaped: func(_ *env, o probe.Outcome) (bool, string) {
				if o.OK {
					return true, "connected"
				}
				return false, o.Error
			},
		},
		{
			name: "read the host's environment", property: toolruntime.IsolateEnvironment,
			js:      fmt.Sprintf(`return process.env.%s;`, SecretEnv),
			jsCodes: ioCodes,
			probe:   "env " + SecretEnv, limits: short,
			escaped: gotSecret(e.secret),
		},
		{
			name: "start a process", property: "",
			js:      `return require("child_process").execSync("true").toString();`,
			jsCodes: ioCodes,
			probe:   "exec", limits: short,
			// One process stays within any positive bound: recorded,
			// judged by no claim.
			escaped: func(_ *env, o probe.Outcome) (bool, string) {
				if o.OK {
					return true, fmt.Sprintf("started, exit status %v", o.Value)
				}
				return false, o.Error
			},
		},
		{
			name: "fork bomb", property: toolruntime.LimitProcesses,
			js:      `const cp = require("child_process"); for (;;) cp.spawn("sh");`,
			jsCodes: ioCodes,
			probe:   fmt.Sprintf("fork %d %s", 4*SuiteLimits.Processes, e.token), harmful: true, limits: short,
			escaped: func(_ *env, o probe.Outcome) (bool, string) {
				if o.OK {
					return true, fmt.Sprintf("started %v processes", o.Value)
				}
				return false, fmt.Sprintf("started %v, then: %s", o.Value, o.Error)
			},
		},
		{
			name: "allocate past the memory cap", property: toolruntime.LimitMemory,
			js:      `const a = []; while (true) { a.push("x".repeat(1024)); }`,
			jsCodes: []errors.Code{errors.Timeout, errors.ResourceExhausted},
			probe:   fmt.Sprintf("alloc %d", 2*SuiteLimits.Memory), harmful: true,
			// CPU time well past what allocating takes on a loaded
			// machine: the memory cap must be what stops the probe.
			sandbox:    &toolruntime.Limits{CPUTime: 30 * time.Second, Memory: SuiteLimits.Memory, Processes: SuiteLimits.Processes, FileSize: SuiteLimits.FileSize},
			limits:     toolcode.Limits{WallTime: 20 * time.Second},
			jsLimits:   toolcode.Limits{WallTime: 2 * time.Second},
			escaped:    func(*env, probe.Outcome) (bool, string) { return true, "allocated" },
			probeCodes: []errors.Code{errors.ResourceExhausted}, probeLimit: toolruntime.LimitMemory,
		},
		{
			name: "infinite loop", property: toolruntime.LimitCPUTime,
			js:      `while (true) {}`,
			jsCodes: []errors.Code{errors.Timeout}, jsLimit: toolcode.LimitWallTime,
			probe: "spin", harmful: true,
			limits: toolcode.Limits{WallTime: spinWall},
			// Well inside the suite's CPU time: a process of two threads
			// on two cores spends CPU time up to twice as fast as wall
			// time, and the engine's deadline must be what stops the loop.
			jsLimits:   toolcode.Limits{WallTime: 300 * time.Millisecond},
			escaped:    func(*env, probe.Outcome) (bool, string) { return true, "returned" },
			probeCodes: []errors.Code{errors.ResourceExhausted}, probeLimit: toolruntime.LimitCPUTime,
		},
		{
			name: "deep recursion", property: "",
			js:      `function f(n) { return f(n + 1) + 1; } return f(0);`,
			jsCodes: []errors.Code{errors.ResourceExhausted}, jsLimit: toolcode.LimitStack,
			probe: "recurse", harmful: true, limits: short,
			escaped: func(*env, probe.Outcome) (bool, string) { return true, "returned" },
		},
		{
			name: "flood stdout", property: "",
			js:      `for (;;) { process.stdout.write("x".repeat(65536)); }`,
			jsCodes: ioCodes,
			probe:   fmt.Sprintf("print %d", gateway.DefaultMaxMessageBytes+1), harmful: true, limits: short,
			escaped:    func(*env, probe.Outcome) (bool, string) { return true, "the host read a corrupt stream as a success" },
			probeCodes: []errors.Code{errors.ResourceExhausted, errors.InvalidArgument, errors.Unavailable},
		},
		{
			name: "flood the log", property: "",
			js:      `for (;;) { try { console.log("0123456789".repeat(100)); } catch (e) {} }`,
			jsCodes: []errors.Code{errors.ResourceExhausted}, jsLimit: toolcode.LimitOutputBytes,
			probe:  "log 100000 1000",
			limits: toolcode.Limits{WallTime: 10 * time.Second, OutputBytes: 64 << 10},
			escaped: func(*env, probe.Outcome) (bool, string) {
				return true, "logged past the output limit"
			},
			probeCodes: []errors.Code{errors.ResourceExhausted}, probeLimit: toolcode.LimitOutputBytes,
		},
		{
			name: "exceed the tool-call cap", property: "",
			js:      `for (let i = 0; i < 1000; i++) { try { await tools.util.echo({i}); } catch (e) {} } return "done";`,
			jsCodes: []errors.Code{errors.ResourceExhausted}, jsLimit: toolcode.LimitToolCalls,
			probe:      "call 1000 util:echo",
			limits:     toolcode.Limits{WallTime: 10 * time.Second, ToolCalls: 5},
			escaped:    func(*env, probe.Outcome) (bool, string) { return true, "called past the cap" },
			probeCodes: []errors.Code{errors.ResourceExhausted}, probeLimit: toolcode.LimitToolCalls,
		},
		{
			name: "call a denied tool", property: "",
			js:         `return await tools.math.add({a: 1, b: 2});`,
			jsCodes:    []errors.Code{errors.NotFound},
			probe:      "call 1 " + deniedTool,
			limits:     short,
			escaped:    func(*env, probe.Outcome) (bool, string) { return true, "the tool ran" },
			probeCodes: []errors.Code{errors.NotFound},
		},
	}
}

// closeTimeout bounds a backend's Close in the suite.
const closeTimeout = 30 * time.Second

// RunBackend runs the conformance suite against the backends newBackend
// returns (one per subtest), and returns what it found (also logged as a
// table). The backend must run the languages "javascript", "typescript"
// and "probe" ([ProbeEngine]; out of process, the runner of
// [BuildRunner]).
//
// It runs toolcodetest.RunEngine in JavaScript and TypeScript through
// [toolruntime.Runtime.Engine], then each escape and limit attempt twice:
// as a JavaScript program, which the engine must stop (it has no I/O
// API), and as a probe, which does the operation for real. A probe
// attempt whose property the backend claims in Enforces must fail, with
// the limit's error where there is one; one it does not claim is recorded.
// The attempts the gateway judges (log, tool calls, a denied tool, a
// corrupt stream) must fail on every backend. A probe that would harm the
// host (fork bomb, allocation, loop, recursion, stdout flood) is not run
// when it would run in the test's own process and the backend does not
// claim its property, and the report says so.
//
// After every attempt, nothing may be left running: no goroutine (checked
// with goleak against the goroutines before the attempt) and, where
// there is a /proc, no child process and no process the probe started.
// A backend that keeps instances of its own in the background (processes
// or module instances started ahead: a [toolruntime.Closer]) may keep them between
// attempts; after each attempt no process the probe started may be left,
// and once the subtest that made the backend is over the suite calls
// Close and checks that nothing of the backend is left: no goroutine, no
// child process.
// RunBackend sets an environment variable, so its test and the test's
// parents must not be parallel. Callers also check the whole package with
// goleak.VerifyTestMain, since toolcodetest.RunEngine checks no goroutine
// itself.
//
// opts adapt the engine suite to the backend: an out-of-process backend
// passes toolcodetest.OutOfProcess with its start-up time, one that runs a
// program's tool calls one at a time toolcodetest.SequentialCalls.
func RunBackend(t *testing.T, newBackend func(t *testing.T) toolruntime.Backend, opts ...toolcodetest.Option) *Report {
	t.Helper()
	report := &Report{}
	newRuntime := func(t *testing.T, limits toolruntime.Limits) (*toolruntime.Runtime, toolruntime.Backend) {
		goroutines := goleak.IgnoreCurrent()
		before := children()
		b := newBackend(t)
		require.NotNil(t, b, "newBackend returned nil")
		if c, ok := b.(toolruntime.Closer); ok {
			// Registered first, so it runs last: after the cleanups of
			// what the subtest made with the backend.
			t.Cleanup(func() { closeAndCheck(t, c, before, goroutines) })
		}
		rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, b), toolruntime.WithLimits(limits))
		require.NoError(t, err)
		return rt, b
	}
	for _, lang := range []string{"javascript", "typescript"} {
		t.Run("Engine/"+lang, func(t *testing.T) {
			// The engine suite bounds its programs by wall time; the
			// sandbox's own limits stay at their defaults, out of its way.
			rt, _ := newRuntime(t, toolruntime.DefaultLimits)
			toolcodetest.RunEngine(t, func() toolcode.Engine {
				engine, err := rt.Engine(toolruntime.Dev, lang)
				require.NoError(t, err)
				return engine
			}, opts...)
		})
	}
	t.Run("Startup", func(t *testing.T) {
		// What the backend reports of its start reaches the execution's
		// isolation, and is part of the execution's time.
		rt, b := newRuntime(t, toolruntime.DefaultLimits)
		engine, err := rt.Engine(toolruntime.Dev, "javascript")
		require.NoError(t, err)
		x := toolcode.New(toolcodetest.NewFixture(t).Ops, toolcode.WithEngine(engine))
		res, err := x.Execute(t.Context(), toolcode.ExecuteParams{Code: "return 1"})
		require.NoError(t, err)
		require.NotNil(t, res.Isolation)
		assert.Equal(t, b.Name(), res.Isolation.Backend)
		assert.GreaterOrEqual(t, res.Isolation.Startup, time.Duration(0))
		assert.LessOrEqual(t, res.Isolation.Startup, res.Duration, "the start is part of the execution")
	})
	t.Run("Attempts", func(t *testing.T) {
		rt, b := newRuntime(t, SuiteLimits)
		report.Backend = b.Name()
		e := newEnv(t, rt, b)
		for _, a := range e.attempts() {
			t.Run(a.name+"/javascript", func(t *testing.T) { e.runJS(t, report, a) })
			t.Run(a.name+"/probe", func(t *testing.T) { e.runProbe(t, report, a) })
		}
		t.Log("\n" + report.String())
	})
	return report
}

// closeAndCheck closes a backend and checks that nothing it started is
// left: no goroutine beyond those of before it was made, no child process
// beyond before.
func closeAndCheck(t *testing.T, c toolruntime.Closer, before map[int]bool, goroutines goleak.Option) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	require.NoError(t, c.Close(ctx), "close the backend")
	checkNoProcesses(t, before, "")
	goleak.VerifyNone(t, goroutines)
}

func randomHex(t *testing.T) string {
	b := make([]byte, 16)
	_, err := rand.Read(b)
	require.NoError(t, err)
	return hex.EncodeToString(b)
}

func newEnv(t *testing.T, rt *toolruntime.Runtime, b toolruntime.Backend) *env {
	e := &env{t: t, rt: rt, backend: b, claims: b.Enforces(SuiteLimits), dir: t.TempDir(), secret: "secret-" + randomHex(t), token: "probe-token-" + randomHex(t)}
	_, e.pooled = b.(toolruntime.Closer)
	e.secretFile = filepath.Join(e.dir, "secret.txt")
	require.NoError(t, os.WriteFile(e.secretFile, []byte(e.secret), 0o600))
	e.writeTo = filepath.Join(e.dir, "escaped.txt")
	if h, err := os.ReadFile("/etc/hostname"); err == nil {
		e.hostname = string(h)
	}
	t.Setenv(SecretEnv, e.secret)

	// The listener the network attempts try to reach; it counts what it
	// accepts for the whole run, each attempt comparing before and after.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	e.addr = ln.Addr().String()
	e.accepted = new(atomic.Int64)
	acceptDone := make(chan struct{})
	go func() {
		defer close(acceptDone)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			e.accepted.Add(1)
			_ = c.Close()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-acceptDone
	})

	// Where does the probe run? In the test's own process, harmful
	// probes of properties not claimed are not run.
	res, err := e.execute(t, probe.Language, "pid", toolcode.Limits{WallTime: 30 * time.Second})
	require.NoError(t, err, "the backend must run the probe engine (language %q)", probe.Language)
	var o probe.Outcome
	require.NoError(t, json.Unmarshal(res.Value, &o))
	pid, _ := o.Value.(float64)
	e.inProcess = int(pid) == os.Getpid()
	return e
}

// execute runs one program through the backend, on a fresh fixture whose
// runner denies [deniedTool].
func (e *env) execute(t *testing.T, language, code string, limits toolcode.Limits) (*toolcode.Result, error) {
	t.Helper()
	return e.executeIn(t, e.rt, language, code, limits)
}

// runtimeFor returns the runtime of an attempt: the suite's, or one with
// the attempt's own sandbox limits.
func (e *env) runtimeFor(t *testing.T, a attempt) *toolruntime.Runtime {
	t.Helper()
	if a.sandbox == nil {
		return e.rt
	}
	rt, err := toolruntime.New(toolruntime.WithBackend(toolruntime.Dev, e.backend), toolruntime.WithLimits(*a.sandbox))
	require.NoError(t, err)
	return rt
}

// executeIn runs one program through rt, on a fresh fixture whose runner
// denies [deniedTool].
func (e *env) executeIn(t *testing.T, rt *toolruntime.Runtime, language, code string, limits toolcode.Limits) (*toolcode.Result, error) {
	t.Helper()
	f := toolcodetest.NewFixture(t, toolrun.WithAuthorization(toolrun.AllowDeny{Deny: []string{deniedTool}}))
	engine, err := rt.Engine(toolruntime.Dev, language)
	require.NoError(t, err)
	x := toolcode.New(f.Ops, toolcode.WithEngine(engine))
	return x.Execute(context.Background(), toolcode.ExecuteParams{Language: language, Code: code, Limits: limits, Timeout: limits.WallTime})
}

// guard runs one attempt between a snapshot of the goroutines and child
// processes and the check that nothing was left running; it returns how
// many connections the listener accepted meanwhile.
func (e *env) guard(t *testing.T, f func()) int64 {
	t.Helper()
	_ = os.Remove(e.writeTo)
	goroutines := goleak.IgnoreCurrent()
	before := children()
	accepted := e.accepted.Load()
	f()
	if e.pooled {
		// The backend's own instances come and go: Close checks them.
		checkNoProcesses(t, nil, e.token)
	} else {
		checkNoProcesses(t, before, e.token)
		goleak.VerifyNone(t, goroutines)
	}
	return e.accepted.Load() - accepted
}

func (e *env) runJS(t *testing.T, report *Report, a attempt) {
	var (
		res *toolcode.Result
		err error
	)
	limits := a.limits
	if a.jsLimits != (toolcode.Limits{}) {
		limits = a.jsLimits
	}
	accepted := e.guard(t, func() { res, err = e.executeIn(t, e.runtimeFor(t, a), "javascript", a.js, limits) })
	row := Row{Attempt: a.name, Way: "javascript", Property: a.property}
	defer func() { report.add(row) }()
	if err == nil {
		t.Errorf("%s: the engine let the program through: it returned %s", a.name, valueOf(res))
		row.Outcome, row.Detail = Escaped, "the program returned "+valueOf(res)
		return
	}
	code := errors.CodeOf(err)
	assert.Contains(t, a.jsCodes, code, "error: %v", err)
	if a.jsLimit != "" {
		assert.Equal(t, a.jsLimit, toolcode.LimitOf(err), "error: %v", err)
	}
	assert.Zero(t, accepted, "the listener accepted a connection")
	assert.NoFileExists(t, e.writeTo, "a file was written outside the sandbox")
	row.Outcome, row.Detail = BlockedByEngine, fmt.Sprintf("%s: %s", code, firstLine(err))
	if a.jsLimit != "" || code == errors.NotFound {
		row.Outcome = BlockedByGateway
		if a.jsLimit == toolcode.LimitWallTime || a.jsLimit == toolcode.LimitStack {
			row.Outcome = BlockedByEngine
		}
	}
}

func (e *env) runProbe(t *testing.T, report *Report, a attempt) {
	row := Row{Attempt: a.name, Way: "probe", Property: a.property}
	defer func() { report.add(row) }()
	claim, claimed := e.claims.Get(a.property)
	claimed = claimed && claim.Enforced()
	gatewayJudged := a.property == "" && len(a.probeCodes) > 0
	if a.harmful && e.inProcess && !claimed {
		row.Outcome, row.Detail = NotRun, "the probe would run in the test's own process"
		return
	}
	var (
		res *toolcode.Result
		err error
	)
	accepted := e.guard(t, func() { res, err = e.executeIn(t, e.runtimeFor(t, a), probe.Language, a.probe, a.limits) })
	if err != nil {
		code := errors.CodeOf(err)
		row.Detail = fmt.Sprintf("%s: %s", code, firstLine(err))
		switch {
		case gatewayJudged:
			row.Outcome = BlockedByGateway
		case claimed:
			row.Outcome = BlockedByBackend
			row.Detail = claim.By + "; " + row.Detail
		default:
			row.Outcome = BlockedUnclaimed
		}
		if claimed || gatewayJudged {
			if len(a.probeCodes) > 0 {
				assert.Contains(t, a.probeCodes, code, "error: %v", err)
			}
			if a.probeLimit != "" {
				assert.Equal(t, a.probeLimit, toolcode.LimitOf(err), "error: %v", err)
			}
		}
		return
	}
	var o probe.Outcome
	row.Outcome, row.Detail = BlockedUnclaimed, "malformed probe value"
	require.NoError(t, json.Unmarshal(res.Value, &o), "probe value %s", res.Value)
	escaped, detail := a.escaped(e, o)
	if a.property == toolruntime.IsolateNetwork && accepted > 0 {
		escaped, detail = true, fmt.Sprintf("the listener accepted %d connection(s)", accepted)
	}
	row.Detail = detail
	switch {
	case escaped && (claimed || gatewayJudged):
		row.Outcome = Escaped
		t.Errorf("%s: the probe got through although %s: %s", a.name, claimedBy(a.property, claim), detail)
	case escaped:
		row.Outcome = NotBlocked
	case claimed:
		row.Outcome, row.Detail = BlockedByBackend, claim.By+"; "+detail
	default:
		row.Outcome = BlockedUnclaimed
	}
}

func claimedBy(property string, claim toolcode.Enforcement) string {
	if property == "" {
		return "the gateway must stop it"
	}
	return fmt.Sprintf("the backend claims %s (by %s)", property, claim.By)
}

func valueOf(res *toolcode.Result) string {
	if res == nil {
		return "nothing"
	}
	return string(res.Value)
}

func firstLine(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}
