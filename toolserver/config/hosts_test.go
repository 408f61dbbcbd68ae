package config_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

var update = flag.Bool("update", false, "rewrite the golden files of testdata/")

func TestHostConfigMapping(t *testing.T) {
	t.Setenv("HOSTS_TEST_TOKEN", "s3cret")
	tests := []struct {
		name string
		json string
		want []config.MCPServer
	}{
		{
			"claude desktop command",
			`{"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/tmp"], "env": {"DEBUG": "1"}}}}`,
			[]config.MCPServer{{Name: "filesystem", Command: "npx", Args: []string{"-y", "@modelcontextprotocol/server-filesystem", "/tmp"}, Env: map[string]string{"DEBUG": "1"}}},
		},
		{
			"url with headers",
			`{"mcpServers": {"tracker": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${HOSTS_TEST_TOKEN}"}}}}`,
			[]config.MCPServer{{Name: "tracker", URL: "https://mcp.example.com/mcp", Headers: map[string]string{"Authorization": "Bearer s3cret"}}},
		},
		{
			"file order is kept",
			`{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "mid": {"command": "m"}}}`,
			[]config.MCPServer{{Name: "zeta", Command: "z"}, {Name: "alpha", Command: "a"}, {Name: "mid", Command: "m"}},
		},
		{
			"vs code servers with type and cwd",
			`{"inputs": [], "servers": {"local": {"type": "stdio", "command": "node", "args": ["server.js"], "cwd": "/srv"}, "remote": {"type": "http", "url": "http://127.0.0.1:3001/mcp"}}}`,
			[]config.MCPServer{{Name: "local", Command: "node", Args: []string{"server.js"}, Dir: "/srv"}, {Name: "remote", URL: "http://127.0.0.1:3001/mcp"}},
		},
		{
			"vs code comments and trailing commas",
			"// workspace servers\n{\n  \"servers\": {\n    /* the tracker */\n    \"t\": {\"url\": \"https://x.example/mcp\", \"headers\": {\"A\": \"b//c\"},},\n  },\n}\n",
			[]config.MCPServer{{Name: "t", URL: "https://x.example/mcp", Headers: map[string]string{"A": "b//c"}}},
		},
		{
			"windsurf serverUrl and cline streamableHttp",
			`{"mcpServers": {"w": {"serverUrl": "https://w.example/mcp"}, "c": {"type": "streamableHttp", "url": "https://c.example/mcp"}}}`,
			[]config.MCPServer{{Name: "w", URL: "https://w.example/mcp"}, {Name: "c", URL: "https://c.example/mcp"}},
		},
		{
			"disabled entries are skipped, even broken ones",
			`{"mcpServers": {"on": {"command": "a", "disabled": false}, "off": {"command": "b", "disabled": true}, "gone": {"disabled": true, "bogus": 1}}}`,
			[]config.MCPServer{{Name: "on", Command: "a"}},
		},
		{
			"fields hosts add are ignored",
			`{"mcpServers": {"x": {"command": "a", "alwaysAllow": ["t"], "autoApprove": [], "timeout": 60, "description": "d", "transportType": "stdio"}}}`,
			[]config.MCPServer{{Name: "x", Command: "a"}},
		},
		{
			"keys are normalised into names",
			`{"mcpServers": {"Brave Search": {"command": "a"}, "@acme/notes": {"command": "b"}}}`,
			[]config.MCPServer{{Name: "Brave_Search", Command: "a"}, {Name: "acme_notes", Command: "b"}},
		},
		{
			"env numbers and booleans become text, env: variables expand",
			`{"mcpServers": {"x": {"command": "a", "env": {"PORT": 8080, "DEBUG": true, "TOKEN": "${env:HOSTS_TEST_TOKEN}", "PRICE": "$$5"}}}}`,
			[]config.MCPServer{{Name: "x", Command: "a", Env: map[string]string{"PORT": "8080", "DEBUG": "true", "TOKEN": "s3cret", "PRICE": "$5"}}},
		},
		{
			"both sections, other top-level keys ignored",
			`{"globalShortcut": "Ctrl+Space", "mcpServers": {"a": {"command": "a"}}, "servers": {"b": {"url": "http://h/mcp"}}}`,
			[]config.MCPServer{{Name: "a", Command: "a"}, {Name: "b", URL: "http://h/mcp"}},
		},
		{
			"null fields are absent",
			`{"mcpServers": {"a": {"command": "a", "args": null, "env": null}}}`,
			[]config.MCPServer{{Name: "a", Command: "a"}},
		},
		{"no servers", `{"mcpServers": {}}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			require.True(t, config.IsHostConfig([]byte(tt.json)))
			cfg, err := config.Parse([]byte(tt.json))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.MCPServers)
			assert.Equal(t, config.Config{MCPServers: tt.want}, *cfg, "every other setting keeps its default")
		})
	}
}

func TestHostConfigErrors(t *testing.T) {
	tests := []struct {
		name, json, want string
	}{
		{"sse", `{"servers": {"old": {"type": "sse", "url": "http://h/sse"}}}`, `servers "old": has type "sse": the older HTTP+SSE transport is not supported`},
		{"unknown type", `{"servers": {"x": {"type": "grpc", "url": "http://h"}}}`, `servers "x": type "grpc" is not stdio, http or sse`},
		{"unknown field", `{"mcpServers": {"gh": {"comand": "x"}}}`, `mcpServers "gh": unknown field "comand"`},
		{"envFile", `{"servers": {"x": {"command": "a", "envFile": ".env"}}}`, `servers "x": envFile is not supported`},
		{"neither", `{"mcpServers": {"x": {"args": []}}}`, `mcpServers "x": needs a command or a url`},
		{"both", `{"mcpServers": {"x": {"command": "a", "url": "http://h"}}}`, `mcpServers "x": has both a command and a url`},
		{"args on a url", `{"mcpServers": {"x": {"url": "http://h", "args": ["a"]}}}`, `args, env and cwd apply to a command only`},
		{"headers on a command", `{"mcpServers": {"x": {"command": "a", "headers": {"A": "b"}}}}`, `headers apply to a url only`},
		{"stdio with url", `{"servers": {"x": {"type": "stdio", "url": "http://h"}}}`, `has type "stdio" but a url`},
		{"http with command", `{"servers": {"x": {"type": "http", "command": "a"}}}`, `has type "http" but a command`},
		{"bad url", `{"mcpServers": {"x": {"url": "ftp://h"}}}`, `mcpServers "x": url "ftp://h" is not an http(s) URL`},
		{"entry not an object", `{"mcpServers": {"x": "npx server"}}`, `mcpServers "x": must be an object`},
		{"args not strings", `{"mcpServers": {"x": {"command": "a", "args": ["--port", 80]}}}`, `mcpServers "x": args must be a list of strings`},
		{"env not strings", `{"mcpServers": {"x": {"command": "a", "env": {"A": ["b"]}}}}`, `mcpServers "x": env "A" must be a string`},
		{"disabled not a bool", `{"mcpServers": {"x": {"command": "a", "disabled": "yes"}}}`, `mcpServers "x": disabled must be true or false`},
		{"unset variable", `{"mcpServers": {"x": {"command": "a", "env": {"T": "${HOSTS_SURELY_UNSET}"}}}}`, `mcpServers "x": env T: environment variable HOSTS_SURELY_UNSET is not set`},
		{"host variable", `{"servers": {"x": {"command": "a", "env": {"T": "${input:token}"}}}}`, `${input:token} is a variable of an MCP host`},
		{"name of nothing", `{"mcpServers": {"日本": {"command": "a"}}}`, `mcpServers "日本": the name "" made of the key is not valid`},
		{"names collide", `{"mcpServers": {"my server": {"command": "a"}, "my_server": {"command": "b"}}}`, `mcpServers "my_server": its name "my_server" is already used by mcpServers "my server"`},
		{"key twice", `{"mcpServers": {"a": {"command": "a"}, "a": {"command": "b"}}}`, `server "a" is written twice`},
		{"open comment", "{\"mcpServers\": {} /* oops", `a /* comment is not closed`},
		{"servers not an object of objects in a host file", `{"mcpServers": {"a": {"command": "a"}}, "servers": [1]}`, `servers must be an object`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.ParseHostConfig([]byte(tt.json))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}

// TestHostDisabledToolsAreDenied checks that the tools a host's file
// disables become the policy's deny patterns, in their server's
// namespace, and that a name no tool can have is refused.
func TestHostDisabledToolsAreDenied(t *testing.T) {
	cfg, err := config.Parse([]byte(`{"mcpServers": {
		"fs": {"command": "a", "disabledTools": ["write_file", "move_file"]},
		"Brave Search": {"command": "b", "disabledTools": ["local"]},
		"off": {"command": "c", "disabled": true, "disabledTools": ["x"]}}}`))
	require.NoError(t, err)
	assert.Equal(t, []string{"fs:write_file", "fs:move_file", "Brave_Search:local"}, cfg.Policy.Deny)

	_, err = config.Parse([]byte(`{"mcpServers": {"fs": {"command": "a", "disabledTools": ["write file"]}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), `disabledTools: "write file" is not a tool's name`)
	_, err = config.Parse([]byte(`{"mcpServers": {"fs": {"command": "a", "disabledTools": "write_file"}}}`))
	require.Error(t, err)
	assert.Contains(t, err.Error(), "disabledTools must be")
}

func TestIsHostConfig(t *testing.T) {
	tests := []struct {
		name string
		data string
		want bool
	}{
		{"claude desktop", `{"mcpServers": {"a": {"command": "x"}}}`, true},
		{"vs code", `{"servers": {}}`, true},
		{"byte order mark", "\uFEFF{\"mcpServers\": {}}", true},
		{"metatools yaml", "mcpServers:\n  - {name: a, command: x}\n", false},
		{"metatools config written as JSON", `{"mcpServers": [{"name": "a", "command": "x"}]}`, false},
		{"json without servers", `{"search": {"limit": 3}}`, false},
		{"json array", `[{"mcpServers": {}}]`, false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, config.IsHostConfig([]byte(tt.data)))
		})
	}
}

func TestMetatoolsConfigWrittenAsJSONStillParses(t *testing.T) {
	cfg, err := config.Parse([]byte(`{"mcpServers": [{"name": "a", "command": "x"}], "search": {"limit": 3}}`))
	require.NoError(t, err)
	assert.Equal(t, "a", cfg.MCPServers[0].Name)
	assert.Equal(t, 3, cfg.Search.Limit)
}

func TestLoadHostConfig(t *testing.T) {
	path := filepath.Join(t.TempDir(), "claude_desktop_config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"a": {"command": "x"}}}`), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	assert.Equal(t, []config.MCPServer{{Name: "a", Command: "x"}}, cfg.MCPServers)

	require.NoError(t, os.WriteFile(path, []byte(`{"mcpServers": {"a": {}}}`), 0o600))
	_, err = config.Load(path)
	require.ErrorContains(t, err, path+`:1: mcpServers "a": needs a command or a url`)
}

func TestHostServerName(t *testing.T) {
	for key, want := range map[string]string{
		"github":          "github",
		"brave-search":    "brave-search",
		"Brave Search":    "Brave_Search",
		"@acme/notes":     "acme_notes",
		"  spaced  out  ": "spaced_out",
		"a__b":            "a__b",
		"é":               "",
	} {
		assert.Equal(t, want, config.HostServerName(key), "%q", key)
	}
}

// TestImportHostConfig compares the YAML that import renders with golden
// files; run with -update to rewrite them.
func TestImportHostConfig(t *testing.T) {
	inputs, err := filepath.Glob("testdata/import/*.json")
	require.NoError(t, err)
	require.NotEmpty(t, inputs)
	for _, in := range inputs {
		t.Run(filepath.Base(in), func(t *testing.T) {
			data, err := os.ReadFile(in)
			require.NoError(t, err)
			out, err := config.ImportHostConfig(data)
			require.NoError(t, err)
			golden := in[:len(in)-len(".json")] + ".golden.yaml"
			if *update {
				require.NoError(t, os.WriteFile(golden, out, 0o600))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), string(out))

			// The YAML parses to the configuration the host's file
			// parses to, once the variables it refers to are set.
			t.Setenv("GITHUB_TOKEN", "gh")
			t.Setenv("TRACKER_TOKEN", "tr")
			fromHost, err := config.ParseHostConfig(data)
			require.NoError(t, err)
			fromYAML, err := config.Parse(out)
			require.NoError(t, err)
			require.Len(t, fromYAML.MCPServers, len(fromHost.MCPServers))
			for i := range fromHost.MCPServers {
				assert.Equal(t, fromHost.MCPServers[i], fromYAML.MCPServers[i])
			}
			fromHost.MCPServers, fromYAML.MCPServers = nil, nil
			assert.Equal(t, fromHost, fromYAML, "every other setting keeps its default")
		})
	}
}

func TestImportKeepsVariableReferences(t *testing.T) {
	out, err := config.ImportHostConfig([]byte(`{"mcpServers": {"x": {"command": "a", "env": {"T": "${SURELY_UNSET_SECRET}"}}}}`))
	require.NoError(t, err, "import does not need the variables to be set")
	assert.Contains(t, string(out), "${SURELY_UNSET_SECRET}")
}

func FuzzParseHostConfig(f *testing.F) {
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x", "args": ["y"], "env": {"K": "v"}}}}`))
	f.Add([]byte(`{"servers": {"b": {"type": "http", "url": "http://h/mcp", "headers": {"A": "b"}}}}`))
	f.Add([]byte("{\"servers\": {\"c\": {\"command\": \"x\",}, /* c */},}"))
	f.Add([]byte(`{"mcpServers": {"Brave Search": {"command": "x", "disabled": true}, "d": {"serverUrl": "https://x"}}}`))
	f.Add([]byte(`{"mcpServers": {"e": {"command": "x", "env": {"N": 1, "B": true}}}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.ParseHostConfig(data)
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("error of code %s: %v", errors.CodeOf(err), err)
			}
			return
		}
		if cfg.Validate() != nil {
			t.Fatalf("ParseHostConfig accepted a configuration that Validate refuses")
		}
		// What parses imports, and the import parses to the same servers.
		out, err := config.ImportHostConfig(data)
		if err != nil {
			t.Fatalf("import of a file that parses: %v", err)
		}
		again, err := config.Parse(out)
		if err != nil {
			t.Fatalf("the imported YAML does not parse: %v\n%s", err, out)
		}
		if len(again.MCPServers) != len(cfg.MCPServers) {
			t.Fatalf("import kept %d servers of %d", len(again.MCPServers), len(cfg.MCPServers))
		}
	})
}
