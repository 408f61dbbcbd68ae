package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// codeModeConfig writes a configuration with code mode on and
// server-everything as an upstream.
func codeModeConfig(t *testing.T) string {
	t.Helper()
	return codeModeProfileConfig(t, "")
}

// codeModeProfileConfig is codeModeConfig with code mode under the
// security profile named (codeMode.profile; none when empty).
func codeModeProfileConfig(t *testing.T, profile string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	var profileLine string
	if profile != "" {
		profileLine = "  profile: " + profile + "\n"
	}
	cfg := fmt.Sprintf("codeMode:\n  enabled: true\n%smcpServers:\n  - name: everything\n    command: node\n    args: [%q, stdio]\n", profileLine, everythingServer(t))
	require.NoError(t, os.WriteFile(path, []byte(cfg), 0o600))
	return path
}

// codeModeHTTPReport is what testdata/codemode/http.mjs prints.
type codeModeHTTPReport struct {
	SessionID string `json:"sessionId"`
	Searches  []struct {
		Query      string   `json:"query"`
		IsError    bool     `json:"isError"`
		IDs        []string `json:"ids"`
		TypeScript string   `json:"typescript"`
		Text       string   `json:"text"`
	} `json:"searches"`
	Result struct {
		IsError    bool `json:"isError"`
		Structured struct {
			Value json.RawMessage `json:"value"`
			Logs  []string        `json:"logs"`
			Trace []struct {
				Tool string `json:"tool"`
				OK   bool   `json:"ok"`
			} `json:"trace"`
		} `json:"structured"`
		Text string `json:"text"`
		Meta struct {
			Isolation struct {
				Backend string `json:"backend"`
				Profile string `json:"profile"`
			} `json:"dev.metatools/isolation"`
		} `json:"meta"`
	} `json:"result"`
	Capped struct {
		IsError bool   `json:"isError"`
		Text    string `json:"text"`
		Meta    struct {
			Error struct {
				Message string `json:"message"`
				Data    struct {
					Code string            `json:"code"`
					Meta map[string]string `json:"meta"`
				} `json:"data"`
			} `json:"dev.metatools/error"`
			Trace []struct {
				Tool  string `json:"tool"`
				OK    bool   `json:"ok"`
				Error string `json:"error"`
			} `json:"dev.metatools/trace"`
		} `json:"meta"`
	} `json:"capped"`
}

// TestCodeModeOverStreamableHTTP is TestCodeModeThroughServe over
// streamable HTTP, the way a remote agent works: the official TypeScript
// SDK's StreamableHTTPClientTransport, with a bearer token, searches for
// the tools of a task, takes their declarations from the answers, and
// runs a TypeScript program making twelve concurrent calls (built-in
// tools and the tools of a real MCP upstream) through execute_code; then
// a program making more calls than the server's cap.
//
// It runs under each security profile: the result is the same, and the
// result's _meta says which backend ran the program.
func TestCodeModeOverStreamableHTTP(t *testing.T) {
	for _, p := range []struct{ profile, backend string }{
		{"dev", "inprocess"},
		{"standard", "process"},
	} {
		t.Run(p.profile, func(t *testing.T) { codeModeOverHTTP(t, p.profile, p.backend) })
	}
}

