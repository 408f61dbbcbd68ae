package httpexec

import (
	"context"
	"crypto/sha256"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"sync"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
)

// secret looks up a secret for auth, remembering its value in used so
// that error messages can be scrubbed of it.
func (e *Executor) secret(ctx context.Context, name string, used *[]string) (string, error) {
	v, err := e.secrets.Secret(ctx, name)
	switch {
	case err == nil && v != "":
		*used = append(*used, v)
		return v, nil
	case err == nil || errors.CodeOf(err) == errors.NotFound:
		return "", errors.Opf(opExecute, errors.Unauthenticated, "secret %q is not available", name)
	case ctx.Err() != nil:
		return "", err // classified by the caller from the context
	default:
		return "", errors.WithOp(opExecute, fmt.Errorf("secret %q: %w", name, err))
	}
}

// authorize adds the credentials auth describes to req, whose query is q
// (an API key may go there).
func (e *Executor) authorize(ctx context.Context, auth *toolmodel.HTTPAuth, req *http.Request, q url.Values, used *[]string) error {
	if auth == nil || auth.Type == toolmodel.AuthNone {
		return nil
	}
	switch auth.Type {
	case toolmodel.AuthBearer, toolmodel.AuthAPIKey, toolmodel.AuthBasic:
		if auth.Secret == "" {
			return errors.Opf(opExecute, errors.InvalidArgument, "%s auth names no secret", auth.Type)
		}
	}
	switch auth.Type {
	case toolmodel.AuthBearer:
		token, err := e.secret(ctx, auth.Secret, used)
		if err != nil {
			return err
		}
		// net/http would refuse to send the header, as a transport
		// failure that a retry cannot cure.
		if err := checkHeader("Authorization", token); err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+token)
	case toolmodel.AuthAPIKey:
		if auth.Name == "" {
			return errors.Opf(opExecute, errors.InvalidArgument, "api_key auth names no header or query parameter")
		}
		key, err := e.secret(ctx, auth.Secret, used)
		if err != nil {
			return err
		}
		switch auth.In {
		case "", "header":
			if err := checkHeader(auth.Name, key); err != nil {
				return err
			}
			req.Header.Set(auth.Name, key)
		case "query":
			q.Set(auth.Name, key)
		default:
			return errors.Opf(opExecute, errors.InvalidArgument, "api_key auth: in %q must be header or query", auth.In)
		}
	case toolmodel.AuthBasic:
		password, err := e.secret(ctx, auth.Secret, used)
		if err != nil {
			return err
		}
		req.SetBasicAuth(auth.Username, password)
	case toolmodel.AuthOAuth2Client:
		token, err := e.tokens.token(ctx, e, auth, used)
		if err != nil {
			return err
		}
		token.SetAuthHeader(req)
	default:
		return errors.Opf(opExecute, errors.InvalidArgument, "auth type %q is unknown", auth.Type)
	}
	return nil
}

// tokenCache holds one OAuth2 client-credentials configuration and its
// current token per backend configuration (token URL, client ID, scopes,
// secret name), so that calls share a token until it expires.
//
// It does not use an oauth2.TokenSource: a token source keeps the context
// it was made with for all its future fetches, whereas here each fetch runs
// under the context of the call that needs it, so that a hung token
// endpoint cannot outlive the call.
type tokenCache struct {
	mu      sync.Mutex
	entries map[tokenKey]*tokenEntry
}

type tokenKey struct {
	tokenURL, clientID, scopes, secretName string
}

type tokenEntry struct {
	// lock is held (a value sent) while the entry is read or a token
	// fetched; a channel so that waiting honours the caller's context.
	lock chan struct{}
	// secretSum identifies the client secret config was made with, so
	// that a rotated secret gets a fresh configuration.
	secretSum [sha256.Size]byte
	config    *clientcredentials.Config
	token     *oauth2.Token
}

func keyOf(auth *toolmodel.HTTPAuth) tokenKey {
	return tokenKey{tokenURL: auth.TokenURL, clientID: auth.Username, scopes: strings.Join(auth.Scopes, " "), secretName: auth.Secret}
}

func (c *tokenCache) entry(key tokenKey) *tokenEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[tokenKey]*tokenEntry{}
	}
	en, ok := c.entries[key]
	if !ok {
		en = &tokenEntry{lock: make(chan struct{}, 1)}
		c.entries[key] = en
	}
	return en
}

// token returns a valid token for auth, fetching one when the cached one
// is missing or about to expire.
func (c *tokenCache) token(ctx context.Context, e *Executor, auth *toolmodel.HTTPAuth, used *[]string) (*oauth2.Token, error) {
	if auth.TokenURL == "" || auth.Username == "" || auth.Secret == "" {
		return nil, errors.Opf(opExecute, errors.InvalidArgument, "OAuth2 client credentials auth needs a token URL, a client ID (username) and a secret")
	}
	secret, err := e.secret(ctx, auth.Secret, used)
	if err != nil {
		return nil, err
	}
	en := c.entry(keyOf(auth))
	select {
	case en.lock <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-en.lock }()

	if sum := sha256.Sum256([]byte(secret)); en.config == nil || sum != en.secretSum {
		en.secretSum = sum
		en.config = &clientcredentials.Config{
			ClientID:     auth.Username,
			ClientSecret: secret,
			TokenURL:     auth.TokenURL,
			Scopes:       auth.Scopes,
		}
		en.token = nil
	}
	if en.token.Valid() {
		*used = append(*used, en.token.AccessToken)
		return en.token, nil
	}
	token, err := en.config.Token(context.WithValue(ctx, oauth2.HTTPClient, e.client))
	if err != nil {
		return nil, tokenError(ctx, auth.TokenURL, err, *used)
	}
	en.token = token
	*used = append(*used, token.AccessToken)
	return token, nil
}

// forget drops the cached token of auth, after the API refused it.
func (c *tokenCache) forget(auth *toolmodel.HTTPAuth) {
	c.mu.Lock()
	en := c.entries[keyOf(auth)]
	c.mu.Unlock()
	if en == nil {
		return
	}
	// Without waiting: a call fetching a new token right now will store a
	// fresh one anyway.
	select {
	case en.lock <- struct{}{}:
		en.token = nil
		<-en.lock
	default:
	}
}

// clear drops every cached configuration and token.
func (c *tokenCache) clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.entries = nil
}

// tokenError classifies a failure to fetch a token: the token endpoint's
// status as for any response, a network failure as unavailable, the
// context's error as is (the caller classifies it).
func tokenError(ctx context.Context, tokenURL string, err error, secrets []string) error {
	if ctx.Err() != nil {
		return err
	}
	where := "fetch OAuth2 token from " + toolrun.RedactURL(tokenURL)
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		msg := re.ErrorCode
		if re.ErrorDescription != "" {
			msg += ": " + re.ErrorDescription
		}
		if msg == "" {
			msg = errorMessage(re.Body)
		}
		code, retryable := statusCode(re.Response.StatusCode)
		if code == errors.InvalidArgument || code == errors.NotFound || code == errors.PermissionDenied {
			// The endpoint refused the client: to the API, the call is
			// not authenticated.
			code = errors.Unauthenticated
		}
		ae := errors.Opf(opExecute, code, "%s: HTTP %d: %s", where, re.Response.StatusCode, scrub(msg, secrets))
		ae.Retryable = retryable
		ae.Meta = map[string]string{"status": fmt.Sprint(re.Response.StatusCode)}
		return ae
	}
	return transportError(where, err)
}
