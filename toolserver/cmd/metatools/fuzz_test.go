package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolserver/config"
)

// FuzzReadArguments reads arbitrary text as a call's arguments, given on
// the command line and on standard input: both read the same, a failure is
// a usage error, and what reads is a JSON object that survives a round
// trip.
func FuzzReadArguments(f *testing.F) {
	for _, seed := range []string{`{"expression": "1 + 2"}`, `{"a": [1, {"b": null}], "c": "é\u0000"}`, `null`, `[]`, `"x"`, `{`, ` {} `, `{"a":1} {"b":2}`, ""} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		if strings.HasPrefix(spec, "@") || spec == "-" {
			// A file name or standard input, not arguments.
			return
		}
		fromLine, lineErr := (&env{}).readArguments(spec)
		fromStdin, stdinErr := (&env{stdin: strings.NewReader(spec)}).readArguments("-")
		require.Equal(t, lineErr == nil, stdinErr == nil, "line: %v, stdin: %v", lineErr, stdinErr)
		if lineErr != nil {
			assert.True(t, isUsage(lineErr), "%v", lineErr)
			assert.True(t, isUsage(stdinErr), "%v", stdinErr)
			return
		}
		assert.Equal(t, fromLine, fromStdin)
		raw, err := json.Marshal(fromLine)
		require.NoError(t, err)
		again, err := (&env{}).readArguments(string(raw))
		require.NoError(t, err)
		assert.Equal(t, fromLine, again)
	})
}

// FuzzReadTools reads arbitrary files as JSON Lines catalogues, as
// `metatools stats --tools` does: a failure names the file, and each tool
// read encodes to JSON that decodes to the same tool.
func FuzzReadTools(f *testing.F) {
	f.Add([]byte(`{"name":"echo","namespace":"demo","description":"Echo a message.","inputSchema":{"type":"object","properties":{"message":{"type":"string"}}}}` + "\n\n" +
		`{"name":"add","inputSchema":{"type":"object"},"tags":["math"]}`))
	f.Add([]byte(`{"name":"bad name","inputSchema":{"type":"object"}}`))
	f.Add([]byte("  \n\t\n"))
	f.Add([]byte(`{"name":"x","inputSchema":{"type":"string"}}`))
	f.Add([]byte("{\"name\":\"x\",\"inputSchema\":{\"type\":\"object\"}}\r\n\xff"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "tools.jsonl")
		require.NoError(t, os.WriteFile(path, data, 0o600))
		tools, err := readTools(path)
		if err != nil {
			assert.Contains(t, err.Error(), path)
			return
		}
		lines := 0
		for line := range bytes.Lines(data) {
			if len(bytes.TrimSpace(line)) > 0 {
				lines++
			}
		}
		require.Len(t, tools, lines)
		for _, tool := range tools {
			raw, err := json.Marshal(tool)
			require.NoError(t, err)
			again, err := toolmodel.DecodeTool(raw)
			require.NoError(t, err, "%s", raw)
			again2, err := json.Marshal(again)
			require.NoError(t, err)
			assert.JSONEq(t, string(raw), string(again2))
		}
	})
}

// FuzzConfigImport imports arbitrary files as an MCP host's configuration
// with `metatools config import`: the command fails as a usage error or
// writes a configuration; a host file that metatools would also run as it
// is (config.ParseHostConfig accepts it) imports to a configuration that
// `metatools config validate` accepts. (An import keeps references to
// environment variables and is to be completed, so other imports may need
// editing before they validate.)
func FuzzConfigImport(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"fs": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp"], "env": {"K": "v"}}}}`))
	f.Add([]byte(`{"servers": {"web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}}}}`))
	f.Add([]byte(`{"mcpServers": {"Brave Search": {"command": "b"}, "off": {"command": "o", "disabled": true}}}`))
	f.Add([]byte(`{"mcpServers": {"": {"command": ""}, "a b": {"url": "ftp://x"}}}`))
	f.Add([]byte(`{"mcpServers": []}`))
	f.Add([]byte(`mcpServers: {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		dir := t.TempDir()
		host := filepath.Join(dir, "host.json")
		require.NoError(t, os.WriteFile(host, data, 0o600))
		code, stdout, stderr := cli(t, "", "config", "import", host)
		if code != exitOK {
			require.Equal(t, exitUsage, code, stderr)
			return
		}
		if _, err := config.ParseHostConfig(data); err != nil {
			return
		}
		imported := filepath.Join(dir, "metatools.yaml")
		require.NoError(t, os.WriteFile(imported, []byte(stdout), 0o600))
		code, _, stderr = cli(t, "", "config", "validate", imported)
		assert.Equal(t, exitOK, code, "the imported configuration does not validate: %s\n%s", stderr, stdout)
	})
}

// FuzzParse parses arbitrary command lines (arguments separated by NUL)
// as the commands do: it never panics, a failure is a usage error or a
// request for help, and what comes back is the positional arguments, in
// order, each one of the command line's.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{"a\x00--s\x00v\x00b", "a\x00--\x00-s", "-h", "--help\x00x", "--n=3\x00--b", "--n\x00x", "-", "--\x00--", "--s", "-b=maybe"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		args := strings.Split(line, "\x00")
		fs := flag.NewFlagSet("x", flag.ContinueOnError)
		fs.String("s", "", "")
		fs.Bool("b", false, "")
		fs.Int("n", 0, "")
		got, err := parse(fs, args)
		if err != nil {
			var help helpRequest
			assert.True(t, isUsage(err) || errors.As(err, &help), "%v", err)
			return
		}
		i := 0
		for _, p := range got {
			for i < len(args) && args[i] != p {
				i++
			}
			require.Less(t, i, len(args), "positional %q is not one of the arguments, in order", p)
			i++
		}
	})
}
