package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
	"github.com/metatools-go/metatools/toolserver/config"
)

// unsetenv unsets the variables for the test, restoring them after it.
func unsetenv(t *testing.T, names ...string) {
	t.Helper()
	for _, name := range names {
		t.Setenv(name, "")
		require.NoError(t, os.Unsetenv(name))
	}
}

// exampleVariables are the variables the example refers to.
var exampleVariables = []string{"METATOOLS_NAME", "METATOOLS_TOKEN", "TRACKER_TOKEN"}

// TestExampleAsPrinted checks that the example, as printed, is valid in
// an empty environment and speaks stdio: no HTTP address, no OAuth, no
// upstream to start or reach.
func TestExampleAsPrinted(t *testing.T) {
	unsetenv(t, exampleVariables...)
	cfg, err := config.Parse([]byte(config.Example))
	require.NoError(t, err)
	assert.Empty(t, cfg.Server.HTTP.Addr, "the example speaks stdio")
	assert.Nil(t, cfg.Server.HTTP.OAuth)
	assert.Empty(t, cfg.Server.HTTP.BearerTokens)
	assert.Equal(t, "metatools", cfg.Server.Name, "the default of ${METATOOLS_NAME:-metatools}")
	assert.Empty(t, cfg.MCPServers)
	assert.Empty(t, cfg.OpenAPI)
	assert.Empty(t, cfg.GRPC)
	assert.Equal(t, []string{"time:*"}, cfg.Server.Passthrough)

	t.Setenv("METATOOLS_NAME", "tools")
	cfg, err = config.Parse([]byte(config.Example))
	require.NoError(t, err)
	assert.Equal(t, "tools", cfg.Server.Name)
}

// settingLeftOff matches a line of the example holding a setting left
// off: "#" right before a key or a list item, prose being "# text".
var settingLeftOff = regexp.MustCompile(`(?m)^(\s*)#([^\s#])`)

// TestExampleParses checks the example with every setting it leaves off
// turned on, so that the settings it documents are all valid.
func TestExampleParses(t *testing.T) {
	t.Setenv("METATOOLS_TOKEN", "tok")
	t.Setenv("CI_TOKEN", "ci-tok")
	t.Setenv("TRACKER_TOKEN", "trk")
	t.Setenv("METATOOLS_STATE_KEY", strings.Repeat("s", 32))
	t.Setenv("METATOOLS_METRICS_TOKEN", "scrape")
	full := settingLeftOff.ReplaceAllString(config.Example, "$1$2")
	require.NotEqual(t, config.Example, full)
	cfg, err := config.Parse([]byte(full))
	require.NoError(t, err)
	assert.Equal(t, "127.0.0.1:8080", cfg.Server.HTTP.Addr)
	assert.Equal(t, config.BearerTokens{{Token: "tok"}, {Name: "ci", Token: "ci-tok"}}, cfg.Server.HTTP.BearerTokens)
	assert.Equal(t, strings.Repeat("s", 32), cfg.Server.StateKey)
	assert.Equal(t, config.Telemetry{Traces: "otlp", Metrics: "otlp", Audit: "/var/log/metatools/audit.jsonl",
		Prometheus: ":9464", PrometheusToken: "scrape"}, cfg.Telemetry)
	require.NotNil(t, cfg.Server.HTTP.OAuth)
	assert.Equal(t, "https://auth.example.com", cfg.Server.HTTP.OAuth.Issuer)
	require.Len(t, cfg.MCPServers, 2)
	assert.Equal(t, "Bearer trk", cfg.MCPServers[1].Headers["Authorization"])
	assert.Equal(t, config.Duration(60*time.Second), cfg.Limits.Timeout)
	assert.Equal(t, 32, cfg.Limits.ChainSteps)
	assert.Equal(t, 8<<20, cfg.Limits.AnswerBytes)
	assert.Equal(t, []string{"-y", "@modelcontextprotocol/server-everything"}, cfg.MCPServers[0].Args)
	assert.Equal(t, config.ToolPatterns{"get_*", "echo"}, cfg.MCPServers[0].Idempotent)
	require.Len(t, cfg.OpenAPI, 1)
	assert.Equal(t, "PETSTORE_TOKEN", cfg.OpenAPI[0].Secrets["bearerAuth"])
	assert.Equal(t, int64(8<<20), cfg.OpenAPI[0].MaxDocumentBytes)
	require.Len(t, cfg.GRPC, 1)
	assert.True(t, cfg.GRPC[0].TLS.Insecure)
	assert.Equal(t, config.Duration(30*time.Minute), cfg.Server.HTTP.SessionIdleTimeout)
	assert.Equal(t, 1000, cfg.Server.HTTP.MaxSessions)
	assert.Equal(t, config.Duration(30*time.Second), cfg.Server.HTTP.BodyReadTimeout)
	assert.Equal(t, []string{"https://app.example.com"}, cfg.Server.HTTP.AllowedOrigins)
	assert.Equal(t, config.Duration(10*time.Second), cfg.Server.ShutdownTimeout)
	assert.False(t, cfg.CodeMode.Enabled, "code mode is off unless turned on")
	assert.Equal(t, config.Duration(30*time.Second), cfg.CodeMode.Timeout)
	assert.Equal(t, toolcode.Limits{ToolCalls: 100, ChainSteps: 20, WallTime: time.Minute, OutputBytes: 1 << 20, Concurrency: 8}, cfg.CodeMode.Limits)
}

