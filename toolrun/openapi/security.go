package openapi

import (
	"fmt"
	"net/url"
	"sort"
	"strings"

	"github.com/getkin/kin-openapi/openapi3"

	"github.com/metatools-go/metatools/toolmodel"
)

// Credentials says where the credentials of one security scheme of a
// document come from.
type Credentials struct {
	// Secret is the name of the secret holding the token, API key,
	// password or OAuth2 client secret, looked up by the executor's secret
	// source when a call is made. Empty means the default: the namespace
	// and the scheme's name in upper snake case, such as
	// "PETSTORE_API_KEY" for the scheme "api_key" of namespace "petstore".
	Secret string
	// Username is the basic-auth user name, or the OAuth2 client ID. It is
	// not secret: it is written in the tool's backend.
	Username string
}

// auth maps the security requirements that apply to an operation to the
// backend's authentication. It takes the first requirement it can map;
// one naming several schemes at once cannot be (a backend has one). It
// returns a note when the operation needs credentials it cannot send.
func (im *importer) auth(op *openapi3.Operation, base string) (*toolmodel.HTTPAuth, string) {
	reqs := im.doc.Security
	if op.Security != nil {
		reqs = *op.Security
	}
	var problems []string
	anonymous := false
	for _, req := range reqs {
		switch len(req) {
		case 0:
			anonymous = true
			continue
		case 1:
		default:
			names := make([]string, 0, len(req))
			for name := range req {
				names = append(names, name)
			}
			sort.Strings(names)
			problems = append(problems, fmt.Sprintf("schemes %s are required together, which is not supported", strings.Join(names, " and ")))
			continue
		}
		for name, scopes := range req {
			auth, problem := im.scheme(name, scopes, base)
			if auth != nil {
				return auth, ""
			}
			problems = append(problems, problem)
		}
	}
	if anonymous || len(problems) == 0 {
		return nil, ""
	}
	return nil, "calls are sent without credentials: " + strings.Join(problems, "; ")
}

// scheme maps one security scheme, used with the given OAuth2 scopes.
func (im *importer) scheme(name string, scopes []string, base string) (*toolmodel.HTTPAuth, string) {
	var ref *openapi3.SecuritySchemeRef
	if im.doc.Components != nil {
		ref = im.doc.Components.SecuritySchemes[name]
	}
	if ref == nil || ref.Value == nil {
		return nil, fmt.Sprintf("security scheme %q is not defined", name)
	}
	s := ref.Value
	creds := Credentials{}
	if im.cfg.credentials != nil {
		creds = im.cfg.credentials(name)
	}
	if creds.Secret == "" {
		creds.Secret = upperSnake(im.namespace, name)
	}
	bearer := &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: creds.Secret}
	switch strings.ToLower(s.Type) {
	case "apikey":
		if s.In != "header" && s.In != "query" {
			return nil, fmt.Sprintf("API key of scheme %q goes in %q, which is not supported", name, s.In)
		}
		return &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: creds.Secret, In: s.In, Name: s.Name}, ""
	case "http":
		switch strings.ToLower(s.Scheme) {
		case "bearer":
			return bearer, ""
		case "basic":
			if creds.Username == "" {
				return nil, fmt.Sprintf("basic auth of scheme %q needs a user name (see WithCredentials)", name)
			}
			return &toolmodel.HTTPAuth{Type: toolmodel.AuthBasic, Secret: creds.Secret, Username: creds.Username}, ""
		}
		return nil, fmt.Sprintf("HTTP auth scheme %q of scheme %q is not supported", s.Scheme, name)
	case "oauth2":
		if s.Flows != nil && s.Flows.ClientCredentials != nil && creds.Username != "" {
			tokenURL, err := resolveURL(s.Flows.ClientCredentials.TokenURL, base)
			if err != nil {
				return nil, fmt.Sprintf("token URL of scheme %q: %v", name, err)
			}
			return &toolmodel.HTTPAuth{Type: toolmodel.AuthOAuth2Client, Secret: creds.Secret, Username: creds.Username,
				TokenURL: tokenURL, Scopes: scopes}, ""
		}
		// Without a client ID, the secret holds an access token obtained
		// elsewhere (an authorization-code flow run by the user, say).
		return bearer, ""
	case "openidconnect":
		return bearer, ""
	}
	return nil, fmt.Sprintf("security scheme %q of type %q is not supported", name, s.Type)
}

// resolveURL resolves ref against base and requires an http(s) result.
func resolveURL(ref, base string) (string, error) {
	u, err := url.Parse(ref)
	if err != nil {
		return "", err
	}
	if !u.IsAbs() {
		b, err := url.Parse(base)
		if err != nil {
			return "", err
		}
		u = b.ResolveReference(u)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("%q is not an absolute http(s) URL", u)
	}
	return u.String(), nil
}
