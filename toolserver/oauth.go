package toolserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/coreos/go-oidc/v3/oidc"
	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// OAuthOptions make the streamable HTTP handler an OAuth 2.1 resource
// server, as the MCP authorization specification asks: clients present
// access tokens that an authorization server issued for this server, and
// the token's scopes say which meta-tools they may call.
//
// Access tokens must be JWTs signed with one of the issuer's keys, naming
// the issuer ("iss"), this server ("aud": Audience, or Resource when it is
// empty) and an expiry ("exp"); a "nbf" in the future is refused. The
// keys come from the issuer's JSON Web Key Set, found in its OAuth or
// OpenID metadata (or at JWKSURL); they are cached, and fetched again
// when a token names a key the cache does not hold, so that the issuer
// may rotate its keys.
type OAuthOptions struct {
	// Resource is this server's resource identifier: the absolute URL of
	// its MCP endpoint, such as "https://mcp.example.com/mcp". The
	// protected-resource metadata names it, and clients ask the
	// authorization server for tokens to it.
	Resource string
	// Issuer is the authorization server's issuer identifier.
	Issuer string
	// Audience is the "aud" that tokens must carry; it defaults to
	// Resource.
	Audience string
	// JWKSURL, when set, is where the issuer's keys are fetched; by
	// default it is the jwks_uri of the issuer's metadata.
	JWKSURL string
	// Scopes map each scope to the tools a token with it may call: names
	// of meta-tools, or "*" for every tool. A token may call the tools of
	// all its scopes together. Tools passed through from the catalogue
	// ([WithPassthrough]) count as run_tool: a token that may call
	// run_tool may call them.
	Scopes map[string][]string
	// HTTPClient fetches the issuer's metadata and keys; the default is
	// [http.DefaultClient].
	HTTPClient *http.Client
}

// Authenticated reports whether the options ask clients to authenticate:
// with a static bearer token or an OAuth access token.
func (o HTTPOptions) Authenticated() bool {
	return len(o.BearerTokens) > 0 || o.OAuth != nil
}

// metadataPath is the well-known path of protected-resource metadata
// (RFC 9728).
const metadataPath = "/.well-known/oauth-protected-resource"

// MetadataPaths returns the paths at which [OAuthOptions.MetadataHandler]
// should be mounted on the server's root: the well-known path with the
// resource's path appended (where RFC 9728 puts it, and where MCP clients
// look first), and the bare well-known path (where they look next).
func (o *OAuthOptions) MetadataPaths() []string {
	paths := []string{metadataPath}
	if u, err := url.Parse(o.Resource); err == nil && strings.Trim(u.Path, "/") != "" {
		paths = append([]string{metadataPath + "/" + strings.Trim(u.Path, "/")}, paths...)
	}
	return paths
}

// MetadataURL returns the URL of the protected-resource metadata, which
// 401 and 403 answers name in their WWW-Authenticate header.
func (o *OAuthOptions) MetadataURL() string {
	u, err := url.Parse(o.Resource)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: o.MetadataPaths()[0]}).String()
}

// Metadata returns the protected-resource metadata (RFC 9728): the
// resource, its authorization server and the scopes it knows.
func (o *OAuthOptions) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.scopeNames(),
		BearerMethodsSupported: []string{"header"},
	}
}

// MetadataHandler serves the protected-resource metadata document.
func (o *OAuthOptions) MetadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(o.Metadata())
}

func (o *OAuthOptions) scopeNames() []string {
	names := make([]string, 0, len(o.Scopes))
	for s := range o.Scopes {
		names = append(names, s)
	}
	sort.Strings(names)
	return names
}

// grant is the set of tools a token may call.
type grant struct {
	all   bool
	tools map[string]bool
}

