package config_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

func TestKeepNames(t *testing.T) {
	cfg, err := config.Parse([]byte("mcpServers:\n  - {name: a, command: x, keepNames: true}\n  - {name: b, command: y}\n"))
	require.NoError(t, err)
	assert.True(t, cfg.MCPServers[0].KeepNames)
	assert.False(t, cfg.MCPServers[1].KeepNames, "names are prefixed by default")
}

func TestEmptyConfigIsValid(t *testing.T) {
	for _, doc := range []string{"", "# nothing\n", "{}"} {
		cfg, err := config.Parse([]byte(doc))
		require.NoError(t, err, "%q", doc)
		assert.Empty(t, cfg.MCPServers)
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, yaml, want string
	}{
		{"syntax", "server: [", `line 1: this "[" is not closed`},
		{"unknown field", "serverz: {}", `line 1: unknown key "serverz" (did you mean "server"?)`},
		{"wrong type", "search: {limit: many}", `line 1: search.limit: "many" is not a number`},
		{"unset variable", "server: {name: '${METATOOLS_SURELY_UNSET}'}", "line 1: server.name: environment variable METATOOLS_SURELY_UNSET is not set"},
		{"bad duration", "limits: {timeout: soon}", `"soon" is not a duration`},
		{"engine", "search: {engine: magic}", `line 1: search.engine: "magic" must be bm25 or lexical`},
		{"mcp without command or url", "mcpServers: [{name: a}]", "line 1: mcpServers[0]: needs a command"},
		{"mcp with both", "mcpServers: [{name: a, command: x, url: 'http://h'}]", "mcpServers[0]: has both a command and a url"},
		{"duplicate names", "mcpServers: [{name: a, command: x}]\nopenapi: [{name: a, spec: s.yaml}]", `line 2: openapi[0].name: "a" is already the name of mcpServers[0]`},
		{"bad name", "grpc: [{name: 'a b', address: 'h:1'}]", `grpc[0].name: "a b"`},
		{"missing spec and address", "openapi: [{name: o}]\ngrpc: [{name: g}]", "line 1: openapi[0]: needs a spec: the path or URL of an OpenAPI document\nline 2: grpc[0]: needs an address"},
		{"bad url", "mcpServers: [{name: a, url: 'ftp://x'}]", `mcpServers[0].url: "ftp://x" is not an http(s) URL`},
		{"bad pattern", "policy: {deny: ['a b']}", `policy.deny[0]: "a b" holds a space`},
		{"negative chain steps", "limits: {chainSteps: -1}", "limits.chainSteps: must not be negative"},
		{"negative admission", "codeMode: {admission: {running: -1}}", "codeMode.admission.running: must not be negative"},
		{"trust mode", "mcpServers: [{name: a, command: x, trust: blind}]", `mcpServers[0].trust: "blind" must be pin, review or trusted`},
		{"approved fingerprint", "grpc: [{name: g, address: 'h:1', approved: [abc]}]", `grpc[0].approved[0]: "abc" is not a fingerprint`},
		{"empty bearer token", "server: {http: {bearerTokens: ['ok', '']}}", "server.http.bearerTokens[1]: empty"},
		{"blank bearer token", "server: {http: {bearerTokens: [' ']}}", "server.http.bearerTokens[0]: empty"},
		{"unnamed token field", "server: {http: {bearerTokens: [{name: ci}]}}", "server.http.bearerTokens[0]: empty"},
		{"token field", "server: {http: {bearerTokens: [{name: ci, secret: x}]}}", `server.http.bearerTokens[0]: unknown key "secret"`},
		{"token list", "server: {http: {bearerTokens: tok}}", `line 1: server.http.bearerTokens: expected a list, such as [a, b], not "tok"`},
		{"token name twice", "server: {http: {bearerTokens: [{name: ci, token: a}, {name: ci, token: b}]}}", `server.http.bearerTokens[1].name: "ci" names another token too`},
		{"token name space", "server: {http: {bearerTokens: [{name: 'c i', token: a}]}}", `server.http.bearerTokens[0].name: "c i": a name has no space`},
		{"negative session cap", "server: {http: {maxSessions: -1}}", "server.http.maxSessions: must not be negative"},
		{"negative shutdown timeout", "server: {shutdownTimeout: -1s}", "server.shutdownTimeout: must not be negative"},
		{"unknown trace exporter", "telemetry: {traces: jaeger}", `telemetry.traces: "jaeger" must be otlp, or left out for none`},
		{"short state key", "server: {stateKey: short}", "server.stateKey: 5 bytes: it needs at least 32"},
		{"negative drain delay", "server: {http: {drainDelay: -2s}}", "server.http.drainDelay: must not be negative"},
		{"console run while off", "server: {http: {console: {run: true}}}", "server.http.console.run: set, but the console is off: set console.enabled too"},
		{"console approve while off", "server: {http: {console: {approve: true}}}", "server.http.console.approve: set, but the console is off"},
		{"console key", "server: {http: {console: {enable: true}}}", `server.http.console: unknown key "enable"`},
		{"negative document size", "openapi: [{name: o, spec: s.yaml, maxDocumentBytes: -1}]", "openapi[0].maxDocumentBytes: must not be negative"},
		{"metadata address", "builtin: {httpAllow: ['169.254.169.254']}", "line 1: builtin.httpAllow: invalid HTTP allow-list: \"169.254.169.254\" reaches the link-local range 169.254.0.0/16, where cloud metadata services answer: write internal:169.254.169.254 to allow it on purpose"},
		{"bad port", "builtin: {httpAllow: ['example.com:x']}", `"example.com:x" has port "x"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.yaml))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
		})
	}
}

func TestBearerTokens(t *testing.T) {
	t.Setenv("CI_TOKEN", "ci-secret")
	cfg, err := config.Parse([]byte("server: {http: {bearerTokens: [plain-secret, {name: ci, token: '${CI_TOKEN}'}]}}"))
	require.NoError(t, err)
	assert.Equal(t, config.BearerTokens{{Token: "plain-secret"}, {Name: "ci", Token: "ci-secret"}}, cfg.Server.HTTP.BearerTokens)
}

func TestEnvironmentExpansion(t *testing.T) {
	t.Setenv("UPSTREAM_HOST", "mcp.example.com")
	cfg, err := config.Parse([]byte("mcpServers: [{name: a, url: 'https://${UPSTREAM_HOST}/mcp', headers: {X-Price: '$$5'}}]"))
	require.NoError(t, err)
	assert.Equal(t, "https://mcp.example.com/mcp", cfg.MCPServers[0].URL)
	assert.Equal(t, "$5", cfg.MCPServers[0].Headers["X-Price"])
}

func TestLoadResolvesPathsAgainstTheFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "metatools.yaml")
	require.NoError(t, os.WriteFile(path, []byte("openapi: [{name: pets, spec: ./pets.yaml}]"), 0o600))
	cfg, err := config.Load(path)
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(dir, "pets.yaml"), cfg.Path(cfg.OpenAPI[0].Spec))
	assert.Equal(t, "https://x/y.yaml", cfg.Path("https://x/y.yaml"))
	assert.Equal(t, "/abs.yaml", cfg.Path("/abs.yaml"))

	_, err = config.Load(filepath.Join(dir, "missing.yaml"))
	require.ErrorIs(t, err, errors.ErrInvalidArgument)
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(config.Example))
	f.Add([]byte("mcpServers: [{name: a, command: x}]"))
	f.Add([]byte("limits: {timeout: 1s}\nsearch: {limit: 3}"))
	f.Add([]byte("a: &x [*x]"))
	f.Add([]byte(`{"mcpServers": {"a": {"command": "x"}}}`))
	f.Add([]byte(`{"servers": {"b": {"type": "http", "url": "http://h/mcp"}}}`))
	f.Add([]byte("server: {name: '${METATOOLS_FUZZ:-x}'}\nlimits: {retries: ${METATOOLS_FUZZ:-3}}"))
	f.Add([]byte("policy:\n  deny: [a,\n    b\nsearch: {limit: 3}"))
	f.Add([]byte("mcpServers: [{name: a, comand: x}, {name: b, url: 'http://h', args: [x]}]"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse(data)
		if err != nil {
			if errors.CodeOf(err) != errors.InvalidArgument {
				t.Fatalf("error of code %s: %v", errors.CodeOf(err), err)
			}
			var e *config.Error
			if !errors.As(err, &e) || len(e.Problems) == 0 {
				t.Fatalf("error without problems: %v", err)
			}
			// YAML also breaks lines at CR, NEL, LS and PS.
			lines := 1
			for _, sep := range []string{"\n", "\r", "\u0085", "\u2028", "\u2029"} {
				lines += bytes.Count(data, []byte(sep))
			}
			for _, p := range e.Problems {
				if p.Line < 0 || p.Line > lines || p.Message == "" {
					t.Fatalf("problem %+v out of a file of %d lines", p, lines)
				}
			}
			return
		}
		if cfg.Validate() != nil {
			t.Fatalf("Parse accepted a configuration that Validate refuses")
		}
	})
}

func TestErrorsHideExpandedValues(t *testing.T) {
	const secret = "hunter2-very-secret"
	t.Setenv("CFG_SECRET", secret)
	t.Setenv("CFG_SHORT", "s3c")
	tests := []struct {
		name, doc, want string
	}{
		{"url", "mcpServers: [{name: a, url: 'ftp://${CFG_SECRET}'}]", `mcpServers[0].url: "ftp://${CFG_SECRET}" is not an http(s) URL`},
		{"base url", "openapi: [{name: o, spec: s.yaml, baseUrl: '${CFG_SECRET}'}]", `openapi[0].baseUrl: "${CFG_SECRET}"`},
		{"engine", "search: {engine: '${env:CFG_SECRET}'}", `search.engine: "${env:CFG_SECRET}" must be`},
		{"duration", "limits: {timeout: 'x${CFG_SECRET}'}", `"x${CFG_SECRET}" is not a duration`},
		{"integer", "search: {limit: '${CFG_SECRET}'}", `"${CFG_SECRET}" is not a number`},
		{"short integer", "limits: {retries: '${CFG_SHORT}'}", `"${CFG_SHORT}" is not a number`},
		{"host file", `{"mcpServers": {"a": {"url": "ftp://${CFG_SECRET}"}}}`, `url "ftp://${CFG_SECRET}" is not an http(s) URL`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tt.doc))
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.NotContains(t, err.Error(), secret)
			assert.NotContains(t, err.Error(), "s3c")
			assert.NotContains(t, err.Error(), secret[:7])
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func TestDrainDelayTellsZeroFromUnset(t *testing.T) {
	zero, eight := time.Duration(0), 8*time.Second
	tests := []struct {
		name string
		yaml string
		want *time.Duration
	}{
		{"unset", "server: {http: {stateless: true}}", nil},
		{"zero", "server: {http: {drainDelay: 0s}}", &zero},
		{"set", "server: {http: {drainDelay: 8s}}", &eight},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, err := config.Parse([]byte(tt.yaml))
			require.NoError(t, err)
			if tt.want == nil {
				assert.Nil(t, cfg.Server.HTTP.DrainDelay)
				return
			}
			require.NotNil(t, cfg.Server.HTTP.DrainDelay)
			assert.Equal(t, *tt.want, time.Duration(*cfg.Server.HTTP.DrainDelay))
		})
	}
}