func codeModeOverHTTP(t *testing.T, profile, backend string) {
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	npmFile(t, "@modelcontextprotocol", "sdk", "dist", "esm", "client", "streamableHttp.js")
	program, err := filepath.Abs(filepath.Join("testdata", "codemode", "concurrent.ts"))
	require.NoError(t, err)
	cfg := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte(fmt.Sprintf("codeMode:\n  enabled: true\n  profile: %s\n  limits: {toolCalls: 12}\n"+
		"mcpServers:\n  - name: everything\n    command: node\n    args: [%q, stdio]\n", profile, everythingServer(t))), 0o600))
	const token = "code-mode-secret"
	endpoint := serveHTTP(t, []string{"METATOOLS_TOKEN=" + token}, "--config", cfg)

	cmd := exec.Command("node", filepath.Join("testdata", "codemode", "http.mjs"), modules, endpoint, token, program)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err)
	var r codeModeHTTPReport
	require.NoError(t, json.Unmarshal(out, &r), string(out))
	assert.NotEmpty(t, r.SessionID, "the client holds a streamable HTTP session")

	// Each search declares the tools it found, which the program calls.
	want := map[string]string{
		"sum of two numbers":         `"get-sum"(args: EverythingGetSumArgs)`,
		"evaluate a math expression": "eval(args: MathEvalArgs)",
		"change the case of a text":  "case(args: TextCaseArgs)",
	}
	require.Len(t, r.Searches, len(want))
	for _, s := range r.Searches {
		assert.False(t, s.IsError, s.Text)
		require.NotEmpty(t, s.IDs, s.Query)
		assert.Contains(t, s.TypeScript, want[s.Query], s.Query)
		assert.Contains(t, s.Text, s.TypeScript, "the text gives the declarations too")
		assert.True(t, strings.HasPrefix(s.Text, "Found, best first: "+s.IDs[0]), s.Text)
	}

	require.False(t, r.Result.IsError, r.Result.Text)
	assert.JSONEq(t, `{"sums":[3,7,11,15],"evals":[42,1024,9,12.5],"upper":"ALPHA BETA GAMMA DELTA"}`, string(r.Result.Structured.Value))
	assert.Equal(t, []string{"ran 12 calls"}, r.Result.Structured.Logs)
	calls := map[string]int{}
	for _, c := range r.Result.Structured.Trace {
		assert.True(t, c.OK, c.Tool)
		calls[c.Tool]++
	}
	assert.Equal(t, map[string]int{"everything:get-sum": 4, "math:eval": 4, "text:case": 4}, calls)
	assert.Contains(t, r.Result.Text, "12 tool calls, 0 failed")
	assert.Equal(t, backend, r.Result.Meta.Isolation.Backend)
	assert.Equal(t, profile, r.Result.Meta.Isolation.Profile)

	// Past the cap, the program fails with the limit named.
	assert.True(t, r.Capped.IsError, r.Capped.Text)
	assert.Equal(t, "resource_exhausted", r.Capped.Meta.Error.Data.Code, r.Capped.Text)
	assert.Equal(t, "tool_calls", r.Capped.Meta.Error.Data.Meta["limit"])
	assert.Contains(t, r.Capped.Meta.Error.Message, "12")
	assert.True(t, strings.HasPrefix(r.Capped.Text, "[resource_exhausted]"), r.Capped.Text)
	// The calls within the cap were made, and are in the trace: each one
	// ended, or was canceled when the program failed.
	require.Len(t, r.Capped.Meta.Trace, 12)
	for _, c := range r.Capped.Meta.Trace {
		assert.Equal(t, "math:eval", c.Tool)
		assert.True(t, c.OK || c.Error == "canceled", "%+v", c)
	}
}

// codeModeReport is what testdata/codemode/client.mjs prints.
type codeModeReport struct {
	ListBytes        int  `json:"listBytes"`
	ExecuteCodeBytes int  `json:"executeCodeBytes"`
	DescribeFormat   bool `json:"describeFormat"`
	Result           struct {
		IsError    bool `json:"isError"`
		Structured struct {
			Value json.RawMessage `json:"value"`
			Logs  []string        `json:"logs"`
			Trace []struct {
				Tool string `json:"tool"`
				OK   bool   `json:"ok"`
			} `json:"trace"`
		} `json:"structured"`
		Read struct{ Text, All int } `json:"read"`
	} `json:"result"`
	Declaration string `json:"declaration"`
	Failure     struct {
		IsError bool           `json:"isError"`
		Meta    map[string]any `json:"meta"`
	} `json:"failure"`
	RunToolRead   struct{ Text, All int } `json:"runToolRead"`
	RunToolErrors int                     `json:"runToolErrors"`
}

