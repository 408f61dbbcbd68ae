//go:build linux

package toolcodetest

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolops"
)

// Hostile is a JavaScript program written to take its host down, and the
// limits that may stop it: one of Limits must be the limit of the error
// the execution ends with (see [toolcode.LimitOf]).
type Hostile struct {
	Name   string
	Code   string
	Limits []string
}

// HostilePrograms returns the programs of the hostile suite: floods of
// tool calls and searches, strings and arrays grown past any reasonable
// size by built-ins and by the program's own code, a regular expression
// that backtracks for ever, and values nested a hundred thousand deep, stringified
// and returned.
func HostilePrograms() []Hostile {
	const deep = "let a = []; for (let i = 0; i < 1e5; i++) a = [a];\n"
	return []Hostile{
		{"tool call flood", "for (let i = 0; i < 2e7; i++) tools.math.add({a: 1, b: 2});", []string{toolcode.LimitToolCalls}},
		{"search flood", `for (;;) await tools.search("add numbers", 5);`, []string{toolcode.LimitToolCalls}},
		{"repeat through a computed name", `const r = "re" + "peat"; let s = "ab"[r](2 ** 29); for (;;) s = s[r](2);`, []string{toolcode.LimitAllocation, toolcode.LimitMemory}},
		{"string doubling", `let s = "x"; for (;;) s += s;`, []string{toolcode.LimitAllocation, toolcode.LimitMemory}},
		{"array growth", `const a = []; for (;;) a.push({n: a.length, s: "item " + a.length});`, []string{toolcode.LimitMemory, toolcode.LimitWallTime}},
		{"catastrophic regular expression", `/^(?=(a+)+$)/.test("a".repeat(40) + "b")`, []string{toolcode.LimitWallTime, toolcode.LimitMatchTime}},
		{"stringify a deep array", deep + "JSON.stringify(a).length", []string{toolcode.LimitStack, toolcode.LimitAllocation, toolcode.LimitMemory}},
		{"return a deep array", deep + "return a;", []string{toolcode.LimitStack, toolcode.LimitAllocation, toolcode.LimitMemory}},
	}
}

// HostileReport is what one hostile program did to the process that ran
// it (see [RunHostile]).
type HostileReport struct {
	Program string `json:"program"`
	// Code and Limit are those of the execution's error.
	Code  errors.Code `json:"code"`
	Limit string      `json:"limit"`
	Error string      `json:"error"`
	// Ended is how long the execution took, from the call of Execute to
	// its return.
	Ended time.Duration `json:"ended"`
	// Settled is how long it took until no goroutine of the engine was
	// left running, from the call of Execute (0 if some still ran when
	// the wait ended).
	Settled time.Duration `json:"settled"`
	// PeakGrowth is the growth of the process's peak resident size
	// (VmHWM) over its resident size before the execution, in bytes.
	PeakGrowth int64 `json:"peakGrowth"`
	// CPU is the processor time the process used, from the call of
	// Execute until the engine's goroutines were gone (or the wait ended).
	CPU time.Duration `json:"cpu"`
	// ChildCPU is the processor time of the child processes it started
	// and reaped meanwhile (a sandbox's).
	ChildCPU time.Duration `json:"childCpu"`
	// SearchWorst is the longest time one search of the catalogue, made
	// every 10 ms by another goroutine during the execution, took.
	SearchWorst time.Duration `json:"searchWorst"`
	Searches    int           `json:"searches"`
	// Killed says that the parent killed the process: past its memory
	// cap, or past its time.
	Killed string `json:"killed,omitempty"`
}

// HostileEnv is the environment variable by which [RunHostile] tells the
// test binary it starts again which program to run.
const HostileEnv = "TOOLCODETEST_HOSTILE"

// HostileConfig says how [RunHostile] runs each program.
type HostileConfig struct {
	// WallTime is the program's wall-time limit.
	WallTime time.Duration
	// Settle is how long, after the execution ended, the engine's
	// goroutines may take to end.
	Settle time.Duration
	// MemoryCap is the resident size past which the child process is
	// killed (so that an engine that does not bound memory cannot take
	// the machine down).
	MemoryCap int64
	// Engine names the engine's goroutines: a goroutine whose stack holds
	// one of these texts is the engine's (for example "dop251/goja").
	Engine []string
	// Language is the programs' language ("javascript").
	Language string
	// Also are limits any program may end with besides its own (a
	// sandbox's memory or CPU time).
	Also []string
	// Goroutines makes the wait for the engine's end also wait until
	// there are no more goroutines than before the execution: for a
	// backend whose goroutines share their markers with others' (a spare
	// instance). Off, a process-wide idle goroutine that a program
	// started (the timer of the regular expressions' match timeout) does
	// not count.
	Goroutines bool
}

