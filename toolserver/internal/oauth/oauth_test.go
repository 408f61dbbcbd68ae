package oauth

import (
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCalledTools(t *testing.T) {
	tests := []struct {
		name, body string
		want       []string
	}{
		{"a call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool"}}`, []string{"run_tool"}},
		{"a batch", ` [{"method":"ping"},{"method":"tools/call","params":{"name":"a"}},{"method":"tools/call","params":{"name":"b"}}]`, []string{"a", "b"}},
		{"another method", `{"method":"tools/list"}`, nil},
		{"not JSON", `{"method":`, nil},
		{"empty", ``, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, calledTools([]byte(tt.body)))
		})
	}
}

func TestTokenScopes(t *testing.T) {
	tests := []struct {
		name, claims string
		want         []string
	}{
		{"scope string", `{"scope":"tools:read tools:run"}`, []string{"tools:read", "tools:run"}},
		{"scp list", `{"scp":["tools:read","tools:run"]}`, []string{"tools:read", "tools:run"}},
		{"scp string", `{"scp":"tools:read"}`, []string{"tools:read"}},
		{"none", `{}`, nil},
		{"scp of another type", `{"scp":3}`, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c tokenClaims
			require.NoError(t, json.Unmarshal([]byte(tt.claims), &c))
			if tt.want == nil {
				assert.Empty(t, c.scopes())
			} else {
				assert.Equal(t, tt.want, c.scopes())
			}
		})
	}
}

func FuzzCalledTools(f *testing.F) {
	f.Add([]byte(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool"}}`))
	f.Add([]byte(`[{"method":"tools/call","params":{"name":"x"}},1,"s"]`))
	f.Add([]byte(`{"method":"tools/call","params":[]}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		for _, tool := range calledTools(body) {
			_ = tool // any name, even empty, is checked against the grant
		}
	})
}

func FuzzTokenScopes(f *testing.F) {
	f.Add([]byte(`{"scope":"a b","scp":["c"]}`))
	f.Add([]byte(`{"scp":"a"}`))
	f.Fuzz(func(t *testing.T, claims []byte) {
		var c tokenClaims
		if json.Unmarshal(claims, &c) != nil {
			return
		}
		for _, s := range c.scopes() {
			assert.NotEmpty(t, s)
		}
	})
}

// TestVerifyAcceptsEveryAsymmetricAlgorithm verifies access tokens signed
// with an RSA, an ECDSA and an Ed25519 key of the issuer: the grant of
// each is its scope's.
func TestVerifyAcceptsEveryAsymmetricAlgorithm(t *testing.T) {
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	ecKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(t, err)
	_, edKey, err := ed25519.GenerateKey(rand.Reader)
	require.NoError(t, err)
	keys := []struct {
		alg     jose.SignatureAlgorithm
		private any
		public  any
	}{
		{jose.RS256, rsaKey, &rsaKey.PublicKey},
		{jose.ES256, ecKey, &ecKey.PublicKey},
		{jose.EdDSA, edKey, edKey.Public()},
	}
	var set jose.JSONWebKeySet
	for _, k := range keys {
		set.Keys = append(set.Keys, jose.JSONWebKey{Key: k.public, KeyID: string(k.alg), Algorithm: string(k.alg), Use: "sig"})
	}
	issuer := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(set)
	}))
	defer issuer.Close()
	opts := &Options{Resource: "https://mcp.example.com/mcp", Issuer: issuer.URL, JWKSURL: issuer.URL,
		Scopes: map[string][]string{"search": {"search_tools"}}}
	v := &jwtVerifier{opts: opts, tools: Tools{Meta: func(string) bool { return true }, Run: "run_tool"}}

	for _, k := range keys {
		t.Run(string(k.alg), func(t *testing.T) {
			signer, err := jose.NewSigner(jose.SigningKey{Algorithm: k.alg, Key: k.private}, (&jose.SignerOptions{}).WithHeader("kid", string(k.alg)))
			require.NoError(t, err)
			claims, err := json.Marshal(map[string]any{"iss": issuer.URL, "aud": opts.Resource, "sub": "c", "scope": "search",
				"exp": time.Now().Add(time.Hour).Unix()})
			require.NoError(t, err)
			signed, err := signer.Sign(claims)
			require.NoError(t, err)
			token, err := signed.CompactSerialize()
			require.NoError(t, err)

			info, err := v.verify(t.Context(), token)
			require.NoError(t, err)
			assert.Equal(t, []string{"search"}, info.Scopes)
			g := info.Extra[grantKey].(*grant)
			assert.True(t, g.allows("search_tools"))
			assert.False(t, g.allows("run_tool"))
		})
	}
}

// TestAllows checks what a request's token lets it call, as the console
// asks it: a static token or none every tool, an access token what its
// scopes give, and "*" only with a scope granting every tool.
func TestAllows(t *testing.T) {
	opts := &Options{Scopes: map[string][]string{"read": {"search_tools", "describe_tool"}, "run": {"run_tool"}, "admin": {"*"}}}
	tools := Tools{Meta: func(name string) bool { return name == "search_tools" || name == "describe_tool" || name == "run_tool" }, Run: "run_tool"}
	token := func(scopes ...string) *auth.TokenInfo {
		return &auth.TokenInfo{Scopes: scopes, Extra: map[string]any{grantKey: opts.grantOf(tools, scopes)}}
	}
	for _, c := range []struct {
		name string
		info *auth.TokenInfo
		tool string
		want bool
	}{
		{"no token", nil, "run_tool", true},
		{"a static token", &auth.TokenInfo{UserID: "token:ci"}, "*", true},
		{"a scope's tool", token("read"), "search_tools", true},
		{"another scope's tool", token("read"), "run_tool", false},
		{"a catalogue tool needs run_tool", token("read"), "github:create_issue", false},
		{"which run_tool gives", token("run"), "github:create_issue", true},
		{"every tool without a scope of *", token("read", "run"), "*", false},
		{"every tool with one", token("admin"), "*", true},
	} {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.want, Allows(c.info, c.tool))
		})
	}
}
