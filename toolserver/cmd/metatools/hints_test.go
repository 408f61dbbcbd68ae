package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// writeConfig writes a configuration file and returns its path.
func writeConfig(t *testing.T, content string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "metatools.yaml")
	require.NoError(t, os.WriteFile(path, []byte(content), 0o600))
	return path
}

// TestDidYouMean checks the hint that follows a mistyped command,
// subcommand or flag: the nearest known one, only when it is near.
func TestDidYouMean(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"command", []string{"serach", "time"}, `unknown command "serach" (did you mean "search"?)`, ""},
		{"command through help", []string{"help", "toolz"}, `unknown command "toolz" (did you mean "tools"?)`, ""},
		{"nothing near", []string{"frobnicate"}, `unknown command "frobnicate"` + "\n", "did you mean"},
		{"config subcommand", []string{"config", "valdate", "f.yaml"}, `unknown config subcommand "valdate" (did you mean "validate"?)`, ""},
		{"flag", []string{"search", "--namespce", "time", "zone"}, "search: unknown flag --namespce (did you mean --namespace?)", ""},
		{"flag with a value", []string{"run", "-backnd=x", "math:eval"}, "run: unknown flag --backnd (did you mean --backend?)", ""},
		{"flag nothing is near", []string{"tools", "--frobnicate"}, "tools: unknown flag --frobnicate\n", "did you mean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tt.args...)
			assert.Equal(t, exitUsage, code)
			assert.Contains(t, stderr, tt.want)
			if tt.not != "" {
				assert.NotContains(t, stderr, tt.not)
			}
		})
	}
}

// TestUnknownToolHints checks what describe and run say of a tool that
// is not in the catalogue: the offered IDs nearest to it, and never one
// the policy refuses.
func TestUnknownToolHints(t *testing.T) {
	deny := writeConfig(t, "policy: {deny: [\"math:*\"]}\n")
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"describe", []string{"describe", "math:evl"}, `metatools: no tool "math:evl"; did you mean math:eval? [not_found]`, ""},
		{"run", []string{"run", "math:evl", `{"expression": "1"}`}, `metatools: no tool "math:evl"; did you mean math:eval? [not_found]`, ""},
		{"a name without its namespace", []string{"describe", "eval"}, `no tool "eval"; did you mean math:eval?`, ""},
		{"several near", []string{"describe", "time:nw"}, `did you mean time:now?`, ""},
		{"nothing near", []string{"run", "nope:nope"}, `metatools: no tool "nope:nope"; "metatools search WORDS" finds tools by what they do [not_found]`, "did you mean"},
		{"a denied tool is not suggested", []string{"describe", "--config", deny, "math:evl"}, `no tool "math:evl"`, "math:eval"},
		{"a denied tool is not suggested to run", []string{"run", "--config", deny, "math:evl"}, `no tool "math:evl"`, "math:eval"},
		{"nor by name", []string{"describe", "--config", deny, "eval"}, `no tool "eval"`, "math:"},
		{"the fetch tool without hosts", []string{"run", "http:fetch", `{"url": "https://example.com/"}`},
			`metatools: no tool "http:fetch"; it is served once builtin.httpAllow in the configuration names the hosts it may reach [not_found]`, "search WORDS"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tt.args...)
			assert.Equal(t, exitFailure, code)
			assert.Contains(t, stderr, tt.want)
			if tt.not != "" {
				assert.NotContains(t, stderr, tt.not)
			}
			assert.NotContains(t, stderr, "search_tools", "a terminal has search, not the meta-tool")
		})
	}
}

// TestBackendFlag checks that run refuses a --backend that is none of
// the tool's, naming those it has, and runs on one that is.
func TestBackendFlag(t *testing.T) {
	code, _, stderr := cli(t, "", "run", "--backend", "mcp:github", "math:eval", `{"expression": "1+1"}`)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `--backend "mcp:github" is not a backend of math:eval; its backends are local:builtin.math:eval`)

	code, _, stderr = cli(t, "", "run", "--backend", "local:builtin.math:evl", "math:eval", `{"expression": "1+1"}`)
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `(did you mean "local:builtin.math:eval"?)`)

	code, stdout, stderr := cli(t, "", "run", "--backend", "local:builtin.math:eval", "math:eval", `{"expression": "1+1"}`)
	require.Equal(t, exitOK, code, stderr)
	assert.JSONEq(t, `{"value": 2}`, stdout)

	// A tool the policy refuses keeps its backends to itself; the run
	// answers for it as for an unknown tool.
	deny := writeConfig(t, "policy: {deny: [\"math:*\"]}\n")
	code, _, stderr = cli(t, "", "run", "--config", deny, "--backend", "x", "math:eval", `{"expression": "1+1"}`)
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `no tool "math:eval"`)
	assert.Contains(t, stderr, "[not_found]")
	assert.NotContains(t, stderr, "local:builtin")

	// An unknown tool is reported as such, with its hint.
	code, _, stderr = cli(t, "", "run", "--backend", "x", "math:evl")
	assert.Equal(t, exitFailure, code)
	assert.Contains(t, stderr, `no tool "math:evl"; did you mean math:eval?`)
}

