package toolmodel_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
)

func TestBackendIdentity(t *testing.T) {
	tests := []struct {
		backend toolmodel.ToolBackend
		want    string
	}{
		{toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{Server: "github", ToolName: "x"}}, "mcp:github"},
		{toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{Provider: "crm"}}, "provider:crm"},
		{toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "now"}}, "local:now"},
		{toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "https://api.example.com/v1", Method: "GET", Path: "/pets"}}, "http:https://api.example.com/v1"},
		{toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Address: "localhost:50051", Method: "/a.B/C"}}, "grpc:localhost:50051"},
		{toolmodel.ToolBackend{Kind: "queue", Config: map[string]string{"source": "jobs"}}, "queue:jobs"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			assert.Equal(t, tt.want, tt.backend.Identity())
			require.NoError(t, tt.backend.Validate())
		})
	}
}

func TestBackendValidate(t *testing.T) {
	httpOK := toolmodel.HTTPBackend{BaseURL: "https://api.example.com", Method: "POST", Path: "/pets/{id}"}
	withAuth := func(a toolmodel.HTTPAuth) *toolmodel.HTTPBackend {
		h := httpOK
		h.Auth = &a
		return &h
	}
	tests := []struct {
		name    string
		backend toolmodel.ToolBackend
		want    string
	}{
		{"no kind", toolmodel.ToolBackend{}, "kind is missing"},
		{"missing config", toolmodel.ToolBackend{Kind: toolmodel.BackendMCP}, `kind "mcp" needs its "mcp" configuration`},
		{"two configs", toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: "x"}, MCP: &toolmodel.MCPBackend{Server: "s"}}, "must carry only its own configuration"},
		{"mcp server", toolmodel.ToolBackend{Kind: toolmodel.BackendMCP, MCP: &toolmodel.MCPBackend{}}, "mcp.server is missing"},
		{"provider", toolmodel.ToolBackend{Kind: toolmodel.BackendProvider, Provider: &toolmodel.ProviderBackend{}}, "provider.provider is missing"},
		{"local", toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{}}, "local.name is missing"},
		{"http url", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "ftp://x", Method: "GET"}}, `http.baseUrl "ftp://x" is not an absolute http(s) URL`},
		{"http method and path", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "http://x", Method: "FETCH", Path: "pets/{id"}},
			`http.method "FETCH" is not an HTTP method; http.path "pets/{id" must start with '/'; http.path "pets/{id" has unbalanced braces`},
		{"http timeout", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "http://x", Method: "GET", Timeout: -1}}, "http.timeout is negative"},
		{"http body encoding", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: &toolmodel.HTTPBackend{BaseURL: "http://x", Method: "POST", BodyEncoding: "xml"}}, `http.bodyEncoding "xml" must be empty (JSON) or form`},
		{"bearer", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: toolmodel.AuthBearer})}, "secret is missing for bearer"},
		{"api key", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "K", Name: "X-Key", In: "cookie"})}, `http.auth.in "cookie" must be header or query`},
		{"basic", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: toolmodel.AuthBasic, Secret: "P"})}, "needs username and secret for basic"},
		{"oauth2", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Username: "id", Secret: "S"})}, "tokenUrl"},
		{"auth type", toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: "magic"})}, `http.auth.type "magic" is unknown`},
		{"grpc", toolmodel.ToolBackend{Kind: toolmodel.BackendGRPC, GRPC: &toolmodel.GRPCBackend{Method: "a.B/C"}}, `grpc.address is missing; grpc.method "a.B/C" is not of the form /package.Service/Method`},
		{"custom kind", toolmodel.ToolBackend{Kind: "queue", Local: &toolmodel.LocalBackend{Name: "x"}}, `kind "queue" is not built in and takes its settings in config only; kind "queue" needs config.source`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.backend.Validate()
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.want)
			assert.ErrorIs(t, err, errors.ErrInvalidArgument)
		})
	}
	good := toolmodel.ToolBackend{Kind: toolmodel.BackendHTTP, HTTP: withAuth(toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "K", Name: "key", In: "query"})}
	require.NoError(t, good.Validate())
}

func TestBackendJSONRoundTrip(t *testing.T) {
	in := `{"kind":"http","http":{"baseUrl":"https://api.example.com","method":"GET","path":"/pets/{id}","queryParams":["limit"],"auth":{"type":"bearer","secret":"PETS_TOKEN"},"timeout":"1.5s"}}`
	var b toolmodel.ToolBackend
	require.NoError(t, json.Unmarshal([]byte(in), &b))
	assert.Equal(t, toolmodel.Duration(1500*time.Millisecond), b.HTTP.Timeout)
	out, err := json.Marshal(b)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
}

func TestDurationJSON(t *testing.T) {
	var d toolmodel.Duration
	require.NoError(t, json.Unmarshal([]byte(`2.5`), &d))
	assert.Equal(t, toolmodel.Duration(2500*time.Millisecond), d)
	require.NoError(t, json.Unmarshal([]byte(`"250ms"`), &d))
	assert.Equal(t, toolmodel.Duration(250*time.Millisecond), d)
	require.ErrorContains(t, json.Unmarshal([]byte(`"soon"`), &d), `duration "soon"`)
	require.ErrorContains(t, json.Unmarshal([]byte(`true`), &d), "number of seconds")
	d = toolmodel.Duration(time.Second)
	require.ErrorContains(t, json.Unmarshal([]byte(`1e10`), &d), "out of range",
		"ten billion seconds is no Duration: an error, not a wrapped-around one")
	assert.Equal(t, toolmodel.Duration(time.Second), d, "a duration out of range changes nothing")
	require.NoError(t, json.Unmarshal([]byte(`9223372036`), &d))
	assert.Equal(t, toolmodel.Duration(9223372036*time.Second), d)
}
