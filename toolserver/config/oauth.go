package config

import (
	"net/url"
	"slices"

	"github.com/metatools-go/metatools/toolserver"
)

// OAuth makes the HTTP server an OAuth 2.1 resource server (see
// [toolserver.OAuthOptions]): clients present JWT access tokens from
// Issuer, meant for Resource, and each token's scopes say which
// meta-tools it may call.
type OAuth struct {
	// Resource is the absolute URL of the MCP endpoint, as clients reach
	// it, such as "https://mcp.example.com/mcp".
	Resource string `yaml:"resource"`
	// Issuer is the authorization server's issuer identifier; its keys
	// are found in its OAuth or OpenID metadata.
	Issuer string `yaml:"issuer"`
	// Audience is the "aud" tokens must carry; it defaults to Resource.
	Audience string `yaml:"audience"`
	// JWKSURI, when set, is where the issuer's keys are, instead of the
	// jwks_uri of its metadata.
	JWKSURI string `yaml:"jwksUri"`
	// Scopes map each scope to the meta-tools it allows (or "*": every
	// tool). Passed-through tools count as run_tool.
	Scopes map[string][]string `yaml:"scopes"`
}

// Authenticated reports whether clients must authenticate: with a bearer
// token or an OAuth access token.
func (h HTTP) Authenticated() bool {
	return len(h.BearerTokens) > 0 || h.OAuth != nil
}

// Options returns the server options for the configuration.
func (o *OAuth) Options() *toolserver.OAuthOptions {
	return &toolserver.OAuthOptions{
		Resource: o.Resource, Issuer: o.Issuer, Audience: o.Audience, JWKSURL: o.JWKSURI, Scopes: o.Scopes,
	}
}

// metaTools are the tools a scope may allow.
var metaTools = []string{
	toolserver.ToolSearch, toolserver.ToolNamespaces, toolserver.ToolDescribe,
	toolserver.ToolExamples, toolserver.ToolRun, toolserver.ToolRunChain, "*",
}

// validate reports the problems of the section, at at, through add.
func (o *OAuth) validate(at keyPath, add func(at keyPath, format string, args ...any)) {
	if u, err := url.Parse(o.Resource); o.Resource == "" || err != nil || !isHTTPURL(o.Resource) || u.Fragment != "" {
		add(at.with("resource"), "%q must be the absolute http(s) URL of the MCP endpoint, without a fragment", o.Resource)
	}
	if u, err := url.Parse(o.Issuer); o.Issuer == "" || err != nil || !isHTTPURL(o.Issuer) || u.RawQuery != "" || u.Fragment != "" {
		add(at.with("issuer"), "%q must be an http(s) URL without a query or fragment", o.Issuer)
	}
	if o.JWKSURI != "" && !isHTTPURL(o.JWKSURI) {
		add(at.with("jwksUri"), "%q is not an http(s) URL", o.JWKSURI)
	}
	if len(o.Scopes) == 0 {
		add(at.with("scopes"), "must map at least one scope to the meta-tools it allows")
	}
	for _, scope := range sortedKeys(o.Scopes) {
		if !isScopeToken(scope) {
			add(at.with("scopes", scope), "%q is not a scope (printable ASCII, no space, quote or backslash)", scope)
		}
		if len(o.Scopes[scope]) == 0 {
			add(at.with("scopes", scope), "allows no tool")
		}
		for i, tool := range o.Scopes[scope] {
			if !slices.Contains(metaTools, tool) {
				add(at.with("scopes", scope, i), "%q is not a meta-tool (%v)", tool, metaTools)
			}
		}
	}
}

// isScopeToken reports whether s is a scope-token of RFC 6749 section
// 3.3: one or more of %x21 / %x23-5B / %x5D-7E.
func isScopeToken(s string) bool {
	if s == "" {
		return false
	}
	for i := range len(s) {
		c := s[i]
		if c < 0x21 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
