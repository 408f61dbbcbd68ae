package oauth

import (
	"bytes"
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
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

// Options make an MCP endpoint an OAuth 2.1 resource server, as the MCP
// authorization specification asks: clients present access tokens that an
// authorization server issued for this server, and the token's scopes say
// which meta-tools they may call.
//
// Access tokens must be JWTs signed with one of the issuer's keys, naming
// the issuer ("iss"), this server ("aud": Audience, or Resource when it is
// empty) and an expiry ("exp"); a "nbf" in the future is refused. The
// keys come from the issuer's JSON Web Key Set, found in its OAuth or
// OpenID metadata (or at JWKSURL); they are cached, and fetched again
// when a token names a key the cache does not hold, so that the issuer
// may rotate its keys.
type Options struct {
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
	// all its scopes together. Tools other than meta-tools (passed
	// through from the catalogue) count as run_tool: a token that may
	// call run_tool may call them.
	Scopes map[string][]string
	// HTTPClient fetches the issuer's metadata and keys; the default is
	// [http.DefaultClient].
	HTTPClient *http.Client
}

// metadataPath is the well-known path of protected-resource metadata
// (RFC 9728).
const metadataPath = "/.well-known/oauth-protected-resource"

// MetadataPaths returns the paths at which [Options.MetadataHandler]
// should be mounted on the server's root: the well-known path with the
// resource's path appended (where RFC 9728 puts it, and where MCP clients
// look first), and the bare well-known path (where they look next).
func (o *Options) MetadataPaths() []string {
	paths := []string{metadataPath}
	if u, err := url.Parse(o.Resource); err == nil && strings.Trim(u.Path, "/") != "" {
		paths = append([]string{metadataPath + "/" + strings.Trim(u.Path, "/")}, paths...)
	}
	return paths
}

// MetadataURL returns the URL of the protected-resource metadata, which
// 401 and 403 answers name in their WWW-Authenticate header.
func (o *Options) MetadataURL() string {
	u, err := url.Parse(o.Resource)
	if err != nil {
		return ""
	}
	return (&url.URL{Scheme: u.Scheme, Host: u.Host, Path: o.MetadataPaths()[0]}).String()
}

// Metadata returns the protected-resource metadata (RFC 9728): the
// resource, its authorization server and the scopes it knows.
func (o *Options) Metadata() *oauthex.ProtectedResourceMetadata {
	return &oauthex.ProtectedResourceMetadata{
		Resource:               o.Resource,
		AuthorizationServers:   []string{o.Issuer},
		ScopesSupported:        o.scopeNames(),
		BearerMethodsSupported: []string{"header"},
	}
}

// MetadataHandler serves the protected-resource metadata document.
func (o *Options) MetadataHandler() http.Handler {
	return auth.ProtectedResourceMetadataHandler(o.Metadata())
}

func (o *Options) scopeNames() []string {
	names := make([]string, 0, len(o.Scopes))
	for s := range o.Scopes {
		names = append(names, s)
	}
	sort.Strings(names)
	return names
}

// Tools say whose scope covers what a request reaches.
type Tools struct {
	// Meta reports whether a tool is a meta-tool, which scopes name as
	// it is.
	Meta func(tool string) bool
	// Run is the meta-tool whose scope covers every other tool (those
	// passed through from the catalogue, which it would run) and the
	// upstreams' resources, prompts and completions.
	Run string
}

// grant is the set of tools a token may call.
type grant struct {
	tools Tools
	all   bool
	names map[string]bool
}

// allows reports whether the grant covers the tool a tools/call names.
func (g *grant) allows(tool string) bool {
	if g.all {
		return true
	}
	if !g.tools.Meta(tool) {
		tool = g.tools.Run
	}
	return g.names[tool]
}

// grantOf returns the tools that scopes give.
func (o *Options) grantOf(tools Tools, scopes []string) *grant {
	g := &grant{tools: tools, names: map[string]bool{}}
	for _, scope := range scopes {
		for _, tool := range o.Scopes[scope] {
			if tool == "*" {
				g.all = true
			}
			g.names[tool] = true
		}
	}
	return g
}

// scopesFor returns the scopes that would let a token call tool, for the
// scope parameter of an insufficient_scope answer.
func (o *Options) scopesFor(tools Tools, tool string) []string {
	var scopes []string
	for _, scope := range o.scopeNames() {
		if o.grantOf(tools, []string{scope}).allows(tool) {
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
	opts  *Options
	tools Tools

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
	algs := make([]string, len(signingAlgorithms))
	for i, alg := range signingAlgorithms {
		algs[i] = string(alg)
	}
	// The verifier accepts RS256 alone unless told otherwise; the key set
	// has checked the signature with any of the algorithms already.
	v.verifier = oidc.NewVerifier(v.opts.Issuer, keys, &oidc.Config{ClientID: audience, SupportedSigningAlgs: algs})
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
		Extra: map[string]any{grantKey: v.opts.grantOf(v.tools, scopes)},
	}, nil
}

// verifiedToken carries a token's information from [Guard.Handler] to the
// SDK's middleware, which puts it where MCP handlers find it.
type verifiedToken struct{}

// BearerToken is a static token HTTP clients may present, and the name
// of the clients that hold it.
type BearerToken struct {
	// Name, when set, names the requests the token authenticates: their
	// caller's subject is [SubjectOf] it, which the policies, the audit
	// log and the binding of sessions and states see. Requests with an
	// unnamed token have no subject.
	Name string
	// Token is the secret itself.
	Token string
}

// SubjectOf is the subject of the requests a token named name
// authenticates: the name behind "token:", so that it is never taken for
// the subject of an OAuth access token.
func SubjectOf(name string) string {
	if name == "" {
		return ""
	}
	return "token:" + name
}

// Guard authenticates the requests of an MCP endpoint: with static bearer
// tokens, and with OAuth access tokens when it has [Options].
type Guard struct {
	bearer      []BearerToken
	opts        *Options // nil: static tokens only
	tools       Tools
	jwts        *jwtVerifier
	metadataURL string
	logger      *slog.Logger
}

// NewGuard returns a guard accepting the static bearer tokens and, when
// opts is not nil, the access tokens opts describe, whose scopes cover
// tools as tools say.
func NewGuard(bearer []BearerToken, opts *Options, tools Tools, logger *slog.Logger) *Guard {
	g := &Guard{bearer: bearer, opts: opts, tools: tools, logger: logger}
	if opts != nil {
		g.jwts = &jwtVerifier{opts: opts, tools: tools}
		g.metadataURL = opts.MetadataURL()
	}
	return g
}

// verify returns what a token grants, or an error wrapping
// auth.ErrInvalidToken when it is none of the accepted ones.
func (g *Guard) verify(ctx context.Context, token string) (*auth.TokenInfo, error) {
	if len(g.bearer) > 0 {
		if info, err := staticTokens(g.bearer)(ctx, token, nil); err == nil {
			return info, nil
		}
	}
	if g.jwts == nil {
		return nil, auth.ErrInvalidToken
	}
	return g.jwts.verify(ctx, token)
}

// challenge sets the WWW-Authenticate header that leads a client to the
// protected-resource metadata.
func (g *Guard) challenge(w http.ResponseWriter, params ...string) {
	if g.metadataURL != "" {
		params = append([]string{fmt.Sprintf("resource_metadata=%q", g.metadataURL)}, params...)
	}
	value := "Bearer"
	if len(params) > 0 {
		value += " " + strings.Join(params, ", ")
	}
	w.Header().Set("WWW-Authenticate", value)
}

// Handler answers requests without a valid token with 401, and
// tools/call requests for a tool the token's scopes do not cover with
// 403 insufficient_scope, each with the WWW-Authenticate challenge that
// leads a client to the protected-resource metadata. The MCP server
// behind next must also hold requests to the token's scopes with
// [EnforceGrants], for the requests that reach it another way.
func (g *Guard) Handler(next http.Handler) http.Handler {
	// The SDK's middleware stores the information the guard found, so
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
			g.challenge(w)
			http.Error(w, "missing bearer token", http.StatusUnauthorized)
			return
		}
		info, err := g.verify(r.Context(), fields[1])
		switch {
		case errors.Is(err, auth.ErrInvalidToken):
			g.challenge(w, `error="invalid_token"`, `error_description="the access token is invalid or expired"`)
			http.Error(w, "invalid bearer token", http.StatusUnauthorized)
			return
		case err != nil:
			g.logger.Warn("bearer token not verified", "error", err)
			http.Error(w, "cannot verify the bearer token now", http.StatusServiceUnavailable)
			return
		}
		if gr, ok := info.Extra[grantKey].(*grant); ok && r.Method == http.MethodPost {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				http.Error(w, "cannot read the request body", http.StatusBadRequest)
				return
			}
			r.Body = io.NopCloser(bytes.NewReader(body))
			for _, tool := range calledTools(body) {
				if !gr.allows(tool) {
					params := []string{`error="insufficient_scope"`}
					if scopes := g.opts.scopesFor(g.tools, tool); len(scopes) > 0 {
						params = append(params, fmt.Sprintf("scope=%q", strings.Join(scopes, " ")))
					}
					params = append(params, fmt.Sprintf("error_description=%q", "the token's scopes do not allow "+tool))
					g.challenge(w, params...)
					http.Error(w, "insufficient scope for "+tool, http.StatusForbidden)
					return
				}
			}
		}
		inner.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), verifiedToken{}, info)))
	})
}