func TestVariableForms(t *testing.T) {
	t.Setenv("CFG_SET", "value")
	t.Setenv("CFG_EMPTY", "")
	unsetenv(t, "CFG_UNSET")
	tests := []struct {
		name, written, want string
	}{
		{"braced", "a-${CFG_SET}-b", "a-value-b"},
		{"bare", "$CFG_SET/x", "value/x"},
		{"env prefix", "${env:CFG_SET}", "value"},
		{"default unused", "${CFG_SET:-other}", "value"},
		{"default of unset", "${CFG_UNSET:-other}", "other"},
		{"default of empty", "${CFG_EMPTY:-other}", "other"},
		{"empty default", "[${CFG_UNSET:-}]", "[]"},
		{"default with spaces and colons", "${CFG_UNSET:-a b:c}", "a b:c"},
		{"default not expanded again", "${CFG_UNSET:-$CFG_SET}", "$CFG_SET"},
		{"env prefix and default", "${env:CFG_UNSET:-d}", "d"},
		{"set but empty", "[${CFG_EMPTY}]", "[]"},
		{"escape", "$$CFG_SET costs $$5", "$CFG_SET costs $5"},
		{"dollar before a digit", "costs $5", "costs $5"},
		{"dollar at the end", "a$", "a$"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte("server: {name: '" + tt.written + "'}"))
			require.NoError(t, err)
			assert.Equal(t, tt.want, cfg.Server.Name)
		})
	}
}

