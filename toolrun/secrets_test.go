package toolrun_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/toolrun"
)

func TestProcessSecrets(t *testing.T) {
	env := []string{
		"GITHUB_TOKEN=ghp_0123456789", "OPENAI_API_KEY=sk-live-4242", "PATH=/usr/bin:/bin", "USER=jane",
		"HTTPS_PROXY=http://jane:pr0xy-pass@proxy:3128", "XDG_SESSION_CLASS=user",
		"EXTRA_HEADERS=Authorization: Bearer env-bearer-1", "SHORT_TOKEN=abc",
		"SIGNING_PRIVATE_KEY=-----BEGIN KEY-----\r\nMIIBVgIBADANBg\r\n-----END KEY-----",
	}
	args := []string{"serve", "--password", "hunter22", "--api-key=flag-key-99", "-v", "--header", "Authorization: Basic dXNlcjpwYXNz",
		"-e", "BRAVE_API_KEY=brave-key-7", "mode=fast"}
	assert.ElementsMatch(t, []string{
		"ghp_0123456789", "sk-live-4242", "pr0xy-pass", "env-bearer-1", "abc",
		"hunter22", "flag-key-99", "dXNlcjpwYXNz", "brave-key-7",
		"-----BEGIN KEY-----\r\nMIIBVgIBADANBg\r\n-----END KEY-----", "-----BEGIN KEY-----", "MIIBVgIBADANBg", "-----END KEY-----",
	}, toolrun.ProcessSecrets(env, args), "named secrets, credentials, URL passwords and the lines of a secret; no XDG variable, nothing else")
	assert.Empty(t, toolrun.ProcessSecrets([]string{"PATH=/usr/bin", "XDG_SESSION_ID=c2"}, []string{"-y", "@modelcontextprotocol/server-everything"}))
}

func TestURLSecrets(t *testing.T) {
	assert.ElementsMatch(t, []string{
		"pw-secret-1", "api_key=q-secret-123&key=K3Y-value&format=json&sig=abcd1234", "q-secret-123", "K3Y-value", "abcd1234",
		"Bearer hdr-token-1", "hdr-token-1", "xk-22222",
	}, toolrun.URLSecrets("https://user:pw-secret-1@mcp.example.com/mcp?api_key=q-secret-123&key=K3Y-value&format=json&sig=abcd1234",
		map[string]string{"Authorization": "Bearer hdr-token-1", "X-API-Key": "xk-22222", "X-Tenant": "acme-corp"}),
		"the password, the query and its values named like secrets, the headers named like secrets; not the tenant nor the format")
	assert.Empty(t, toolrun.URLSecrets("https://mcp.example.com/mcp", map[string]string{"X-Tenant": "acme-corp"}))
}
