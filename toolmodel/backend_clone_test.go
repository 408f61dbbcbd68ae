package toolmodel_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolmodel"
)

func TestBackendCloneIsDeep(t *testing.T) {
	backends := []toolmodel.ToolBackend{
		{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "s", ToolName: "t"}},
		{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "p"}},
		{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "l"}},
		{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{
			BaseURL: "https://api.test", Method: "GET", Path: "/x",
			QueryParams: []string{"q"}, HeaderParams: []string{"h"}, Headers: map[string]string{"k": "v"},
			Auth: &toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Username: "id", Secret: "s", TokenURL: "https://t", Scopes: []string{"read"}},
		}},
		{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Address: "a:1", Method: "/p.S/M", TLS: &toolmodel.GRPCTLS{ServerName: "n"}, Metadata: map[string]string{"k": "v"}}},
		{Kind: "wasm", Config: map[string]string{"source": "mod"}},
	}
	for _, b := range backends {
		t.Run(string(b.Kind), func(t *testing.T) {
			require.NoError(t, b.Validate())
			c := b.Clone()
			require.Equal(t, b, c)
			assert.True(t, b.Equal(c))
			// Change every reachable part of the copy.
			switch {
			case c.MCP != nil:
				c.MCP.Server = "changed"
			case c.Provider != nil:
				c.Provider.Provider = "changed"
			case c.Local != nil:
				c.Local.Name = "changed"
			case c.HTTP != nil:
				c.HTTP.QueryParams[0], c.HTTP.HeaderParams[0], c.HTTP.Headers["k"] = "x", "x", "x"
				c.HTTP.Auth.Scopes[0], c.HTTP.Auth.Secret = "x", "x"
			case c.GRPC != nil:
				c.GRPC.Metadata["k"], c.GRPC.TLS.ServerName = "x", "x"
			default:
				c.Config["source"] = "changed"
			}
			assert.NotEqual(t, b, c)
			assert.False(t, b.Equal(c))
			assert.NoError(t, b.Validate(), "the original is untouched")
		})
	}
}