// allows reports whether the grant covers the tool a tools/call names;
// a tool other than a meta-tool is a passthrough tool, run as run_tool
// runs tools.
func (g *grant) allows(s *Server, tool string) bool {
	if g.all {
		return true
	}
	if !s.metaTools[tool] {
		tool = ToolRun
	}
	return g.tools[tool]
}

// grantOf returns the tools that scopes give.
func (o *OAuthOptions) grantOf(scopes []string) *grant {
	g := &grant{tools: map[string]bool{}}
	for _, scope := range scopes {
		for _, tool := range o.Scopes[scope] {
			if tool == "*" {
				g.all = true
			}
			g.tools[tool] = true
		}
	}
	return g
}

// scopesFor returns the scopes that would let a token call tool, for the
// scope parameter of an insufficient_scope answer.
func (o *OAuthOptions) scopesFor(s *Server, tool string) []string {
	var scopes []string
	for _, scope := range o.scopeNames() {
		if o.grantOf([]string{scope}).allows(s, tool) {
			scopes = append(scopes, scope)
		}
	}
	return scopes
}

// grantKey is the TokenInfo.Extra key of a token's grant.
const grantKey = "dev.metatools/grant"

// jwtVerifier checks access tokens against the issuer's keys, which it
// discovers on first use.
type jwtVerifier struct {
	opts *OAuthOptions

	mu       sync.Mutex
	verifier *oidc.IDTokenVerifier
}

// tokenClaims are the claims of an access token read besides those the
// verifier checks: RFC 9068 puts scopes in a space-separated "scope";
// some issuers use a "scp" list instead.
type tokenClaims struct {
	Scope string          `json:"scope"`
	SCP   json.RawMessage `json:"scp"`
}

// scopes returns the token's scopes from either claim.
func (c tokenClaims) scopes() []string {
	scopes := strings.Fields(c.Scope)
	var list []string
	if json.Unmarshal(c.SCP, &list) == nil {
		for _, s := range list {
			scopes = append(scopes, strings.Fields(s)...)
		}
	} else {
		var one string
		if json.Unmarshal(c.SCP, &one) == nil {
			scopes = append(scopes, strings.Fields(one)...)
		}
	}
	return scopes
}

func (v *jwtVerifier) get(ctx context.Context) (*oidc.IDTokenVerifier, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.verifier != nil {
		return v.verifier, nil
	}
	// The issuer's metadata and keys may be redirected, but not inside
	// the network.
	client := httpexec.GuardRedirects(v.opts.HTTPClient)
	jwksURL := v.opts.JWKSURL
	if jwksURL == "" {
		var err error
		if jwksURL, err = discover(ctx, v.opts.Issuer, client); err != nil {
			return nil, err
		}
	}
	// The key set outlives the request that first needs it: it fetches
	// keys again when a token names one it does not hold, within a rate.
	keys := newKeySet(jwksURL, client)
	audience := v.opts.Audience
	if audience == "" {
		audience = v.opts.Resource
	}
	v.verifier = oidc.NewVerifier(v.opts.Issuer, keys, &oidc.Config{ClientID: audience})
	return v.verifier, nil
}

// discover returns the jwks_uri of the issuer's authorization server
// metadata, read at the places the MCP specification lists: OAuth
// metadata (RFC 8414) first, then OpenID Connect discovery. Only the
// issuer and the keys matter to a resource server; the metadata's other
// members are the client's concern.
func discover(ctx context.Context, issuer string, client *http.Client) (string, error) {
	u, err := url.Parse(issuer)
	if err != nil {
		return "", errors.Errorf(errors.InvalidArgument, "issuer %q: %w", issuer, err)
	}
	path := strings.Trim(u.Path, "/")
	candidates := []string{"/.well-known/oauth-authorization-server", "/.well-known/openid-configuration"}
	if path != "" {
		candidates = []string{
			"/.well-known/oauth-authorization-server/" + path,
			"/.well-known/openid-configuration/" + path,
			"/" + path + "/.well-known/openid-configuration",
		}
	}
	var problems []string
	for _, p := range candidates {
		where := (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: p}).String()
		meta, err := fetchMetadata(ctx, client, where)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case meta.Issuer != issuer:
			problems = append(problems, fmt.Sprintf("%s names issuer %q", where, meta.Issuer))
		case meta.JWKSURI == "":
			problems = append(problems, where+" has no jwks_uri")
		default:
			return meta.JWKSURI, nil
		}
	}
	return "", errors.Errorf(errors.Unavailable, "discover the keys of issuer %s: %s", issuer, strings.Join(problems, "; "))
}

