package main

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

// everyCommand is every command and subcommand of metatools, and whether
// it takes --json.
var everyCommand = []struct {
	name string
	json bool
}{
	{"serve", false},
	{"search", true},
	{"describe", true},
	{"run", true},
	{"tools", true},
	{"tools review", true},
	{"tools approve", true},
	{"exec", true},
	{"config", false},
	{"config validate", true},
	{"config import", false},
	{"config example", false},
	{"stats", true},
	{"version", true},
}

func TestEveryCommandIsDocumented(t *testing.T) {
	var names []string
	for _, c := range everyCommand {
		names = append(names, c.name)
	}
	var documented []string
	for name := range commandDocs {
		documented = append(documented, name)
	}
	assert.ElementsMatch(t, names, documented)
}

func TestEveryCommandPrintsItsOwnHelp(t *testing.T) {
	for _, c := range everyCommand {
		words := strings.Fields(c.name)
		forms := map[string][]string{
			"-h":     append(slices.Clone(words), "-h"),
			"--help": append(slices.Clone(words), "--help"),
			"-help":  append(slices.Clone(words), "-help"),
			"help":   append([]string{"help"}, words...),
			// Help wins over the rest of the command line, which is not run.
			"after arguments": append(slices.Clone(words), "x", "--json", "-h"),
		}
		if !c.json {
			forms["after arguments"] = append(slices.Clone(words), "x", "-h")
		}
		if c.name == "config" {
			delete(forms, "after arguments") // its first argument names the subcommand
		}
		for form, args := range forms {
			t.Run(c.name+" "+form, func(t *testing.T) {
				code, stdout, stderr := cli(t, "", args...)
				assert.Equal(t, exitOK, code, stderr)
				assert.Empty(t, stderr)
				assert.True(t, strings.HasPrefix(stdout, "Usage: metatools "+c.name), stdout)
				assert.Contains(t, stdout, commandDocs[c.name].summary)
				assert.Contains(t, stdout, "\nExample:\n  metatools "+c.name)
				assert.Equal(t, c.json, strings.Contains(stdout, "  -json\n"), "--json listed: %s", stdout)
				assert.NotContains(t, stdout, "Usage:\n  metatools serve", "its own usage, not the whole")
			})
		}
	}
}

func TestEveryCommandRefusesAnUnknownFlagWithItsUsage(t *testing.T) {
	for _, c := range everyCommand {
		t.Run(c.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", append(strings.Fields(c.name), "--no-such-flag")...)
			assert.Equal(t, exitUsage, code)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, c.name+": unknown flag --no-such-flag\n")
			assert.Contains(t, stderr, "Usage: metatools "+c.name)
			assert.Contains(t, stderr, `Run "metatools `+c.name+` -h" for more.`)
		})
	}
}