// wantSummary is the value of testdata/codemode/summary.ts.
const wantSummary = `{"found":true,"documented":"everything:get-sum","sums":[11,22,33,44,55],"bigEvals":[6,256]}`

// TestCodeModeThroughServe runs a TypeScript program that searches,
// describes and runs ten tools at once (built-in ones and those of a real
// MCP upstream) through execute_code, with the official TypeScript SDK's
// client talking to `metatools serve` over stdio; then the same ten calls
// through run_tool, to compare what each path makes the agent read.
func TestCodeModeThroughServe(t *testing.T) {
	modules, err := filepath.Abs(e2eModules)
	require.NoError(t, err)
	npmFile(t, "@modelcontextprotocol", "sdk", "dist", "esm", "client", "index.js")
	program, err := filepath.Abs(filepath.Join("testdata", "codemode", "summary.ts"))
	require.NoError(t, err)
	cmd := exec.Command("node", filepath.Join("testdata", "codemode", "client.mjs"), modules, metatoolsBinary(t), codeModeConfig(t), program)
	cmd.Stderr = &testWriter{t: t}
	out, err := cmd.Output()
	require.NoError(t, err)
	var r codeModeReport
	require.NoError(t, json.Unmarshal(out, &r), string(out))

	require.False(t, r.Result.IsError, "%+v", r.Result)
	assert.JSONEq(t, wantSummary, string(r.Result.Structured.Value))
	assert.Equal(t, []string{"ran 10 calls"}, r.Result.Structured.Logs)
	require.Len(t, r.Result.Structured.Trace, 10)
	tools := map[string]int{}
	for _, c := range r.Result.Structured.Trace {
		assert.True(t, c.OK, c.Tool)
		tools[c.Tool]++
	}
	assert.Equal(t, map[string]int{"everything:get-sum": 5, "math:eval": 5}, tools)

	assert.True(t, r.DescribeFormat)
	assert.Contains(t, r.Declaration, `"get-sum"(args: EverythingGetSumArgs)`)
	assert.True(t, r.Failure.IsError)
	assert.Contains(t, r.Failure.Meta, "dev.metatools/error")
	assert.Contains(t, r.Failure.Meta, "dev.metatools/trace")
	assert.Zero(t, r.RunToolErrors)

	codeRead := r.ExecuteCodeBytes + r.Result.Read.Text
	t.Logf("tools/list: %d bytes, of which execute_code %d", r.ListBytes, r.ExecuteCodeBytes)
	t.Logf("10 calls, code mode: execute_code definition %d + result %d (text; %d with structured content) = %d bytes",
		r.ExecuteCodeBytes, r.Result.Read.Text, r.Result.Read.All, codeRead)
	t.Logf("10 calls, meta-tools: 10 run_tool results %d bytes (text; %d with structured content)", r.RunToolRead.Text, r.RunToolRead.All)
}

