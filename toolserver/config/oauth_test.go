package config_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolserver/config"
)

const oauthConfig = `server:
  http:
    oauth:
      resource: https://mcp.example.com/mcp
      issuer: https://auth.example.com
      scopes:
        "tools:read": [search_tools, list_namespaces, describe_tool, list_tool_examples]
        "tools:run": [run_tool, run_chain]
`

func TestOAuth(t *testing.T) {
	cfg, err := config.Parse([]byte(oauthConfig))
	require.NoError(t, err)
	require.NotNil(t, cfg.Server.HTTP.OAuth)
	assert.True(t, cfg.Server.HTTP.Authenticated(), "OAuth counts as an authentication method")
	opts := cfg.Server.HTTP.OAuth.Options()
	assert.Equal(t, "https://mcp.example.com/mcp", opts.Resource)
	assert.Equal(t, "https://auth.example.com", opts.Issuer)
	assert.Equal(t, []string{"run_tool", "run_chain"}, opts.Scopes["tools:run"])
	assert.Equal(t, "https://mcp.example.com/.well-known/oauth-protected-resource/mcp", opts.MetadataURL())
	assert.Equal(t, []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"}, opts.MetadataPaths())

	cfg, err = config.Parse([]byte("server:\n  http:\n    addr: ':8080'\n"))
	require.NoError(t, err)
	assert.False(t, cfg.Server.HTTP.Authenticated())
}

func TestOAuthProblems(t *testing.T) {
	tests := []struct {
		name, oauth, want string
	}{
		{"no resource", `{issuer: "https://a.example", scopes: {r: [search_tools]}}`, `server.http.oauth.resource: "" must be the absolute http(s) URL`},
		{"relative resource", `{resource: /mcp, issuer: "https://a.example", scopes: {r: [search_tools]}}`, `server.http.oauth.resource: "/mcp"`},
		{"no issuer", `{resource: "https://m.example/mcp", scopes: {r: [search_tools]}}`, `server.http.oauth.issuer: "" must be an http(s) URL`},
		{"issuer with a query", `{resource: "https://m.example/mcp", issuer: "https://a.example?x=1", scopes: {r: [search_tools]}}`, `issuer: "https://a.example?x=1"`},
		{"bad jwks", `{resource: "https://m.example/mcp", issuer: "https://a.example", jwksUri: "keys", scopes: {r: [search_tools]}}`, `jwksUri: "keys" is not an http(s) URL`},
		{"no scopes", `{resource: "https://m.example/mcp", issuer: "https://a.example"}`, `scopes: must map at least one scope`},
		{"bad scope", `{resource: "https://m.example/mcp", issuer: "https://a.example", scopes: {"a b": [search_tools]}}`, `"a b" is not a scope`},
		{"empty scope", `{resource: "https://m.example/mcp", issuer: "https://a.example", scopes: {r: []}}`, `scopes.r: allows no tool`},
		{"unknown tool", `{resource: "https://m.example/mcp", issuer: "https://a.example", scopes: {r: [delete_all]}}`, `"delete_all" is not a meta-tool`},
		{"unknown field", `{resource: "https://m.example/mcp", issuer: "https://a.example", scopes: {r: ["*"]}, clientId: x}`, `server.http.oauth: unknown key "clientId"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := config.Parse([]byte("server:\n  http:\n    oauth: " + tt.oauth + "\n"))
			require.Error(t, err)
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			assert.Contains(t, err.Error(), tt.want)
		})
	}
}

func FuzzParseOAuth(f *testing.F) {
	f.Add([]byte(oauthConfig))
	f.Add([]byte("server: {http: {oauth: {resource: 'http://[::1]/mcp', issuer: 'http://127.0.0.1:9', scopes: {'*': ['*']}}}}"))
	f.Add([]byte("server: {http: {oauth: {scopes: {\"\\u007f\": [run_tool]}}}}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := config.Parse(data)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			return
		}
		if o := cfg.Server.HTTP.OAuth; o != nil {
			opts := o.Options()
			assert.NotEmpty(t, opts.MetadataURL(), "a valid resource has a metadata URL")
			assert.NotEmpty(t, opts.Metadata().ScopesSupported)
		}
	})
}
