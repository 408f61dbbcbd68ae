package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver/config"
)

// cli runs the command line and returns its exit code and output.
func cli(t *testing.T, stdin string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestUsage(t *testing.T) {
	code, _, stderr := cli(t, "")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "Usage:")

	code, _, stderr = cli(t, "", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate"`)

	code, stdout, _ := cli(t, "", "help")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "metatools serve")

	code, _, stderr = cli(t, "", "search", "--limit", "x", "time")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `invalid value "x" for flag -limit`)

	code, stdout, _ = cli(t, "", "describe", "-h")
	assert.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "-level")
}

// TestSearchLeadsWithTheToolAsked asks the built-in catalogue what a
// newcomer asks first, the README's search among them, and expects the
// tool that answers it first.
func TestSearchLeadsWithTheToolAsked(t *testing.T) {
	tests := []struct{ query, first string }{
		{"what time is it in Tokyo", "time:now"},
		{"what date is 90 days from now", "time:add"},
		{"convert 9am in Paris to Tokyo time", "time:convert"},
		{"how many days until Christmas", "time:diff"},
		{"how old am I if I was born in 1985", "time:diff"},
		{"what is 2 to the power of 10", "math:eval"},
		{"extract a field from a JSON document", "json:query"},
		{"what time is 3pm London in Sydney", "time:convert"},
		{"how long ago was 2001-09-11", "time:diff"},
		{"what day of the week will it be in 100 days", "time:add"},
		{"replace a word in a sentence", "text:replace"},
		{"remove all digits from a string", "text:replace"},
		{"capitalize each word", "text:case"},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", "search", "--json", "--limit", "1", tc.query)
			require.Equal(t, exitOK, code, stderr)
			var found []struct{ ID string }
			require.NoError(t, json.Unmarshal([]byte(stdout), &found))
			require.Len(t, found, 1)
			assert.Equal(t, tc.first, found[0].ID)
		})
	}
}

func TestSearchWithoutMatchSaysWhatToDo(t *testing.T) {
	code, stdout, stderr := cli(t, "", "search", "quasar nebula")
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, "No tool matches. Try other words, or \"metatools tools\" to list them all.\n", stdout)
}

func TestSearchDescribeRunTools(t *testing.T) {
	code, stdout, stderr := cli(t, "", "search", "evaluate", "an", "arithmetic", "expression")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, " 1. math:eval")

	code, stdout, _ = cli(t, "", "search", "--json", "--limit", "2", "time", "zone")
	require.Equal(t, exitOK, code)
	var found []struct{ ID string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &found))
	assert.Len(t, found, 2)

	code, stdout, _ = cli(t, "", "describe", "math:eval", "--level", "schema")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "math:eval")
	assert.Contains(t, stdout, "expression")

	code, stdout, _ = cli(t, "", "run", "math:eval", `{"expression": "6*7"}`)
	require.Equal(t, exitOK, code)
	assert.JSONEq(t, `{"value": 42}`, stdout)

	code, stdout, _ = cli(t, `{"expression": "1+1"}`, "run", "--json", "math:eval", "-")
	require.Equal(t, exitOK, code)
	var res struct {
		ID      string
		Backend string
		Result  map[string]any
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &res))
	assert.Equal(t, "math:eval", res.ID)
	assert.Equal(t, "local:builtin.math:eval", res.Backend)
	assert.InDelta(t, 2.0, res.Result["value"], 0)

	argsFile := filepath.Join(t.TempDir(), "args.json")
	require.NoError(t, os.WriteFile(argsFile, []byte(`{"text": "hello world"}`), 0o600))
	code, stdout, _ = cli(t, "", "run", "text:stats", "@"+argsFile)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, `"words": 2`)

	code, stdout, _ = cli(t, "", "tools")
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "math:eval")
	assert.Contains(t, stdout, "tools\n")
}