// staticTokens verifies bearer tokens against a fixed list, comparing
// with every one in constant time, and gives the requests of a named
// token its subject.
func staticTokens(tokens []BearerToken) auth.TokenVerifier {
	return func(_ context.Context, token string, _ *http.Request) (*auth.TokenInfo, error) {
		match, name := 0, ""
		for _, t := range tokens {
			m := subtle.ConstantTimeCompare([]byte(t.Token), []byte(token))
			if m == 1 && match == 0 {
				name = t.Name
			}
			match |= m
		}
		if match == 0 {
			return nil, auth.ErrInvalidToken
		}
		return &auth.TokenInfo{UserID: SubjectOf(name)}, nil
	}
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

// EnforceGrants is the MCP middleware that lists only the tools the grant
// of a request's OAuth token covers, and refuses calls of the others: the
// rule of [Guard.Handler], for every way a request may reach the server.
// The upstreams' resources, prompts and completions need the grant of
// [Tools].Run. Requests without an OAuth token pass.
func EnforceGrants(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		extra := req.GetExtra()
		if extra == nil || extra.TokenInfo == nil {
			return next(ctx, method, req)
		}
		g, ok := extra.TokenInfo.Extra[grantKey].(*grant)
		if !ok {
			return next(ctx, method, req)
		}
		if call, isCall := req.(*mcp.CallToolRequest); isCall && !g.allows(call.Params.Name) {
			return nil, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s", call.Params.Name)
		}
		if upstreamMethod(method) && !g.allows(g.tools.Run) {
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
			return nil, errors.Errorf(errors.PermissionDenied, "the token's scopes do not allow %s: the upstreams' resources and prompts need the scope of %s", method, g.tools.Run)
		}
		res, err := next(ctx, method, req)
		if list, isList := res.(*mcp.ListToolsResult); isList && err == nil {
			list.Tools = slices.DeleteFunc(slices.Clone(list.Tools), func(t *mcp.Tool) bool { return !g.allows(t.Name) })
		}
		return res, err
	}
}

// upstreamMethod reports the methods that reach the upstreams' resources,
// prompts and completions.
func upstreamMethod(method string) bool {
	return strings.HasPrefix(method, "resources/") || strings.HasPrefix(method, "prompts/") || method == "completion/complete"
}

// Allows reports whether the token of a request, as [Guard.Handler] found
// it, lets it call tool: a static token and a request without one may
// call every tool, an OAuth access token those its scopes allow. The tool
// "*" asks for every tool at once (a scope of "*").
func Allows(info *auth.TokenInfo, tool string) bool {
	if info == nil {
		return true
	}
	g, ok := info.Extra[grantKey].(*grant)
	switch {
	case !ok:
		return true
	case tool == "*":
		return g.all
	}
	return g.allows(tool)
}
