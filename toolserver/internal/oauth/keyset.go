package oauth

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"golang.org/x/time/rate"
)

// Refreshes of an issuer's key set: a token naming a key the server does
// not hold makes it fetch the set again, at most keySetBurst times in a
// row and then once per keySetEvery, so that a stream of forged tokens
// naming unknown keys cannot make the server fetch the set for each one.
// A rotation of the issuer's keys is followed at once (the burst), and a
// later one within keySetEvery.
const (
	keySetEvery = 30 * time.Second
	keySetBurst = 3
	// maxKeySetBytes bounds a key set's document.
	maxKeySetBytes = 1 << 20
)

// signingAlgorithms are the JWS algorithms an access token may be signed
// with: the asymmetric ones of RFC 7518 and EdDSA, never "none" nor a
// shared secret.
var signingAlgorithms = []jose.SignatureAlgorithm{
	jose.RS256, jose.RS384, jose.RS512, jose.PS256, jose.PS384, jose.PS512,
	jose.ES256, jose.ES384, jose.ES512, jose.EdDSA,
}

// keySet verifies the signatures of an issuer's tokens with the keys it
// publishes at url (an oidc.KeySet).
type keySet struct {
	url     string
	client  *http.Client
	limiter *rate.Limiter

	mu   sync.Mutex // serializes fetches
	keys jose.JSONWebKeySet
}

func newKeySet(url string, client *http.Client) *keySet {
	return &keySet{url: url, client: client, limiter: rate.NewLimiter(rate.Every(keySetEvery), keySetBurst)}
}

// VerifySignature returns the payload of a JWT whose signature one of the
// issuer's keys verifies.
func (k *keySet) VerifySignature(ctx context.Context, token string) ([]byte, error) {
	jws, err := jose.ParseSigned(token, signingAlgorithms)
	if err != nil {
		return nil, fmt.Errorf("malformed token: %w", err)
	}
	kid := ""
	if len(jws.Signatures) > 0 {
		kid = jws.Signatures[0].Header.KeyID
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if payload, ok := verifyWith(jws, k.keys, kid); ok {
		return payload, nil
	}
	if !k.limiter.Allow() {
		return nil, fmt.Errorf("no key of the issuer verifies the token (key %q), and its key set was fetched too recently to fetch it again", kid)
	}
	keys, err := k.fetch(ctx)
	if err != nil {
		return nil, err
	}
	k.keys = keys
	if payload, ok := verifyWith(jws, k.keys, kid); ok {
		return payload, nil
	}
	return nil, fmt.Errorf("no key of the issuer verifies the token (key %q)", kid)
}

// verifyWith verifies jws with the keys of set named kid (every key when
// kid is empty).
func verifyWith(jws *jose.JSONWebSignature, set jose.JSONWebKeySet, kid string) ([]byte, bool) {
	keys := set.Keys
	if kid != "" {
		keys = set.Key(kid)
	}
	for _, key := range keys {
		if payload, err := jws.Verify(key); err == nil {
			return payload, true
		}
	}
	return nil, false
}

// fetch reads the key set.
func (k *keySet) fetch(ctx context.Context) (jose.JSONWebKeySet, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, k.url, nil)
	if err != nil {
		return jose.JSONWebKeySet{}, err
	}
	resp, err := k.client.Do(req)
	if err != nil {
		return jose.JSONWebKeySet{}, fmt.Errorf("fetch the issuer's keys: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return jose.JSONWebKeySet{}, fmt.Errorf("fetch the issuer's keys at %s: status %d", k.url, resp.StatusCode)
	}
	var set jose.JSONWebKeySet
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxKeySetBytes)).Decode(&set); err != nil {
		return jose.JSONWebKeySet{}, fmt.Errorf("read the issuer's keys at %s: %w", k.url, err)
	}
	return set, nil
}