// TestPolicyHidesToolsAtTheTerminal checks that search, describe and
// tools show what an agent is offered: a tool the policy denies is
// neither found, nor described, nor listed.
func TestPolicyHidesToolsAtTheTerminal(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("policy: {deny: [\"math:*\"]}\n"), 0o600))

	code, stdout, stderr := cli(t, "", "search", "--config", cfg, "evaluate", "an", "arithmetic", "expression")
	require.Equal(t, exitOK, code, stderr)
	assert.NotContains(t, stdout, "math:")

	code, _, stderr = cli(t, "", "describe", "--config", cfg, "math:eval")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `no tool "math:eval"`)

	code, stdout, _ = cli(t, "", "tools", "--config", cfg)
	require.Equal(t, exitOK, code)
	assert.NotContains(t, stdout, "math:")
	assert.Contains(t, stdout, "time:now")

	code, _, stderr = cli(t, "", "search", "--limit", "-1", "time")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, "limit -1 is out of range: ask for 1 to 50 tools")
}

func TestRunFailures(t *testing.T) {
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"tool failure", []string{"run", "math:eval", `{"expression": "1/0"}`}, exitFailure, "division by zero"},
		{"invalid arguments", []string{"run", "math:eval", `{"expr": "1"}`}, exitFailure, "math:eval: invalid arguments: /expression: required property is missing"},
		{"unknown tool", []string{"run", "nope:nope"}, exitFailure, `no tool "nope:nope"`},
		{"arguments not JSON", []string{"run", "math:eval", `{`}, exitUsage, "the arguments are not JSON: unexpected end of JSON input"},
		{"arguments not an object", []string{"run", "math:eval", `[1, 2]`}, exitUsage, `the arguments must be a JSON object {...}, not "[1, 2]"`},
		{"no tool", []string{"run"}, exitUsage, "run needs a tool ID"},
		{"missing config", []string{"tools", "--config", "/nonexistent/metatools.yaml"}, exitUsage, "read config"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tt.args...)
			assert.Equal(t, tt.code, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
}

func TestConfigCommands(t *testing.T) {
	code, stdout, _ := cli(t, "", "config", "example")
	require.Equal(t, exitOK, code)
	assert.Equal(t, config.Example, stdout)

	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("mcpServers: [{name: a, command: x}]\n"), 0o600))
	code, stdout, _ = cli(t, "", "config", "validate", good)
	require.Equal(t, exitOK, code)
	assert.Contains(t, stdout, "valid (1 MCP servers, 0 OpenAPI documents, 0 gRPC services, built-in tools on)")

	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("mcpServers: [{name: a}]\n"), 0o600))
	code, _, stderr := cli(t, "", "config", "validate", bad)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "bad.yaml:1: mcpServers[0]: needs a command")
}

// TestConfigValidateChecksTheSandboxFile shows that config validate
// refuses, as serve does, a code mode that names a sandbox file missing
// for its profile, and only then.
func TestConfigValidateChecksTheSandboxFile(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "nope")
	tests := []struct {
		name, config, want string
	}{
		{"standard", "codeMode: {enabled: true, profile: standard, sandbox: {runner: " + missing + "}}\n", "codeMode.sandbox.runner: stat " + missing},
		{"hardened", "codeMode: {enabled: true, profile: hardened, sandbox: {wasmModule: " + missing + "}}\n", "codeMode.sandbox.wasmModule: stat " + missing},
		{"another profile's file", "codeMode: {enabled: true, profile: hardened, sandbox: {runner: " + missing + "}}\n", ""},
		{"code mode off", "codeMode: {enabled: false, profile: standard, sandbox: {runner: " + missing + "}}\n", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := writeConfig(t, tt.config)
			code, stdout, stderr := cli(t, "", "config", "validate", path)
			if tt.want == "" {
				assert.Equal(t, exitOK, code, stderr)
				assert.Contains(t, stdout, "valid")
				return
			}
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, path+": "+tt.want)

			code, stdout, _ = cli(t, "", "config", "validate", "--json", path)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stdout, `"valid": false`)
			assert.Contains(t, stdout, tt.want)
		})
	}
}

