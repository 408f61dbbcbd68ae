package httpexec

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/toolmodel"
)

// defaultMaxRedirects is how many redirects a call follows when the
// client has no redirect policy of its own, as net/http's default.
const defaultMaxRedirects = 10

// credentialHeaders are headers that carry credentials whoever set them.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"}

// clientFor returns the client that sends a call of b: the executor's
// client with a redirect policy that never sends a Referer (the previous
// URL may hold an API key in its query), and that drops the backend's
// credentials when a redirect leaves the origin of the call's first
// request. The executor's client itself is left as it is; its own
// redirect policy, if any, still decides whether to follow.
func (e *Executor) clientFor(b *toolmodel.HTTPBackend, secrets []string) *http.Client {
	c := *e.client
	policy := e.client.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		req.Header.Del("Referer")
		if !sameOrigin(req.URL, via[0].URL) {
			dropCredentials(req, b, secrets)
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= defaultMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", defaultMaxRedirects)
		}
		return nil
	}
	return &c
}

// dropCredentials removes from req, about to go to another origin than
// the backend's, everything that may authenticate the call: the headers
// of the backend's auth and its static headers (which may hold a key of
// their own), cookies, the API key of the query, and any header or query
// parameter holding one of the call's secrets.
func dropCredentials(req *http.Request, b *toolmodel.HTTPBackend, secrets []string) {
	for _, name := range credentialHeaders {
		req.Header.Del(name)
	}
	for name := range b.Headers {
		req.Header.Del(name)
	}
	apiKeyParam := ""
	if a := b.Auth; a != nil && a.Type == toolmodel.AuthAPIKey {
		if a.In == "query" {
			apiKeyParam = a.Name
		} else {
			req.Header.Del(a.Name)
		}
	}
	for name, values := range req.Header {
		if slices.ContainsFunc(values, func(v string) bool { return holdsSecret(v, secrets) }) {
			delete(req.Header, name)
		}
	}
	q := req.URL.Query()
	changed := false
	for name, values := range q {
		if name == apiKeyParam || slices.ContainsFunc(values, func(v string) bool { return holdsSecret(v, secrets) }) {
			delete(q, name)
			changed = true
		}
	}
	if changed {
		req.URL.RawQuery = q.Encode()
	}
}

// holdsSecret reports whether s contains one of the secrets.
func holdsSecret(s string, secrets []string) bool {
	return slices.ContainsFunc(secrets, func(secret string) bool {
		return secret != "" && strings.Contains(s, secret)
	})
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (the default port of the scheme when none is written).
func sameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && portOf(a) == portOf(b)
}

func portOf(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	switch strings.ToLower(u.Scheme) {
	case "http":
		return "80"
	case "https":
		return "443"
	}
	return ""
}