// RunHostile runs every hostile program in a child process of the test
// binary, under a memory cap, and returns what each did. The test
// calling it must call [HostileChild] first thing, with a function that
// makes the executor to run the programs on: in the child, HostileChild
// runs the program, prints its report and returns true.
func RunHostile(t *testing.T, testName string, cfg HostileConfig) []HostileReport {
	t.Helper()
	var out []HostileReport
	for _, p := range HostilePrograms() {
		rep := runChild(t, testName, p.Name, cfg)
		out = append(out, rep)
	}
	return out
}

// SearchBound is how long a search of the catalogue may take while a
// hostile program runs.
const SearchBound = 100 * time.Millisecond

// CheckHostile asserts what the suite requires of each report: the
// program ended with one of its limits within the wall time plus bound,
// nothing of it was left running after settle, the process's peak grew by
// less than memory, and searches answered within [SearchBound]. Under the
// race detector, bound and SearchBound are four times as long.
func CheckHostile(t *testing.T, reports []HostileReport, cfg HostileConfig, bound time.Duration, memory int64) {
	t.Helper()
	bound *= raceSlowdown
	searchBound := SearchBound * raceSlowdown
	programs := map[string]Hostile{}
	for _, p := range HostilePrograms() {
		programs[p.Name] = p
	}
	for _, r := range reports {
		t.Run(r.Program, func(t *testing.T) {
			t.Logf("%s: limit %s (%s) in %v, settled %v, peak +%d MiB, CPU %v (children %v), searches %d (worst %v)",
				r.Program, r.Limit, r.Code, r.Ended.Round(time.Millisecond), r.Settled.Round(time.Millisecond),
				r.PeakGrowth>>20, r.CPU.Round(time.Millisecond), r.ChildCPU.Round(time.Millisecond), r.Searches, r.SearchWorst.Round(time.Microsecond))
			require.Empty(t, r.Killed, "the child process was killed")
			assert.Contains(t, append(programs[r.Program].Limits, cfg.Also...), r.Limit, "ended by %s: %s", r.Code, r.Error)
			assert.LessOrEqual(t, r.Ended, cfg.WallTime+bound, "ended late")
			assert.Positive(t, r.Settled, "the engine kept running after the execution ended")
			assert.LessOrEqual(t, r.Settled, cfg.WallTime+bound, "the engine stopped late")
			assert.Less(t, r.PeakGrowth, memory, "the process's memory grew too much")
			assert.Less(t, r.SearchWorst, searchBound, "a search took too long meanwhile")
		})
	}
}

func runChild(t *testing.T, testName, program string, cfg HostileConfig) HostileReport {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), cfg.WallTime+cfg.Settle+30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^"+testName+"$", "-test.count=1")
	cmd.Env = append(os.Environ(), HostileEnv+"="+program)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	require.NoError(t, cmd.Start())

	// The memory cap: the child's resident size, read every 10 ms.
	var killed string
	var mu sync.Mutex
	stopWatch := make(chan struct{})
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stopWatch:
				return
			case <-tick.C:
			}
			if rss := statusField(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid), "VmRSS"); rss > cfg.MemoryCap {
				mu.Lock()
				killed = fmt.Sprintf("resident size %d MiB past the cap of %d MiB", rss>>20, cfg.MemoryCap>>20)
				mu.Unlock()
				_ = cmd.Process.Kill()
				return
			}
		}
	}()
	var rep HostileReport
	found := false
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line, ok := strings.CutPrefix(sc.Text(), "HOSTILE-REPORT "); ok {
			require.NoError(t, json.Unmarshal([]byte(line), &rep))
			found = true
		}
	}
	_ = cmd.Wait()
	close(stopWatch)
	<-watched
	mu.Lock()
	defer mu.Unlock()
	if ctx.Err() != nil && killed == "" {
		killed = "still running after " + (cfg.WallTime + cfg.Settle + 30*time.Second).String()
	}
	if !found {
		rep = HostileReport{Program: program, Killed: killed}
		if killed == "" {
			rep.Killed = "no report: " + lastLines(stderr.String(), 5)
		}
	}
	return rep
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// HostileChild runs, in the child process [RunHostile] starts, the
// program it names on the executor newExecutor makes (with the fixture's
// operations, for the concurrent searches), prints the report and
// returns true; in any other process it returns false at once.
func HostileChild(t *testing.T, cfg HostileConfig, newExecutor func(t *testing.T, f *Fixture) *toolcode.Executor) bool {
	name := os.Getenv(HostileEnv)
	if name == "" {
		return false
	}
	var prog Hostile
	for _, p := range HostilePrograms() {
		if p.Name == name {
			prog = p
		}
	}
	require.NotEmpty(t, prog.Code, "no hostile program %q", name)
	f := NewFixture(t)
	rep := measure(cfg, f, newExecutor(t, f), prog)
	b, jerr := json.Marshal(rep)
	require.NoError(t, jerr)
	fmt.Printf("\nHOSTILE-REPORT %s\n", b)
	return true
}