// TestNamespaceFlag checks that search and tools answer for a namespace
// the catalogue does not offer as the operations do, naming those it
// offers, and only those the policy lets through.
func TestNamespaceFlag(t *testing.T) {
	deny := writeConfig(t, "policy: {deny: [\"math:*\"]}\n")
	tests := []struct {
		name string
		args []string
		want string
		not  string
	}{
		{"tools", []string{"tools", "--namespace", "tme"}, `metatools: no namespace "tme"; list the namespaces to see those there are; did you mean "time"? the namespaces are json, math, text, time [not_found]`, ""},
		{"search", []string{"search", "--namespace", "nope", "time"}, `no namespace "nope"; list the namespaces to see those there are; the namespaces are json, math, text, time [not_found]`, "did you mean"},
		{"a denied namespace is none", []string{"tools", "--config", deny, "--namespace", "math"}, `no namespace "math"; list the namespaces to see those there are; the namespaces are json, text, time [not_found]`, ""},
		{"nor suggested", []string{"tools", "--config", deny, "--namespace", "mat"}, `no namespace "mat"; list the namespaces to see those there are; the namespaces are json, text, time [not_found]`, "math"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", tt.args...)
			assert.Equal(t, exitFailure, code)
			assert.Contains(t, stderr, tt.want)
			assert.NotContains(t, stdout, "0 tools")
			if tt.not != "" {
				assert.NotContains(t, stderr, tt.not)
			}
		})
	}

	code, stdout, stderr := cli(t, "", "tools", "--namespace", "time")
	require.Equal(t, exitOK, code, stderr)
	assert.Contains(t, stdout, "time:now")
}

