package toolserver_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"sync"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/ory/fosite"
	"github.com/ory/fosite/compose"
	"github.com/ory/fosite/handler/oauth2"
	"github.com/ory/fosite/storage"
	"github.com/ory/fosite/token/jwt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/metatools-go/metatools/toolserver"
)

// authServer is an OAuth 2 authorization server built with fosite,
// issuing JWT access tokens by the client credentials grant. It serves
// its RFC 8414 metadata and its keys, which it can rotate.
type authServer struct {
	*httptest.Server
	provider fosite.OAuth2Provider

	mu    sync.Mutex
	key   *rsa.PrivateKey
	keyID string
	keys  []jose.JSONWebKey // published: the current key and the ones before
	// keyFetches counts the requests for the key set.
	keyFetches int
}

// Clients of the authorization server and their secret.
const (
	readerClient  = "reader"  // may get tools:read
	runnerClient  = "runner"  // may get tools:read and tools:run
	expiredClient = "expired" // gets tokens that expired a minute ago
	clientSecret  = "client-secret"
	otherAudience = "https://other.example.com/mcp"
)

func newAuthServer(t *testing.T, resource string) *authServer {
	t.Helper()
	as := &authServer{}
	as.Server = httptest.NewServer(http.HandlerFunc(as.serve))
	t.Cleanup(as.Close)
	as.rotate(t)

	hash, err := bcrypt.GenerateFromPassword([]byte(clientSecret), bcrypt.MinCost)
	require.NoError(t, err)
	store := storage.NewMemoryStore()
	client := func(id string, scopes ...string) *fosite.DefaultClient {
		return &fosite.DefaultClient{ID: id, Secret: hash, GrantTypes: []string{"client_credentials"},
			Scopes: scopes, Audience: []string{resource, otherAudience}}
	}
	store.Clients[readerClient] = client(readerClient, "tools:read")
	store.Clients[runnerClient] = client(runnerClient, "tools:read", "tools:run")
	expired := -time.Minute
	store.Clients[expiredClient] = &fosite.DefaultClientWithCustomTokenLifespans{
		DefaultClient:  client(expiredClient, "tools:read", "tools:run"),
		TokenLifespans: &fosite.ClientLifespanConfig{ClientCredentialsGrantAccessTokenLifespan: &expired},
	}
	config := &fosite.Config{
		AccessTokenLifespan: time.Hour,
		AccessTokenIssuer:   as.URL,
		GlobalSecret:        []byte("a-global-secret-of-32-bytes-long"),
		JWTScopeClaimKey:    jwt.JWTScopeFieldString, // RFC 9068's "scope"
		ClientSecretsHasher: &fosite.BCrypt{Config: &fosite.Config{HashCost: bcrypt.MinCost}},
	}
	signingKey := func(context.Context) (any, error) {
		as.mu.Lock()
		defer as.mu.Unlock()
		return as.key, nil
	}
	as.provider = compose.Compose(config, store, &compose.CommonStrategy{
		CoreStrategy: compose.NewOAuth2JWTStrategy(signingKey, compose.NewOAuth2HMACStrategy(config), config),
	}, compose.OAuth2ClientCredentialsGrantFactory)
	return as
}

// rotate makes the server sign with a new key, publishing it beside the
// old ones.
func (as *authServer) rotate(t *testing.T) {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	as.mu.Lock()
	defer as.mu.Unlock()
	as.key, as.keyID = key, "key-"+string(rune('a'+len(as.keys)))
	as.keys = append(as.keys, jose.JSONWebKey{Key: &key.PublicKey, KeyID: as.keyID, Algorithm: "RS256", Use: "sig"})
}

func (as *authServer) serve(w http.ResponseWriter, r *http.Request) {
	switch r.URL.Path {
	case "/.well-known/oauth-authorization-server":
		writeJSON(w, &oauthex.AuthServerMeta{
			Issuer: as.URL, AuthorizationEndpoint: as.URL + "/authorize", TokenEndpoint: as.URL + "/token",
			JWKSURI: as.URL + "/jwks", ResponseTypesSupported: []string{"code"},
			GrantTypesSupported: []string{"client_credentials"}, ScopesSupported: []string{"tools:read", "tools:run"},
		})
	case "/jwks":
		as.mu.Lock()
		as.keyFetches++
		set := jose.JSONWebKeySet{Keys: append([]jose.JSONWebKey(nil), as.keys...)}
		as.mu.Unlock()
		writeJSON(w, set)
	case "/token":
		as.token(w, r)
	default:
		http.NotFound(w, r)
	}
}

func (as *authServer) token(w http.ResponseWriter, r *http.Request) {
	ctx := r.Context()
	as.mu.Lock()
	session := &oauth2.JWTSession{JWTClaims: &jwt.JWTClaims{}, JWTHeader: &jwt.Headers{Extra: map[string]any{"kid": as.keyID}}}
	as.mu.Unlock()
	request, err := as.provider.NewAccessRequest(ctx, r, session)
	if err != nil {
		as.provider.WriteAccessError(ctx, w, request, err)
		return
	}
	session.JWTClaims.Subject = request.GetClient().GetID()
	for _, scope := range request.GetRequestedScopes() {
		request.GrantScope(scope)
	}
	for _, audience := range request.GetRequestedAudience() {
		request.GrantAudience(audience)
	}
	response, err := as.provider.NewAccessResponse(ctx, request)
	if err != nil {
		as.provider.WriteAccessError(ctx, w, request, err)
		return
	}
	as.provider.WriteAccessResponse(ctx, w, request, response)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(v)
}

