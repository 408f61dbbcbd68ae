package oauthtest_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/rsa"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
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

	"github.com/metatools-go/metatools/toolops"
	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/catalog"
	"github.com/metatools-go/metatools/toolserver/config"
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

// scopes map the authorization server's scopes to the meta-tools they
// allow, as the configuration's server.http.oauth.scopes does.
var scopes = map[string][]string{
	"tools:read": {toolserver.ToolSearch, toolserver.ToolNamespaces, toolserver.ToolDescribe, toolserver.ToolExamples},
	"tools:run":  {toolserver.ToolRun, toolserver.ToolRunChain},
}

// oauthServer serves at /mcp, behind OAuth, the server of a configuration
// whose tokens a new authorization server issues, with its
// protected-resource metadata, the way `metatools serve --http` does: the
// built-in tools, text:* passed through, and the MCP servers given.
func oauthServer(t *testing.T, upstreams ...config.MCPServer) (mcpURL string, as *authServer) {
	t.Helper()
	mux := http.NewServeMux()
	web := httptest.NewServer(mux)
	t.Cleanup(web.Close)
	mcpURL = web.URL + "/mcp"
	as = newAuthServer(t, mcpURL)
	cfg := &config.Config{
		Server: config.Server{Passthrough: []string{"text:*"},
			HTTP: config.HTTP{OAuth: &config.OAuth{Resource: mcpURL, Issuer: as.URL, Scopes: scopes}}},
		Search:     config.Search{Engine: "lexical"},
		MCPServers: upstreams,
	}
	quiet := slog.New(slog.DiscardHandler)
	cat, err := catalog.Build(t.Context(), cfg, catalog.WithLogger(quiet))
	require.NoError(t, err)
	t.Cleanup(func() { assert.NoError(t, cat.Close()) })
	require.NoError(t, cat.Wait(t.Context()))
	for _, u := range cat.Upstreams() {
		require.Equal(t, toolops.UpstreamUp, u.State, "upstream %s: %s", u.Name, u.Error)
	}
	srv, err := cat.NewServer(toolserver.WithLogger(quiet))
	require.NoError(t, err)
	t.Cleanup(srv.Close)
	opts := cat.HTTPOptions()
	require.NotNil(t, opts.OAuth)
	mux.Handle("/mcp", srv.HTTPHandler(opts))
	for _, path := range opts.OAuth.MetadataPaths() {
		mux.Handle(path, opts.OAuth.MetadataHandler())
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
	res := call(t, reader, "search_tools", map[string]any{"query": "upper case"})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "text:case")
	for _, tool := range []string{"run_tool", "text.case"} {
		_, err = reader.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: map[string]any{"id": "text:case", "args": upper("x")}})
		require.Error(t, err, "a reader may not call %s", tool)
	}

	readToken := as.accessToken(t, readerClient, endpoint, "tools:read")
	status, header := post(t, endpoint, readToken, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"run_tool","arguments":{"id":"text:case"}}}`)
	assert.Equal(t, http.StatusForbidden, status)
	challenge := header.Get("WWW-Authenticate")
	assert.Contains(t, challenge, `error="insufficient_scope"`)
	assert.Contains(t, challenge, `scope="tools:run"`)
	assert.Contains(t, challenge, `resource_metadata="`)
	t.Logf("run_tool with tools:read: %d WWW-Authenticate: %s", status, challenge)

	runner, err := connectWithToken(t, endpoint, as.accessToken(t, runnerClient, endpoint, "tools:read", "tools:run"))
	require.NoError(t, err)
	res = call(t, runner, "run_tool", map[string]any{"id": "text:case", "args": upper("ran")})
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "RAN")
	res = call(t, runner, "text.case", upper("passed through"))
	require.False(t, res.IsError, text(res))
	assert.Contains(t, text(res), "PASSED THROUGH")
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
	res := call(t, cs, "search_tools", map[string]any{"query": "upper case"})
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
	endpoint, as := oauthServer(t, config.MCPServer{Name: "docs", URL: docsServer(t)})

	reader, err := connectWithToken(t, endpoint, as.accessToken(t, readerClient, endpoint, "tools:read"))
	require.NoError(t, err)
	assert.Empty(t, resourceURIs(t, reader), "a token without the scope of run_tool lists no upstream resource")
	assert.Empty(t, promptNames(t, reader))
	_, err = reader.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://docs/readme"})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "the token's scopes do not allow resources/read")
	_, err = reader.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "docs.greet", Arguments: map[string]string{"who": "x"}})
	require.Error(t, err)

	runner, err := connectWithToken(t, endpoint, as.accessToken(t, runnerClient, endpoint, "tools:read", "tools:run"))
	require.NoError(t, err)
	assert.Equal(t, []string{"test://docs/readme"}, resourceURIs(t, runner))
	assert.Equal(t, []string{"docs.greet"}, promptNames(t, runner))
	res, err := runner.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "test://docs/readme"})
	require.NoError(t, err)
	assert.Equal(t, "docs serves test://docs/readme", res.Contents[0].Text)
}

// docsServer serves an MCP server with a resource and a prompt over
// streamable HTTP, and returns its URL.
func docsServer(t *testing.T) string {
	t.Helper()
	srv := mcp.NewServer(&mcp.Implementation{Name: "docs", Version: "1"}, nil)
	srv.AddResource(&mcp.Resource{URI: "test://docs/readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
			return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "text/plain", Text: "docs serves " + req.Params.URI}}}, nil
		})
	srv.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(_ context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: "hello, " + req.Params.Arguments["who"]}}}}, nil
		})
	web := httptest.NewServer(mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv }, nil))
	t.Cleanup(web.Close)
	return web.URL
}

func resourceURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for r, err := range cs.Resources(t.Context(), nil) {
		require.NoError(t, err)
		out = append(out, r.URI)
	}
	return out
}

func promptNames(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	var out []string
	for p, err := range cs.Prompts(t.Context(), nil) {
		require.NoError(t, err)
		out = append(out, p.Name)
	}
	return out
}

// upper returns the arguments of text:case that upper-case text.
func upper(text string) map[string]any { return map[string]any{"text": text, "to": "upper"} }

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	require.NoError(t, err)
	return res
}

// text returns the text of a tool's result.
func text(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// bearerClient sends token as the bearer token of every request.
func bearerClient(token string) *http.Client {
	return &http.Client{Transport: roundTripFunc(func(req *http.Request) (*http.Response, error) {
		req = req.Clone(req.Context())
		req.Header.Set("Authorization", "Bearer "+token)
		return http.DefaultTransport.RoundTrip(req)
	})}
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(req *http.Request) (*http.Response, error) { return f(req) }