func TestFailingUpstreamIsSkipped(t *testing.T) {
	cfgPath := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(cfgPath, []byte(`
limits: {connectTimeout: 5s}
mcpServers:
  - name: broken
    command: /nonexistent/mcp-server
`), 0o600))
	code, stdout, stderr := cli(t, "", "tools", "--config", cfgPath)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "mcp broken")
	assert.Contains(t, stderr, "(skipped)")
	assert.Contains(t, stdout, "math:eval", "the built-in tools are still served")
}

func TestStats(t *testing.T) {
	code, stdout, stderr := cli(t, "", "stats", "--json", "--query", "time zone")
	require.Equal(t, exitOK, code, stderr)
	var cost struct {
		Tools   int
		Classic struct{ Bytes int }
		Meta    struct{ Bytes int }
		Ratio   float64
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &cost))
	assert.Positive(t, cost.Tools)
	assert.Positive(t, cost.Classic.Bytes)
	assert.InDelta(t, float64(cost.Meta.Bytes)/float64(cost.Classic.Bytes), cost.Ratio, 1e-9)
}

func TestStatsOfAToolsFile(t *testing.T) {
	dir := t.TempDir()
	var lines []string
	for i := range 40 {
		lines = append(lines, fmt.Sprintf(`{"name":"report_%d","namespace":"sales","description":"Build sales report number %d for a region and a quarter.","inputSchema":{"type":"object","properties":{"region":{"type":"string"},"quarter":{"type":"integer","minimum":1,"maximum":4}},"required":["region"]}}`, i, i))
		if i == 10 {
			lines = append(lines, "") // blank lines are skipped
		}
	}
	good := filepath.Join(dir, "tools.jsonl")
	require.NoError(t, os.WriteFile(good, []byte(strings.Join(lines, "\n")+"\n"), 0o600))

	code, stdout, stderr := cli(t, "", "stats", "--tools", good, "--query", "sales report region")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "Catalogue of 40 tools")
	assert.Regexp(t, `The meta-tool path costs \d+\.\d% of the classic listing\.`, stdout)

	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(lines[0]+"\n{\"name\":\"no schema\"}\n"), 0o600))
	code, _, stderr = cli(t, "", "stats", "--tools", bad)
	assert.NotEqual(t, exitOK, code)
	assert.Contains(t, stderr, "bad.jsonl:2:")

	code, _, stderr = cli(t, "", "stats", "--tools", filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "missing.jsonl")
}

