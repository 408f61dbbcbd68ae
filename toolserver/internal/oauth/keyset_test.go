package oauth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"testing"

	"github.com/go-jose/go-jose/v4"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/time/rate"
)

// FuzzKeySetVerify verifies arbitrary tokens against a key set that holds
// one key and may not fetch: never a panic, and only a token signed by
// that key verifies.
func FuzzKeySetVerify(f *testing.F) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	require.NoError(f, err)
	signer, err := jose.NewSigner(jose.SigningKey{Algorithm: jose.ES256, Key: key}, (&jose.SignerOptions{}).WithHeader("kid", "k1"))
	require.NoError(f, err)
	signed, err := signer.Sign([]byte(`{"sub":"x"}`))
	require.NoError(f, err)
	good, err := signed.CompactSerialize()
	require.NoError(f, err)
	for _, seed := range []string{good, "", "a.b.c", "eyJhbGciOiJub25lIn0.e30.", good[:len(good)-4]} {
		f.Add(seed)
	}
	ks := &keySet{limiter: rate.NewLimiter(0, 0), keys: jose.JSONWebKeySet{Keys: []jose.JSONWebKey{{Key: &key.PublicKey, KeyID: "k1", Algorithm: "ES256"}}}}
	f.Fuzz(func(t *testing.T, token string) {
		payload, err := ks.VerifySignature(context.Background(), token)
		if err != nil {
			assert.Nil(t, payload)
			return
		}
		assert.JSONEq(t, `{"sub":"x"}`, string(payload), "only what the key signed verifies")
	})
}