// measure runs one hostile program on x and reports what it did to this
// process.
func measure(cfg HostileConfig, f *Fixture, x *toolcode.Executor, prog Hostile) HostileReport {

	// The goroutines before the program: those left afterwards are its.
	goroutines := runtime.NumGoroutine()

	// Concurrent searches, every 10 ms.
	var worst time.Duration
	searches := 0
	stop := make(chan struct{})
	searched := make(chan struct{})
	go func() {
		defer close(searched)
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-stop:
				return
			case <-tick.C:
			}
			begin := time.Now()
			_, err := f.Ops.Search(context.Background(), toolops.SearchRequest{Query: "add numbers", Limit: 5})
			if err == nil {
				worst = max(worst, time.Since(begin))
				searches++
			}
		}
	}()

	runtime.GC()
	rss := statusField("/proc/self/status", "VmRSS")
	hwm := statusField("/proc/self/status", "VmHWM")
	// The resident size, read every 5 ms: the peak of a process that
	// peaked higher before is not in VmHWM.
	var peak int64
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, statusField("/proc/self/status", "VmRSS"))
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	cpu0, child0 := cpuTime(syscall.RUSAGE_SELF), cpuTime(syscall.RUSAGE_CHILDREN)
	begin := time.Now()
	_, err := x.Execute(context.Background(), ExecuteParamsFor(cfg, prog.Code))
	ended := time.Since(begin)
	close(stop)
	<-searched
	<-sampled

	rep := HostileReport{Program: prog.Name, Ended: ended, SearchWorst: worst, Searches: searches,
		Code: errors.CodeOf(err), Limit: toolcode.LimitOf(err)}
	if err != nil {
		rep.Error = err.Error()
	}
	// Wait for the engine's goroutines to end, up to cfg.Settle.
	deadline := time.Now().Add(cfg.Settle)
	for {
		if (!cfg.Goroutines || runtime.NumGoroutine() <= goroutines) && !engineRunning(cfg.Engine) {
			rep.Settled = time.Since(begin)
			break
		}
		if time.Now().After(deadline) {
			break
		}
		runtime.Gosched()
		time.Sleep(5 * time.Millisecond) // polling for the end, not timing
	}
	rep.CPU = cpuTime(syscall.RUSAGE_SELF) - cpu0
	rep.ChildCPU = cpuTime(syscall.RUSAGE_CHILDREN) - child0
	rep.PeakGrowth = max(0, peak-rss)
	if h := statusField("/proc/self/status", "VmHWM"); h > hwm {
		rep.PeakGrowth = max(rep.PeakGrowth, h-rss)
	}
	return rep
}

// ExecuteParamsFor returns the request of a hostile program: its code, in
// cfg's language, under cfg's wall time.
func ExecuteParamsFor(cfg HostileConfig, code string) toolcode.ExecuteParams {
	return toolcode.ExecuteParams{Language: cfg.Language, Code: code, Limits: toolcode.Limits{WallTime: cfg.WallTime}}
}

// RunHostileInProcess runs every hostile program in this process, one
// after the other, on the executor newExecutor makes: for a backend whose
// own bound holds in any case (a WebAssembly module's memory cap), where
// a child process per program would cost more than it shows. The peak
// growth is then read from the resident size every 5 ms.
func RunHostileInProcess(t *testing.T, cfg HostileConfig, newExecutor func(t *testing.T, f *Fixture) *toolcode.Executor) []HostileReport {
	t.Helper()
	f := NewFixture(t)
	x := newExecutor(t, f)
	// A first execution pays what the first of a backend pays (a runtime
	// made, a module instantiated), so that the figures are the
	// programs'.
	_, err := x.Execute(context.Background(), toolcode.ExecuteParams{Language: cfg.Language, Code: "1", Limits: toolcode.Limits{WallTime: time.Minute}})
	require.NoError(t, err)
	var out []HostileReport
	for _, p := range HostilePrograms() {
		out = append(out, measure(cfg, f, x, p))
	}
	return out
}

// engineRunning reports whether a goroutine other than this one runs the
// engine's code.
func engineRunning(engine []string) bool {
	buf := make([]byte, 1<<20)
	for {
		n := runtime.Stack(buf, true)
		if n < len(buf) {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*len(buf))
	}
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "toolcodetest.engineRunning") {
			continue
		}
		for _, e := range engine {
			if strings.Contains(g, e) {
				return true
			}
		}
	}
	return false
}

// statusField reads a size in kB from a /proc status file, in bytes; 0
// when it cannot.
func statusField(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n << 10
		}
	}
	return 0
}

func cpuTime(who int) time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(who, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