func TestVariableErrors(t *testing.T) {
	unsetenv(t, "CFG_UNSET")
	tests := []struct {
		name, written, want string
	}{
		{"unset", "${CFG_UNSET}", "line 1: server.name: environment variable CFG_UNSET is not set (write ${CFG_UNSET:-default} to give it a default)"},
		{"unset bare", "$CFG_UNSET", "environment variable CFG_UNSET is not set"},
		{"not closed", "${CFG_UNSET", `"${CFG_UNSET" is not closed`},
		{"bad name", "${1X}", `${1X}: "1X" is not a variable name`},
		{"host variable", "${input:token}", "${input:token} is a variable of an MCP host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("server: {name: '" + tt.written + "'}"))
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

// TestVariableGivesANumber checks that a plain value made of a variable
// takes the type of what it expands to, and a quoted one stays a string.
func TestVariableGivesANumber(t *testing.T) {
	unsetenv(t, "CFG_RETRIES", "CFG_OFF")
	cfg, err := config.Parse([]byte("limits:\n  retries: ${CFG_RETRIES:-4}\nbuiltin:\n  disabled: ${CFG_OFF:-true}\n"))
	require.NoError(t, err)
	assert.Equal(t, 4, cfg.Limits.Retries)
	assert.True(t, cfg.Builtin.Disabled)

	_, err = config.Parse([]byte("limits:\n  retries: '${CFG_RETRIES:-4}'\n"))
	require.ErrorContains(t, err, `limits.retries: "${CFG_RETRIES:-4}" is not a number`)
}

// TestValidateChecks covers each check that the catalogue or the server
// would otherwise make only at start-up: Validate refuses them, so that
// `config validate` and `serve` agree.
func TestValidateChecks(t *testing.T) {
	tests := []struct {
		name string
		cfg  config.Config
		want string
	}{
		{"duplicate namespace from names", config.Config{
			MCPServers: []config.MCPServer{{Name: "a", Command: "x"}},
			OpenAPI:    []config.OpenAPI{{Name: "o", Namespace: "a", Spec: "s.yaml"}},
		}, `openapi[0].namespace: namespace "a" is already the namespace of mcpServers[0]`},
		{"duplicate explicit namespaces", config.Config{
			MCPServers: []config.MCPServer{{Name: "a", Namespace: "n", Command: "x"}, {Name: "b", Namespace: "n", Command: "y"}},
		}, `mcpServers[1].namespace: namespace "n" is already the namespace of mcpServers[0]`},
		{"name equal to a namespace", config.Config{
			MCPServers: []config.MCPServer{{Name: "a", Namespace: "g", Command: "x"}},
			GRPC:       []config.GRPC{{Name: "g", Address: "h:1"}},
		}, `grpc[0].name: namespace "g" is already the namespace of mcpServers[0]`},
		{"feedback of lexical", config.Config{Search: config.Search{Engine: "lexical", Feedback: true}},
			"search.feedback: applies to the bm25 engine, not to lexical"},
		{"embeddings of lexical", config.Config{Search: config.Search{Engine: "lexical", Embeddings: &config.Embeddings{URL: "http://h/v1", Model: "m"}}},
			"search.embeddings: apply to the bm25 engine, not to lexical"},
		{"embeddings url", config.Config{Search: config.Search{Embeddings: &config.Embeddings{URL: "localhost:11434", Model: "m"}}},
			`search.embeddings.url: "localhost:11434" is not an http(s) URL`},
		{"embeddings model", config.Config{Search: config.Search{Embeddings: &config.Embeddings{URL: "http://h/v1"}}},
			"search.embeddings.model: names the embedding model"},
		{"policy glob", config.Config{Policy: config.Policy{Deny: []string{"[bad"}}},
			`policy.deny[0]: "[bad" is not a valid pattern (syntax error in pattern)`},
		{"policy allow glob", config.Config{Policy: config.Policy{Allow: []string{"ok:*", "a:[b"}}}, `policy.allow[1]: "a:[b" is not a valid pattern`},
		{"passthrough glob", config.Config{Server: config.Server{Passthrough: []string{"x:[bad"}}}, `server.passthrough[0]: "x:[bad" is not a valid pattern`},
		{"empty pattern", config.Config{Policy: config.Policy{Allow: []string{""}}}, "policy.allow[0]: empty"},
		{"url server with args", config.Config{MCPServers: []config.MCPServer{{Name: "a", URL: "https://h/mcp", Args: []string{"-v"}}}},
			"mcpServers[0].args: applies to a server started by a command, not to one reached at a url"},
		{"url server with env", config.Config{MCPServers: []config.MCPServer{{Name: "a", URL: "https://h/mcp", Env: map[string]string{"A": "b"}}}},
			"mcpServers[0].env: applies to a server started by a command"},
		{"url server with dir", config.Config{MCPServers: []config.MCPServer{{Name: "a", URL: "https://h/mcp", Dir: "/tmp"}}},
			"mcpServers[0].dir: applies to a server started by a command"},
		{"command server with headers", config.Config{MCPServers: []config.MCPServer{{Name: "a", Command: "x", Headers: map[string]string{"A": "b"}}}},
			"mcpServers[0].headers: apply to a server reached at a url"},
		{"env name", config.Config{MCPServers: []config.MCPServer{{Name: "a", Command: "x", Env: map[string]string{"A=B": "c"}}}},
			`mcpServers[0]: env "A=B": a name must be non-empty without '=' or NUL`},
		{"header name", config.Config{MCPServers: []config.MCPServer{{Name: "a", URL: "https://h/mcp", Headers: map[string]string{"Bad Header": "c"}}}},
			`mcpServers[0]: header "Bad Header": a name must be an HTTP token`},
		{"NUL in command", config.Config{MCPServers: []config.MCPServer{{Name: "a", Command: "x\x00y"}}},
			"mcpServers[0]: command, args and dir must not contain NUL bytes"},
		{"http address", config.Config{Server: config.Server{HTTP: config.HTTP{Addr: "8080"}}}, `server.http.addr: "8080" is not HOST:PORT or :PORT`},
		{"http port", config.Config{Server: config.Server{HTTP: config.HTTP{Addr: ":99999"}}}, `server.http.addr: ":99999": port 99999 is past 65535`},
		{"negative limit", config.Config{Limits: config.Limits{Retries: -1}}, "limits.retries: must not be negative"},
		{"negative code limit", config.Config{CodeMode: config.CodeMode{Limits: toolcode.Limits{OutputBytes: -1}}},
			"codeMode.limits.outputBytes: must not be negative"},
		{"code timeout past the wall time", config.Config{CodeMode: config.CodeMode{Timeout: config.Duration(time.Minute), Limits: toolcode.Limits{WallTime: time.Second}}},
			"codeMode.timeout: 1m0s is more than limits.wallTime (1s)"},
		{"unknown profile", config.Config{CodeMode: config.CodeMode{Profile: "paranoid"}},
			`codeMode.profile: "paranoid" is not a profile: dev, standard, hardened`},
		{"unknown bubblewrap mode", config.Config{CodeMode: config.CodeMode{Sandbox: config.Sandbox{Bubblewrap: "yes"}}},
			`codeMode.sandbox.bubblewrap: "yes" is not one of auto, require, off`},
		{"negative sandbox memory", config.Config{CodeMode: config.CodeMode{Sandbox: config.Sandbox{Limits: toolruntime.Limits{Memory: -1}}}},
			"codeMode.sandbox.memory: must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.Validate()
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.Contains(t, err.Error(), tt.want)
			var e *config.Error
			require.ErrorAs(t, err, &e)
			assert.NotEmpty(t, e.Problems)
		})
	}
	ok := config.Config{
		MCPServers: []config.MCPServer{{Name: "a", Command: "x", Env: map[string]string{"A": "b"}}, {Name: "b", URL: "https://h/mcp"}},
		OpenAPI:    []config.OpenAPI{{Name: "o", Spec: "s.yaml"}},
		Policy:     config.Policy{Allow: []string{"a:*", "o:get_[a-z]*"}, Deny: []string{"*:delete_*"}},
	}
	assert.NoError(t, ok.Validate())
}

// TestProblemsGolden loads each bad configuration of
// testdata/problems and compares its message with the file's .golden
// (go test -run TestProblemsGolden -update rewrites them).
func TestProblemsGolden(t *testing.T) {
	unsetenv(t, "METATOOLS_TEST_UNSET_TOKEN")
	files, err := filepath.Glob(filepath.Join("testdata", "problems", "*"))
	require.NoError(t, err)
	t.Chdir(filepath.Join("testdata", "problems"))
	n := 0
	for _, path := range files {
		name := filepath.Base(path)
		if strings.HasSuffix(name, ".golden") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			_, err := config.Load(name)
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			got := err.Error() + "\n"
			golden := name + ".golden"
			if *update {
				require.NoError(t, os.WriteFile(golden, []byte(got), 0o600))
			}
			want, err := os.ReadFile(golden)
			require.NoError(t, err)
			assert.Equal(t, string(want), got)
		})
	}
	assert.GreaterOrEqual(t, n, 7)
}