// accessToken asks the authorization server for a token to audience.
func (as *authServer) accessToken(t *testing.T, client, audience string, scopes ...string) string {
	t.Helper()
	cc := clientcredentials.Config{ClientID: client, ClientSecret: clientSecret, TokenURL: as.URL + "/token",
		Scopes: scopes, EndpointParams: url.Values{"audience": {audience}}}
	tok, err := cc.Token(context.Background())
	require.NoError(t, err)
	return tok.AccessToken
}

// oauthServer serves the catalogue's MCP endpoint at /mcp behind OAuth,
// with its protected-resource metadata, the way `metatools serve` does.
func oauthServer(t *testing.T) (mcpURL string, as *authServer) {
	t.Helper()
	mux := http.NewServeMux()
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	mcpURL = srv.URL + "/mcp"
	as = newAuthServer(t, mcpURL)
	oauth := &toolserver.OAuthOptions{Resource: mcpURL, Issuer: as.URL, Scopes: map[string][]string{
		"tools:read": {toolserver.ToolSearch, toolserver.ToolNamespaces, toolserver.ToolDescribe, toolserver.ToolExamples},
		"tools:run":  {toolserver.ToolRun, toolserver.ToolRunChain},
	}}
	mux.Handle("/mcp", newCatalogue(t).server(toolserver.WithPassthrough("text:*")).HTTPHandler(toolserver.HTTPOptions{OAuth: oauth}))
	for _, path := range oauth.MetadataPaths() {
		mux.Handle(path, oauth.MetadataHandler())
	}
	return mcpURL, as
}

func connectWithToken(t *testing.T, endpoint, token string) (*mcp.ClientSession, error) {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: bearerClient(token)}, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// post sends a JSON-RPC message and returns the answer's status and
// headers.
func post(t *testing.T, endpoint, token, body string) (int, http.Header) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, bytes.NewReader([]byte(body)))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	_, _ = io.Copy(io.Discard, resp.Body)
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header
}

func TestOAuthMetadataAndChallenge(t *testing.T) {
	endpoint, as := oauthServer(t)
	metadataURL := endpoint[:len(endpoint)-len("/mcp")] + "/.well-known/oauth-protected-resource/mcp"

	status, header := post(t, endpoint, "", `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
	assert.Equal(t, http.StatusUnauthorized, status)
	assert.Equal(t, `Bearer resource_metadata="`+metadataURL+`"`, header.Get("WWW-Authenticate"))
	t.Logf("no token: %d WWW-Authenticate: %s", status, header.Get("WWW-Authenticate"))

	_, err := connectWithToken(t, endpoint, "not-a-jwt")
	require.Error(t, err, "a client with a token that is no JWT is refused")

	for _, path := range []string{"/.well-known/oauth-protected-resource/mcp", "/.well-known/oauth-protected-resource"} {
		resp, err := http.Get(endpoint[:len(endpoint)-len("/mcp")] + path)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, err)
		_ = resp.Body.Close()
		require.Equal(t, http.StatusOK, resp.StatusCode, path)
		var meta oauthex.ProtectedResourceMetadata
		require.NoError(t, json.Unmarshal(body, &meta))
		assert.Equal(t, endpoint, meta.Resource)
		assert.Equal(t, []string{as.URL}, meta.AuthorizationServers)
		assert.Equal(t, []string{"tools:read", "tools:run"}, meta.ScopesSupported)
		t.Logf("GET %s: %s", path, bytes.TrimSpace(body))
	}

	// The SDK's own client-side discovery finds the document.
	meta, err := oauthex.GetProtectedResourceMetadata(context.Background(), metadataURL, endpoint, http.DefaultClient)
	require.NoError(t, err)
	assert.Equal(t, []string{as.URL}, meta.AuthorizationServers)
}

func TestOAuthScopesMapToMetaTools(t *testing.T) {
	endpoint, as := oauthServer(t)

	reader, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err)
	tools, err := reader.ListTools(context.Background(), nil)
	require.NoError(t, err)
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	assert.ElementsMatch(t, []string{"search_tools", "list_namespaces", "describe_tool", "list_tool_examples"}, names,
		"a reader sees only the tools its scope allows")
	res := call(t, reader, "search_tools", map[string]any{"query": "issue"})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "github:create_issue")
	for _, tool := range []string{"run_tool", "text.upper"} {
		_, err = reader.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": "text:upper", "args": map[string]any{"text": "x"}}})
		require.Error(t, err, "a reader may not call %s", tool)
	}

	readToken := as.accessToken(t, readerClient, endpoint, "tools:read")
	status, header := post(t, endpoint, readToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"id":"text:upper"}}}`)
	assert.Equal(t, http.StatusForbidden, status)
	challenge := header.Get("WWW-Authenticate")
	assert.Contains(t, challenge, `error="insufficient_scope"`)
	assert.Contains(t, challenge, `scope="tools:run"`)
	assert.Contains(t, challenge, `resource_metadata="`)
	t.Logf("run_tool with tools:read: %d WWW-Authenticate: %s", status, challenge)

	runner, err := connectWithToken(t, endpoint, as.accessToken(t, runnerClient, endpoint, "tools:read", "tools:run"))
	require.NoError(t, err)
	res = call(t, runner, "run_tool", map[string]any{"id": "text:upper", "args": map[string]any{"text": "ran"}})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "ran")
	res = call(t, runner, "text.upper", map[string]any{"text": "passed through"})
	require.False(t, res.IsError, text(res))
}