func TestTopLevelHelp(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"--help"}, {"-help"}, {"help"}, {"help", "help"}, {"help", "-h"}, {"-h", "-h"}, {"--help", "help"}} {
		code, stdout, stderr := cli(t, "", args...)
		assert.Equal(t, exitOK, code, args)
		assert.Empty(t, stderr)
		assert.Contains(t, stdout, "Usage:\n  metatools serve", args)
	}
	code, _, stderr := cli(t, "", "help", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown command "frobnicate"`)

	code, _, stderr = cli(t, "", "config", "frobnicate")
	assert.Equal(t, exitUsage, code)
	assert.Contains(t, stderr, `unknown config subcommand "frobnicate"`)
	assert.Contains(t, stderr, "Usage: metatools config SUBCOMMAND")
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"--version"}, {"-version"}, {"-v"}, {"version"}} {
		code, stdout, stderr := cli(t, "", args...)
		require.Equal(t, exitOK, code, stderr)
		assert.True(t, strings.HasPrefix(stdout, "metatools "+version()+" (go"), stdout)
	}
	code, stdout, stderr := cli(t, "", "version", "--json")
	require.Equal(t, exitOK, code, stderr)
	var v struct{ Version, Go string }
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	assert.Equal(t, version(), v.Version)
	assert.NotEmpty(t, v.Go)
}

// TestJSONOutputs runs every command that takes --json with it: its
// output is one JSON value.
func TestJSONOutputs(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.yaml")
	require.NoError(t, os.WriteFile(good, []byte("mcpServers: [{name: a, command: x}]\n"), 0o600))
	bad := filepath.Join(dir, "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("mcpServers: [{name: a}]\n"), 0o600))
	prog := filepath.Join(dir, "prog.js")
	require.NoError(t, os.WriteFile(prog, []byte(`return await tools.math.eval({expression: "6*7"})`), 0o600))
	failing := filepath.Join(dir, "failing.js")
	require.NoError(t, os.WriteFile(failing, []byte(`console.log("before"); throw new Error("no")`), 0o600))
	tests := []struct {
		args []string
		code int
		// want is a JSON document the output must hold (assert.Subset of
		// its top-level object), or "" for any JSON.
		want string
	}{
		{[]string{"search", "--json", "time"}, exitOK, ""},
		{[]string{"describe", "--json", "math:eval"}, exitOK, ""},
		{[]string{"run", "--json", "math:eval", `{"expression": "6*7"}`}, exitOK, `{"id": "math:eval", "result": {"value": 42}}`},
		{[]string{"run", "--json", "math:eval", `{"expression": "1/0"}`}, exitFailure, `{"id": "math:eval"}`},
		{[]string{"tools", "--json"}, exitOK, ""},
		{[]string{"exec", "--json", prog}, exitOK, `{"value": {"value": 42}}`},
		{[]string{"exec", "--json", failing}, exitFailure, `{"logs": ["before"]}`},
		{[]string{"stats", "--json"}, exitOK, ""},
		{[]string{"config", "validate", "--json", good}, exitOK, `{"valid": true, "mcpServers": 1, "openapi": 0, "grpc": 0, "builtin": true}`},
		{[]string{"config", "validate", bad, "--json"}, exitUsage, `{"valid": false}`},
		{[]string{"version", "--json"}, exitOK, ""},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args[:2], " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, "", tt.args...)
			assert.Equal(t, tt.code, code, stderr)
			var got any
			require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
			if tt.want == "" {
				return
			}
			var want map[string]any
			require.NoError(t, json.Unmarshal([]byte(tt.want), &want))
			obj, ok := got.(map[string]any)
			require.True(t, ok, stdout)
			for k, v := range want {
				assert.Equal(t, v, obj[k], k)
			}
		})
	}
}

func TestConfigValidateJSONNamesTheError(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "bad.yaml")
	require.NoError(t, os.WriteFile(bad, []byte("mcpServers: [{name: a}]\n"), 0o600))
	code, stdout, stderr := cli(t, "", "config", "validate", "--json", bad)
	assert.Equal(t, exitUsage, code)
	assert.Empty(t, stderr, "the error is in the JSON")
	var v validation
	require.NoError(t, json.Unmarshal([]byte(stdout), &v))
	assert.False(t, v.Valid)
	assert.Equal(t, bad, v.File)
	assert.Contains(t, v.Error, "bad.yaml:1: mcpServers[0]: needs a command")
	require.Len(t, v.Problems, 1)
	assert.Equal(t, 1, v.Problems[0].Line)
	assert.Equal(t, "mcpServers[0]", v.Problems[0].Path)
	assert.Nil(t, v.MCPServers)
}

func TestParse(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want []string
		set  string
	}{
		{"flags and arguments mixed", []string{"a", "--s", "v", "b"}, []string{"a", "b"}, "v"},
		{"after --, all positional", []string{"a", "--", "-s", "--x"}, []string{"a", "-s", "--x"}, ""},
		{"-- after a flag", []string{"--s=v", "--", "-b"}, []string{"-b"}, "v"},
		{"a lone -", []string{"-", "a"}, []string{"-", "a"}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			s := fs.String("s", "", "")
			got, err := parse(fs, tt.args)
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.set, *s)
		})
	}
}

// TestRunJSONReportsFailuresBeforeTheTool shows that `run --json` prints
// its JSON, with the error, also for a call that fails before the tool
// answers, and nothing on stderr.
func TestRunJSONReportsFailuresBeforeTheTool(t *testing.T) {
	tests := []struct {
		name, id, args string
		code           errors.Code
		message        string
	}{
		{"unknown tool", "math:nosuch", `{}`, errors.NotFound, "math:nosuch"},
		{"invalid arguments", "math:eval", `{}`, errors.Validation, "expression"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, stdout, stderr := cli(t, "", "run", "--json", tt.id, tt.args)
			assert.Equal(t, exitFailure, code)
			assert.Empty(t, stderr, "the error is in the JSON")
			var out runOutput
			require.NoError(t, json.Unmarshal([]byte(stdout), &out), stdout)
			assert.Equal(t, tt.id, out.ID)
			require.NotNil(t, out.Error, stdout)
			assert.Equal(t, tt.code, out.Error.Code)
			assert.Contains(t, out.Error.Message, tt.message)
		})
	}
}

// TestStatsRefusesALimitOutOfRange shows that stats checks --limit
// before it measures anything, as search does.
func TestStatsRefusesALimitOutOfRange(t *testing.T) {
	for _, limit := range []string{"0", "-3", "51"} {
		code, stdout, stderr := cli(t, "", "stats", "--limit", limit)
		assert.Equal(t, exitUsage, code, limit)
		assert.Empty(t, stdout, limit)
		assert.Contains(t, stderr, "--limit must be 1 to 50, got "+limit)
	}
}

// TestCommandLineMistakesAreUsageErrors shows that an argument or flag
// that cannot be right is refused before anything runs, with exit code 2
// and the command's synopsis.
func TestCommandLineMistakesAreUsageErrors(t *testing.T) {
	bad := filepath.Join(t.TempDir(), "tools.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte(`{"name": "ok", "inputSchema": {"type": "object"}}`+"\n"+`{"name": 5}`+"\n"), 0o600))
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"describe", "math:"}, `tool ID "math:": name: empty`},
		{[]string{"run", ":eval", "{}"}, `tool ID ":eval": namespace: empty`},
		{[]string{"exec", "--profile", "bogus", "-"}, `--profile: unknown security profile "bogus" (profiles: dev, standard, hardened)`},
		{[]string{"serve", "--http", ":99999"}, `--http: ":99999": port 99999 is past 65535`},
		{[]string{"serve", "--http", "8080"}, `--http: "8080" is not HOST:PORT or :PORT`},
		{[]string{"stats", "--tools", bad}, bad + ":2: "},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			code, stdout, stderr := cli(t, "", tt.args...)
			assert.Equal(t, exitUsage, code, stderr)
			assert.Empty(t, stdout)
			assert.Contains(t, stderr, tt.want)
			assert.Contains(t, stderr, "Usage: metatools "+tt.args[0])
		})
	}
}
