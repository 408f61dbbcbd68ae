package httpexec

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strings"

	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// defaultMaxRedirects is how many redirects a call follows when the
// client has no redirect policy of its own, as net/http's default.
const defaultMaxRedirects = 10

// credentialHeaders are headers that carry credentials whoever set them.
var credentialHeaders = []string{"Authorization", "Proxy-Authorization", "Cookie", "Cookie2"}

// clientFor returns the client that sends a call of b: the executor's
// client with a redirect policy that never sends a Referer (the previous
// URL may hold an API key in its query), that drops the backend's
// credentials when a redirect leaves the origin of the call's first
// request, and that refuses a redirect from an API at a public address to
// an internal one ([InternalAddress]): the operator chose where the API
// is, not where its answers send the call. The executor's client itself
// is left as it is; its own redirect policy, if any, still decides
// whether to follow.
func (e *Executor) clientFor(b *toolmodel.HTTPBackend, secrets []string) *http.Client {
	c := GuardRedirects(e.client)
	guard := c.CheckRedirect
	c.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		req.Header.Del("Referer")
		if !sameOrigin(req.URL, via[0].URL) {
			dropCredentials(req, b, secrets)
		}
		return guard(req, via)
	}
	return c
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

// GuardRedirects returns a copy of c (http.DefaultClient when nil) whose
// redirect policy also refuses a redirect from a public address to an
// internal one ([InternalAddress]), as the executor's own calls do; c's
// policy, if any, still decides whether to follow. Clients that fetch
// what an operator configured (an OpenAPI document, an OAuth issuer's
// metadata and keys) use it, so that no answer sends them inside the
// network.
func GuardRedirects(c *http.Client) *http.Client {
	if c == nil {
		c = http.DefaultClient
	}
	guarded := *c
	policy := c.CheckRedirect
	guarded.CheckRedirect = func(req *http.Request, via []*http.Request) error {
		if !sameOrigin(req.URL, via[0].URL) {
			if err := checkRedirectTarget(req.Context(), via[0].URL, req.URL); err != nil {
				return err
			}
		}
		if policy != nil {
			return policy(req, via)
		}
		if len(via) >= defaultMaxRedirects {
			return fmt.Errorf("stopped after %d redirects", defaultMaxRedirects)
		}
		return nil
	}
	return &guarded
}

// checkRedirectTarget refuses a redirect from the origin of the call's
// first request to target, another origin, when target is at an internal
// address and the origin is not. The addresses are those the host names
// resolve to now; a name that does not resolve counts as public for the
// origin and fails the redirect for the target.
func checkRedirectTarget(ctx context.Context, origin, target *url.URL) error {
	if internal, _ := internalHost(ctx, origin.Hostname()); internal != "" {
		return nil
	}
	internal, err := internalHost(ctx, target.Hostname())
	switch {
	case err != nil:
		return fmt.Errorf("redirect to %s: %w", toolrun.RedactURL(target.String()), err)
	case internal != "":
		return fmt.Errorf("redirect to %s refused: it leaves the API's public address for %s", toolrun.RedactURL(target.String()), internal)
	}
	return nil
}

// internalHost returns the kind of internal address host is, or resolves
// to ("" for none).
func internalHost(ctx context.Context, host string) (string, error) {
	if addr, err := netip.ParseAddr(host); err == nil {
		return InternalAddress(addr), nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return "", err
	}
	for _, a := range addrs {
		if kind := InternalAddress(a); kind != "" {
			return kind, nil
		}
	}
	return "", nil
}