func TestOAuthRefusesTokensForOthersAndExpired(t *testing.T) {
	endpoint, as := oauthServer(t)
	tests := []struct {
		name  string
		token string
	}{
		{"another audience", as.accessToken(t, runnerClient, otherAudience, "tools:read", "tools:run")},
		{"expired", as.accessToken(t, expiredClient, endpoint, "tools:read", "tools:run")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			status, header := post(t, endpoint, tt.token, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
			assert.Equal(t, http.StatusUnauthorized, status)
			assert.Contains(t, header.Get("WWW-Authenticate"), `error="invalid_token"`)
			t.Logf("%s: %d WWW-Authenticate: %s", tt.name, status, header.Get("WWW-Authenticate"))
			_, err := connectWithToken(t, endpoint, tt.token)
			require.Error(t, err)
		})
	}
}

func TestOAuthFollowsKeyRotation(t *testing.T) {
	endpoint, as := oauthServer(t)
	_, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err, "the first key is fetched")

	as.rotate(t)
	cs, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err, "a token signed with a new key is accepted once the key set is fetched again")
	res := call(t, cs, "search_tools", map[string]any{"query": "issue"})
	assert.False(t, res.IsError, text(res))
}

// TestOAuthKeySetFetchesAreRateLimited sends a flood of forged tokens
// naming a key the issuer does not have: the server fetches the key set
// a few times, not once per token.
func TestOAuthKeySetFetchesAreRateLimited(t *testing.T) {
	endpoint, as := oauthServer(t)
	_, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err, "the first key is fetched")

	forger, err := rsa.GenerateKey(rand.Reader, 2048)
	require.NoError(t, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.RS256, Key: forger},
		(&jose.SignerOptions{}).WithType("JWT").WithHeader("kid", "forged"))
	require.NoError(t, err)
	claims, err := json.Marshal(map[string]any{"iss": as.URL, "aud": endpoint, "sub": "mallory", "scope": "tools:read tools:run",
		"exp": time.Now().Add(time.Hour).Unix()})
	require.NoError(t, err)
	signed, err := signer.Sign(claims)
	require.NoError(t, err)
	forged, err := signed.CompactSerialize()
	require.NoError(t, err)

	for range 100 {
		status, _ := post(t, endpoint, forged, `{"jsonrpc":"2.0","id":1,"method":"ping"}`)
		require.Equal(t, http.StatusUnauthorized, status)
	}
	as.mu.Lock()
	fetches := as.keyFetches
	as.mu.Unlock()
	assert.LessOrEqual(t, fetches, 4, "the first fetch, then a few refreshes at most, for 100 forged tokens")
}

// TestOAuthScopesCoverUpstreamResourcesAndPrompts checks that the
// upstreams' resources, prompts and completions need the scope of
// run_tool: a token without it lists none and reads none.
func TestOAuthScopesCoverUpstreamResourcesAndPrompts(t *testing.T) {
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	endpoint := web.URL + "/mcp"
	as := newAuthServer(t, endpoint)
	oauth := &toolserver.OAuthOptions{Resource: endpoint, Issuer: as.URL, Scopes: map[string][]string{
		"tools:read": {toolserver.ToolSearch, toolserver.ToolNamespaces, toolserver.ToolDescribe, toolserver.ToolExamples},
		"tools:run":  {toolserver.ToolRun, toolserver.ToolRunChain},
	}}
	srv, _, _ := twoUpstreams(t)
	mux.Handle("/mcp", srv.HTTPHandler(toolserver.HTTPOptions{OAuth: oauth}))

	reader, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err)
	assert.Empty(t, resourceNames(t, reader), "a token without the scope of run_tool lists no upstream resource")
	assert.Empty(t, promptNames(t, reader))
	_, err = reader.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://docs/readme"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the token's scopes do not allow resources/read")
	_, err = reader.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "x"}})
	require.Error(t, err)

	runner, err := connectWithToken(t, endpoint, as.accessToken(t, runnerClient, endpoint, "tools:read", "tools:run"))
	require.NoError(t, err)
	assert.Contains(t, resourceNames(t, runner), "test://docs/readme")
	res, err := runner.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://docs/readme"})
	require.NoError(t, err)
	assert.Equal(t, "docs serves test://docs/readme", res.Contents[0].Text)
}