// TestExecCommand runs the same program with `metatools exec`.
// TestExecProfiles runs one program under each security profile through
// `metatools exec`: the same value and the same calls, with the profile's
// backend and limits in --json's isolation.
func TestExecProfiles(t *testing.T) {
	program := filepath.Join("testdata", "codemode", "summary.ts")
	cfg := codeModeConfig(t)
	for _, p := range []struct {
		profile, backend string
		enforced         []string
	}{
		{"dev", "inprocess", []string{"wall_time", "tool_calls"}},
		{"standard", "process", []string{"wall_time", "cpu_time", "memory", "file_size", "no_host_environment", "tool_calls"}},
		{"hardened", "wasm", []string{"wall_time", "cpu_time", "memory", "processes", "file_size", "no_host_environment", "no_host_files", "no_network", "tool_calls"}},
	} {
		t.Run(p.profile, func(t *testing.T) {
			cmd := exec.Command(metatoolsBinary(t), "exec", "--config", cfg, "--profile", p.profile, "--json", program)
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			require.NoError(t, err, stderr.String())
			var res execOutput
			require.NoError(t, json.Unmarshal(out, &res), string(out))
			assert.JSONEq(t, wantSummary, string(res.Value))
			assert.Len(t, res.Trace, 10)
			require.NotNil(t, res.Isolation)
			assert.Equal(t, p.backend, res.Isolation.Backend)
			assert.Equal(t, p.profile, res.Isolation.Profile)
			enforced := map[string]bool{}
			for _, row := range res.Isolation.Enforced {
				enforced[row.Name] = row.Enforced()
			}
			for _, name := range p.enforced {
				assert.True(t, enforced[name], "%s enforced under %s", name, p.profile)
			}
		})
	}

	// A profile that does not exist is a usage error naming the profiles.
	code, _, stderr := cli(t, "", "exec", "--profile", "paranoid", "-")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--profile: unknown security profile "paranoid" (profiles: dev, standard, hardened)`)
}

// TestExecDefaultProfile shows the profile of a configuration that names
// none: standard where the runner is found (next to metatools), and dev
// with a warning saying why where it is not.
func TestExecDefaultProfile(t *testing.T) {
	run := func(t *testing.T, binary string, env []string) (execOutput, string) {
		cmd := exec.Command(binary, "exec", "--json", "-")
		cmd.Stdin = strings.NewReader("return 6 * 7")
		cmd.Env = append(os.Environ(), env...)
		var stderr strings.Builder
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, stderr.String())
		var res execOutput
		require.NoError(t, json.Unmarshal(out, &res), string(out))
		assert.JSONEq(t, "42", string(res.Value))
		require.NotNil(t, res.Isolation)
		return res, stderr.String()
	}

	t.Run("runner found", func(t *testing.T) {
		res, stderr := run(t, metatoolsBinary(t), nil)
		assert.Equal(t, "standard", res.Isolation.Profile)
		assert.Equal(t, "process", res.Isolation.Backend)
		assert.NotContains(t, stderr, "profile dev")
	})
	t.Run("no runner", func(t *testing.T) {
		alone := filepath.Join(t.TempDir(), "metatools")
		binary, err := os.ReadFile(metatoolsBinary(t))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(alone, binary, 0o700))
		res, stderr := run(t, alone, []string{"PATH=" + t.TempDir()})
		assert.Equal(t, "dev", res.Isolation.Profile)
		assert.Equal(t, "inprocess", res.Isolation.Backend)
		assert.Contains(t, stderr, "code mode runs programs in the server's process (profile dev)")
		assert.Contains(t, stderr, "toolruntime-runner is neither next to the metatools executable nor on the PATH", "the warning says why")
	})
}

func TestExecCommand(t *testing.T) {
	program := filepath.Join("testdata", "codemode", "summary.ts")
	cmd := exec.Command(metatoolsBinary(t), "exec", "--config", codeModeConfig(t), "--trace", program)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, stderr.String())
	assert.JSONEq(t, wantSummary, string(out))
	assert.Contains(t, stderr.String(), "ran 10 calls")
	assert.Equal(t, 5, strings.Count(stderr.String(), "call everything:get-sum on mcp:everything: ok"), stderr.String())
	assert.Equal(t, 5, strings.Count(stderr.String(), "call math:eval on local:builtin.math:eval: ok"), stderr.String())

	// A failed program exits 1, after its logs; --json says why.
	bad := filepath.Join(t.TempDir(), "bad.js")
	require.NoError(t, os.WriteFile(bad, []byte(`console.log("start"); await tools.math.eval({expression: "1/"})`), 0o600))
	cmd = exec.Command(metatoolsBinary(t), "exec", "--json", bad)
	out, err = cmd.Output()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit)
	assert.Equal(t, exitFailure, exit.ExitCode())
	var res execOutput
	require.NoError(t, json.Unmarshal(out, &res), string(out))
	require.NotNil(t, res.Error)
	assert.Equal(t, []string{"start"}, res.Logs)
	require.Len(t, res.Trace, 1)
	assert.False(t, res.Trace[0].OK)
}
