package httpexec

import (
	"context"
	"os"

	"github.com/metatools-go/metatools/errors"
)

// SecretSource looks up secrets by name: the bearer tokens, API keys,
// passwords and OAuth2 client secrets that [toolmodel.HTTPAuth] names.
//
// Secret returns the secret's value. It returns an error of code
// [errors.NotFound] when the secret does not exist; the executor reports
// that, and an empty value, as [errors.Unauthenticated] naming the secret.
// Any other error (a vault that cannot be reached, say) keeps its code, so
// that an [errors.Unavailable] one is retried. Errors must never contain a
// secret's value.
//
// Implementations are safe for concurrent use and honour ctx when they
// block. The executor asks for a secret on every call that needs it and
// keeps no value beyond the call, except inside its cache of OAuth2 tokens;
// a source that is slow to answer should cache what it fetches.
type SecretSource interface {
	Secret(ctx context.Context, name string) (string, error)
}

// SecretSourceFunc adapts a function to the [SecretSource] interface.
type SecretSourceFunc func(ctx context.Context, name string) (string, error)

// Secret calls f(ctx, name).
func (f SecretSourceFunc) Secret(ctx context.Context, name string) (string, error) {
	return f(ctx, name)
}

// EnvSecrets is a [SecretSource] reading environment variables: the secret
// named N is the variable Prefix+N. The zero value, the executor's default,
// reads the variable named like the secret.
type EnvSecrets struct {
	// Prefix is prepended to every secret name, such as "METATOOLS_".
	Prefix string
}

var _ SecretSource = EnvSecrets{}

// Secret implements [SecretSource]. An unset or empty variable is an error
// of code [errors.NotFound].
func (s EnvSecrets) Secret(_ context.Context, name string) (string, error) {
	v, ok := os.LookupEnv(s.Prefix + name)
	if !ok || v == "" {
		return "", errors.Errorf(errors.NotFound, "environment variable %s is not set", s.Prefix+name)
	}
	return v, nil
}

// MapSecrets is a [SecretSource] holding secrets in memory, keyed by name:
// for tests, and for secrets a program has loaded by other means. It must
// not be modified while the executor uses it.
type MapSecrets map[string]string

var _ SecretSource = MapSecrets(nil)

// Secret implements [SecretSource]. A missing name is an error of code
// [errors.NotFound].
func (m MapSecrets) Secret(_ context.Context, name string) (string, error) {
	v, ok := m[name]
	if !ok {
		return "", errors.Errorf(errors.NotFound, "no secret %q", name)
	}
	return v, nil
}