// maxMetadataBytes bounds an authorization server's metadata document.
const maxMetadataBytes = 1 << 20

func fetchMetadata(ctx context.Context, client *http.Client, where string) (*oauthex.AuthServerMeta, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, where, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: %s", where, resp.Status)
	}
	var meta oauthex.AuthServerMeta
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxMetadataBytes)).Decode(&meta); err != nil {
		return nil, fmt.Errorf("%s: %w", where, err)
	}
	return &meta, nil
}

// verify checks a JWT access token and returns what it grants.
func (v *jwtVerifier) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	verifier, err := v.get(ctx)
	if err != nil {
		return nil, err
	}
	parsed, err := verifier.Verify(ctx, token)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", auth.ErrInvalidToken, err)
	}
	var claims tokenClaims
	if err := parsed.Claims(&claims); err != nil {
		return nil, fmt.Errorf("%w: %w", auth.ErrInvalidToken, err)
	}
	scopes := claims.scopes()
	return &auth.TokenInfo{
		Scopes: scopes, Expiration: parsed.Expiry, UserID: parsed.Subject,
		Extra: map[string]any{grantKey: v.opts.grantOf(scopes)},
	}, nil
}

// verifiedToken carries a token's information from requireToken to the
// SDK's middleware, which puts it where MCP handlers find it.
type verifiedToken struct{}

// requireToken answers requests without a valid token with 401, and
// tools/call requests for a tool the token's scopes do not cover with
// 403 insufficient_scope, each with the WWW-Authenticate challenge that
// leads a client to the protected-resource metadata.
func (s *Server) requireToken(opts HTTPOptions, next http.Handler) http.Handler {
	var jwts *jwtVerifier
	metadataURL := ""
	if opts.OAuth != nil {
		jwts = &jwtVerifier{opts: opts.OAuth}
		metadataURL = opts.OAuth.MetadataURL()
		s.oauthFilter.Do(func() { s.mcp.AddReceivingMiddleware(s.enforceGrant) })
	}
	verifyToken := func(ctx context.Context, token string) (*auth.TokenInfo, error) {
		if len(opts.BearerTokens) > 0 {
			if info, err := staticTokens(opts.BearerTokens)(ctx, token, nil); err == nil {
				return info, nil
			}
		}
		if jwts == nil {
			return nil, auth.ErrInvalidToken
		}
		return jwts.verify(ctx, token)
	}
	challenge := func(w http.ResponseWriter, params ...string) {
		if metadataURL != "" {
			params = append([]string{fmt.Sprintf("resource_metadata=%q", metadataURL)}, params...)
		}
		value := "Bearer"
		if len(params) > 0 {
			value += " " + strings.Join(params, ", ")
		}
		w.Header().Set("WWW-Authenticate", value)
	}
	// The SDK's middleware stores the information requireToken found, so
	// that the streamable handler binds sessions to the token's subject
	// and handlers see the token.
	inner := auth.RequireBearerToken(func(ctx context.Context, _ string, _ *http.Request) (*auth.TokenInfo, error) {
		if info, ok := ctx.Value(verifiedToken{}).(*auth.TokenInfo); ok {
			return info, nil
		}
		return nil, auth.ErrInvalidToken
	}, &auth.RequireBearerTokenOptions{AllowMissingExpiration: true})(next)

	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fields := strings.Fields(r.Header.Get("Authorization"))
		if len(fields) != 2 || !strings.EqualFold(fields[0], "bearer") {
			challenge(w)
			http.Error(w, "missing bearer token", http.StatusUnauthorized)
			return
		}
		info, err := verifyToken(r.Context(), fields[1])
		switch {
		case errors.Is(err, auth.ErrInvalidToken):
			challenge(w, `error="invalid_token"`, `error_description="the access token is invalid or expired"`)
			http.Error(w, "invalid bearer token", http.StatusUnauthorized)
			return
		case err != nil:
			s.logger.Warn("bearer token not verified", "error", err)
			http.Error(w, "cannot verify the bearer token now", http.StatusServiceUnavailable)
			return
		}
		if g, ok := info.Extra[grantKey].(*grant); ok && r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "cannot read the request body", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			for _, tool := range calledTools(body) {
				if !g.allows(s, tool) {
					params := []string{`error="insufficient_scope"`}
					if scopes := opts.OAuth.scopesFor(s, tool); len(scopes) > 0 {
						params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
					}
					params = append(params, fmt.Sprintf("error_description=%q", "the token's scopes do not allow "+tool))
					challenge(w, params...)
					http.Error(w, "insufficient scope for "+tool, http.StatusForbidden)
					return
				}
			}
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedToken{}, info)))
	})
}