func TestSuggestions(t *testing.T) {
	tests := []struct {
		doc, want string
	}{
		{"mcpServers: [{name: a, comand: x}]", `unknown key "comand" (did you mean "command"?)`},
		{"mcpServers: [{name: a, Command: x}]", `unknown key "Command" (did you mean "command"?)`},
		{"limits: {timout: 1s}", `limits: unknown key "timout" (did you mean "timeout"?)`},
		{"limits: {retires: 1}", `limits: unknown key "retires" (did you mean "retries"?)`},
		{"serch: {}", `unknown key "serch" (did you mean "search"?)`},
		{"search: {colour: red}", `search: unknown key "colour" (known keys: engine, limit, indexPath, feedback, embeddings)`},
	}
	for _, tt := range tests {
		t.Run(tt.doc, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.doc))
			require.ErrorContains(t, err, tt.want)
		})
	}
}

// TestProblemLines checks the lines of problems in files of several
// lines: each problem at its own line, in the file's order.
func TestProblemLines(t *testing.T) {
	doc := "search:\n  limit: many\nlimits:\n  timeout: soon\nmcpServers:\n  - name: a\n    url: ftp://x\n"
	_, err := config.Parse([]byte(doc))
	var e *config.Error
	require.ErrorAs(t, err, &e)
	require.Len(t, e.Problems, 3)
	assert.Equal(t, []int{2, 4, 7}, []int{e.Problems[0].Line, e.Problems[1].Line, e.Problems[2].Line})
	assert.Equal(t, "mcpServers[0].url", e.Problems[2].Path)
	assert.Equal(t, 10, e.Problems[2].Column)
}