func TestConfigImport(t *testing.T) {
	// The command prints exactly what the config package's golden file
	// holds for the same host file.
	in := filepath.Join("..", "..", "config", "testdata", "import", "claude_desktop.json")
	golden, err := os.ReadFile(filepath.Join("..", "..", "config", "testdata", "import", "claude_desktop.golden.yaml"))
	require.NoError(t, err)
	code, stdout, stderr := cli(t, "", "config", "import", in)
	require.Equal(t, exitOK, code, stderr)
	assert.Equal(t, string(golden), stdout)

	dir := t.TempDir()
	imported := filepath.Join(dir, "imported.yaml")
	require.NoError(t, os.WriteFile(imported, []byte(stdout), 0o600))
	t.Setenv("GITHUB_TOKEN", "gh")
	t.Setenv("TRACKER_TOKEN", "tr")
	code, stdout, stderr = cli(t, "", "config", "validate", imported)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "valid (4 MCP servers")

	tests := []struct {
		name, content, want string
	}{
		{"a metatools file", "mcpServers: [{name: a, command: x}]\n", "not the configuration file of an MCP host"},
		{"a bad entry", `{"mcpServers": {"a": {"type": "sse", "url": "http://h/sse"}}}`, `a_bad_entry:1: mcpServers "a": has type "sse"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "_"))
			require.NoError(t, os.WriteFile(path, []byte(tt.content), 0o600))
			code, _, stderr := cli(t, "", "config", "import", path)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, tt.want)
		})
	}
	code, _, stderr = cli(t, "", "config", "import")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "config import needs one file")
	code, _, stderr = cli(t, "", "config", "import", filepath.Join(dir, "missing.json"))
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, "read config")
}

func TestHostConfigIsReadAsItIs(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{
  "mcpServers": {
    "broken": {"command": "/nonexistent/mcp-server", "alwaysAllow": ["x"]},
    "off": {"command": "/nonexistent/other", "disabled": true}
  }
}`), 0o600))
	code, stdout, stderr := cli(t, "", "config", "validate", path)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "valid (1 MCP servers, 0 OpenAPI documents, 0 gRPC services, built-in tools on)")

	code, stdout, stderr = cli(t, "", "tools", "--config", path)
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stderr, "mcp broken", "the host's server is an upstream")
	assert.NotContains(t, stderr, "mcp off", "a disabled server is left out")
	assert.Contains(t, stdout, "math:eval")

	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"x": {"command": "a", "comand": "b"}}}`), 0o600))
	code, _, stderr = cli(t, "", "config", "validate", path)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `mcpServers "x": unknown field "comand"`)
}

func TestExec(t *testing.T) {
	dir := t.TempDir()
	ts := filepath.Join(dir, "prog.ts")
	require.NoError(t, os.WriteFile(ts, []byte(`const n: number = (await tools.math.eval({expression: "2^10"})).value; console.log("n", n); n + 1`), 0o600))
	cfg := filepath.Join(dir, "metatools.yaml")
	require.NoError(t, os.WriteFile(cfg, []byte("codeMode: {limits: {toolCalls: 1}}\n"), 0o600))

	tests := []struct {
		name           string
		stdin          string
		args           []string
		code           int
		stdout, stderr string
	}{
		{"typescript file", "", []string{"exec", "--trace", ts}, exitOK, "1025\n", "n 1024\n  call math:eval on local:builtin.math:eval: ok"},
		{"standard input", `return "hello"`, []string{"exec", "-"}, exitOK, "hello\n", ""},
		{"language flag", `const x: string = "typed"; x`, []string{"exec", "--language", "typescript", "-"}, exitOK, "typed\n", ""},
		{"syntax error", `return {`, []string{"exec", "-"}, exitFailure, "", "syntax error"},
		{"limit of the configuration", `await tools.time.now({}); await tools.time.now({})`, []string{"exec", "--config", cfg, "-"},
			exitFailure, "", "tool_calls limit reached (1)"},
		{"timeout", `while (true) {}`, []string{"exec", "--timeout", "20ms", "-"}, exitFailure, "", "wall_time"},
		{"no program", "", []string{"exec"}, exitUsage, "", "exec needs one program"},
		{"two programs", "", []string{"exec", "a", "b"}, exitUsage, "", "exec needs one program"},
		{"missing file", "", []string{"exec", filepath.Join(dir, "none.js")}, exitUsage, "", "read the program"},
		{"unknown language", "1", []string{"exec", "--language", "cobol", "-"}, exitUsage, "",
			`--language: unknown language "cobol" (accepted: javascript, typescript, js, ts)`},
		{"ts", `const x: string = "typed"; x`, []string{"exec", "--language", "ts", "-"}, exitOK, "typed\n", ""},
		{"js", `return 6 * 7`, []string{"exec", "--language", "js", "-"}, exitOK, "42\n", ""},
		{"negative timeout", "1", []string{"exec", "--timeout", "-1s", "-"}, exitUsage, "", "--timeout must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, tt.stdin, tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			if tt.stdout != "" {
				assert.Equal(t, tt.stdout, stdout)
			}
			assert.Contains(t, stderr, tt.stderr)
		})
	}
}