// calledTools returns the names of the tools that the tools/call requests
// of a JSON-RPC message (or batch) call. A body that is not JSON-RPC gives
// none: the MCP handler answers it.
func calledTools(body []byte) []string {
	type call struct {
		Method string `json:"method"`
		Params struct {
			Name string `json:"name"`
		} `json:"params"`
	}
	var calls []call
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		if json.Unmarshal(trimmed, &calls) != nil {
			return nil
		}
	} else {
		var one call
		if json.Unmarshal(trimmed, &one) != nil {
			return nil
		}
		calls = []call{one}
	}
	var tools []string
	for _, c := range calls {
		if c.Method == "tools/call" {
			tools = append(tools, c.Params.Name)
		}
	}
	return tools
}

// enforceGrant lists only the tools a token's grant covers, and refuses
// calls of the others: the same rule as requireToken's, for every way a
// request may reach the server. The upstreams' resources, prompts and
// completions need the grant of run_tool (see upstreamMethod).
func (s *Server) enforceGrant(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra == nil || extra.TokenInfo == nil {
			return next(ctx, method, req)
		}
		g, ok := extra.TokenInfo.Extra[grantKey].(*grant)
		if !ok {
			return next(ctx, method, req)
		}
		if call, isCall := req.(*mcp.CallToolRequest); isCall && !g.allows(s, call.Params.Name) {
			return nil, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s", call.Params.Name)
		}
		if upstreamMethod(method) && !g.allows(s, ToolRun) {
			// The upstreams' resources, prompts and completions are read
			// from the upstreams as run_tool runs their tools: they need
			// its scope. Without it, their lists are empty.
			switch method {
			case "resources/list":
				return &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}, nil
			case "resources/templates/list":
				return &mcp.ListResourceTemplatesResult{ResourceTemplates: []*mcp.ResourceTemplate{}}, nil
			case "prompts/list":
				return &mcp.ListPromptsResult{Prompts: []*mcp.Prompt{}}, nil
			}
			return nil, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s: the upstreams' resources and prompts need the scope of %s", method, ToolRun)
		}
		res, err := next(ctx, method, req)
		if list, isList := res.(*mcp.ListToolsResult); isList && err == nil {
			list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !g.allows(s, t.Name) })
		}
		return res, err
	}
}

// upstreamMethod reports the methods that reach the upstreams' resources,
// prompts and completions.
func upstreamMethod(method string) bool {
	return strings.HasPrefix(method, "resources/") || strings.HasPrefix(method, "prompts/") || method == "completion/complete"
}