// FuzzExpand expands arbitrary strings with a variable set and one
// unset: it never panics, leaves strings without "$" as they are, and
// gives the default of an unset variable.
func FuzzExpand(f *testing.F) {
	for _, seed := range []string{"${A}", "${A:-x}", "$$", "${", "$", "${env:A:-}", "${input:x}", "a$b$$c${B:-${A}}", "${:-}", "$1"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if !utf8.ValidString(s) || quoteYAML(s) == `""` {
			return // not a string a YAML file can hold as it is
		}
		t.Setenv("FUZZ_SET", "v")
		unsetenv(t, "FUZZ_UNSET")
		doc := []byte("server: {name: " + quoteYAML(s) + "}")
		cfg, err := config.Parse(doc)
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("error of code %s: %v", errors.CodeOf(err), err)
			}
			return
		}
		if !strings.Contains(s, "$") && cfg.Server.Name != s {
			t.Fatalf("%q became %q", s, cfg.Server.Name)
		}
		if !strings.ContainsAny(s, "$}") {
			cfg, err := config.Parse([]byte("server: {name: " + quoteYAML("${FUZZ_UNSET:-"+s+"}") + "}"))
			if err != nil || cfg.Server.Name != s {
				t.Fatalf("default %q gave %v, %v", s, cfg, err)
			}
		}
	})
}

// quoteYAML writes s as a double-quoted YAML string.
func quoteYAML(s string) string {
	var b bytes.Buffer
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < 0x20 || r == 0x7f || r == 0xfeff || r == '\u2028' || r == '\u2029' || r == 0x85 || r == 0xfffd:
			return `""`
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