// TestUpstreamFailureIsPrintedOnce runs the one-shot commands against a
// configuration whose upstream cannot start: its failure is printed once,
// and what depends on it points there.
func TestUpstreamFailureIsPrintedOnce(t *testing.T) {
	cfg := writeConfig(t, `
limits: {connectTimeout: 5s}
mcpServers:
  - name: broken
    command: /nonexistent/mcp-server
`)
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"tools", []string{"tools", "--config", cfg}, exitOK, ""},
		{"search", []string{"search", "--config", cfg, "time"}, exitOK, ""},
		{"tools of its namespace", []string{"tools", "--config", cfg, "--namespace", "broken"}, exitFailure,
			`metatools: no namespace "broken"; list the namespaces to see those there are; its upstream "broken" failed to connect (see above) [not_found]`},
		{"run one of its tools", []string{"run", "--config", cfg, "broken:read"}, exitFailure,
			`metatools: no tool "broken:read"; upstream "broken", whose namespace it names, failed to connect (see above) [not_found]`},
		{"describe one of its tools", []string{"describe", "--config", cfg, "broken:read"}, exitFailure,
			`upstream "broken", whose namespace it names, failed to connect (see above)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, "", tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			assert.Equal(t, 1, strings.Count(stderr, "/nonexistent/mcp-server"), "the failure is printed once:\n%s", stderr)
			assert.Contains(t, stderr, `FAILED mcp broken: connect to MCP server "broken": cannot start /nonexistent/mcp-server: no such file or directory (skipped)`)
			assert.NotContains(t, stderr, "level=WARN", "the progress line says it")
			assert.NotContains(t, stderr, "mcpexec.", "no Go operation names")
			assert.Contains(t, stderr, tt.want)
		})
	}
}

// TestDeniedUpstreamFailureIsNotTold checks that the answers for a
// namespace or a tool of an upstream the policy denies do not point to its
// failure: they read as those of a namespace or a tool that is not there.
func TestDeniedUpstreamFailureIsNotTold(t *testing.T) {
	cfg := writeConfig(t, `
policy: {deny: ["broken:*"]}
limits: {connectTimeout: 5s}
mcpServers:
  - name: broken
    command: /nonexistent/mcp-server
`)
	for _, args := range [][]string{
		{"tools", "--config", cfg, "--namespace", "broken"},
		{"run", "--config", cfg, "broken:read"},
		{"describe", "--config", cfg, "broken:read"},
	} {
		code, _, stderr := cli(t, "", args...)
		assert.Equal(t, exitFailure, code, args)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		answer := lines[len(lines)-1]
		assert.Contains(t, answer, "[not_found]", args)
		assert.NotContains(t, answer, "failed to connect", "%v: the failure of a denied upstream is not told", args)
	}
}

// TestErrorsReadAsSentences checks the words of the command's errors:
// no operation names of the library, the tool named once, the code kept.
func TestErrorsReadAsSentences(t *testing.T) {
	deny := writeConfig(t, "policy: {deny: [\"math:*\"]}\n")
	tests := []struct {
		name  string
		stdin string
		args  []string
		want  string
	}{
		{"the tool's failure", "", []string{"run", "math:eval", `{"expression": "1/0"}`},
			"metatools: math:eval failed: division by zero at offset 1 [execution]\n"},
		{"invalid arguments", "", []string{"run", "math:eval", `{"expr": "1"}`},
			"metatools: math:eval: invalid arguments: /expression: required property is missing; /expr: property is not allowed (allowed: expression, variables) [validation]\n"},
		{"refused by the policy, as an unknown tool", "", []string{"run", "--config", deny, "math:eval", `{"expression": "1"}`},
			"metatools: no tool \"math:eval\"; \"metatools search WORDS\" finds tools by what they do [not_found]\n"},
		{"a program's limit", "while (true) {}", []string{"exec", "--profile", "dev", "--timeout", "10ms", "-"},
			"metatools: wall_time limit reached (10ms) [timeout]\n"},
		{"a program calling an unknown tool", "await tools.nope.x({})", []string{"exec", "--profile", "dev", "-"},
			"metatools: nope:x: no tool with this ID; search finds tools by what they do [not_found]\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := cli(t, tt.stdin, tt.args...)
			assert.Equal(t, exitFailure, code)
			assert.Equal(t, tt.want, stderr)
		})
	}
}

// TestErrorText words errors the way the command prints them.
func TestErrorText(t *testing.T) {
	inner := errors.Opf("mcpexec.Session", errors.Unavailable, "connect to MCP server %q: %w", "gh",
		fmt.Errorf("fork/exec /opt/gh-mcp: %w", os.ErrNotExist))
	tests := []struct {
		name string
		err  error
		want string
	}{
		{"a plain error", errors.New("disk full"), "disk full"},
		{"a Go operation", errors.Opf("toolcode.Execute", errors.InvalidArgument, "code is empty"), "code is empty [invalid_argument]"},
		{"a stage worded", &errors.Error{Code: errors.Validation, Op: "validate_output", ToolID: "a:b", Err: errors.New("/x: wrong type")},
			"a:b: invalid result: /x: wrong type [validation]"},
		{"an operation of its own", errors.Opf("compile", errors.InvalidArgument, "syntax error"), "compile: syntax error [invalid_argument]"},
		{"no cause", &errors.Error{Code: errors.Timeout, Op: "execute", ToolID: "a:b"}, "a:b failed: timeout [timeout]"},
		{"nested, the tool named once", &errors.Error{Code: errors.Unavailable, Op: "execute", ToolID: "gh:issue", Backend: "mcp:gh", Err: inner},
			"gh:issue failed: connect to MCP server \"gh\": cannot start /opt/gh-mcp: file does not exist [unavailable]"},
		{"wrapped", fmt.Errorf("step 2: %w", errors.Opf("resolve", errors.NotFound, "no tool %q", "a:b")), "step 2: no tool \"a:b\" [not_found]"},
		{"joined", errors.Join(errors.Opf("toolindex.Register", errors.Conflict, "dup"), errors.New("other")), "dup\nother [conflict]"},
		{"a meta-tool", &errors.Error{Code: errors.NotFound, Op: "describe_tool", ToolID: "a:b", Err: errors.New("unknown")},
			"a:b: unknown [not_found]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, errorText(tt.err))
		})
	}
}
