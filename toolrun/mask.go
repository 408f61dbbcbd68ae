package toolrun

import (
	"encoding/json"
	"maps"
	"regexp"
	"slices"
	"strings"
)

// ArgumentMasker decides what events and logs show of a call's arguments.
// Mask receives the arguments (or what an earlier masker made of them) and
// returns what may be shown; it must not modify args, which are the call's
// own. Implementations are safe for concurrent use.
//
// A masker that panics fails the call with code [errors.Internal]. Since
// the secrets it hides are then unknown, its panic also stands in for any
// error of the call that the runner was to redact with it.
//
// Whatever the maskers return is rendered as compact JSON in [Event.Args].
// Without a masker, the arguments are shown as they are.
//
// What a masker hides is also removed from the messages of the errors the
// runner returns (from Run, RunStream, RunChain and RunBatch, and a
// result's ToolError) and so from every log line and event that shows
// them: see [SecretLister].
type ArgumentMasker interface {
	Mask(toolID string, args any) any
}

// ArgumentMaskerFunc adapts a function to the [ArgumentMasker] interface.
type ArgumentMaskerFunc func(toolID string, args any) any

// Mask calls f(toolID, args).
func (f ArgumentMaskerFunc) Mask(toolID string, args any) any { return f(toolID, args) }

// Masked is what [SecretMasker] puts in place of a secret.
const Masked = "***"

// SecretMasker is an [ArgumentMasker] that hides secrets: the value of
// every object member whose name suggests a secret (see [SecretMasker.Keys]),
// at any depth, and every bearer or basic credential found inside a string
// ("Authorization: Bearer abc" becomes "Authorization: Bearer ***").
type SecretMasker struct {
	// Keys are lower-case substrings of member names whose values are
	// secret. Nil means [DefaultSecretKeys].
	Keys []string
}

var (
	_ ArgumentMasker = SecretMasker{}
	_ SecretLister   = SecretMasker{}
)

// DefaultSecretKeys are the member-name fragments [SecretMasker] hides by
// default.
var DefaultSecretKeys = []string{
	"auth", "token", "secret", "password", "passwd", "api_key", "apikey", "api-key",
	"credential", "private_key", "cookie", "session",
}

var credentialInText = regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+([A-Za-z0-9._~+/=-]+)`)

// Mask implements [ArgumentMasker].
func (m SecretMasker) Mask(_ string, args any) any {
	keys := m.Keys
	if keys == nil {
		keys = DefaultSecretKeys
	}
	masked, _ := maskValue(args, keys)
	return masked
}

// Secrets implements [SecretLister]: the strings and numbers Mask hides,
// and for each the credential found inside it ("abc" of "Bearer abc"), so
// that an error quoting only the credential is redacted too.
func (m SecretMasker) Secrets(_ string, args any) []string {
	keys := m.Keys
	if keys == nil {
		keys = DefaultSecretKeys
	}
	return appendSecrets(nil, args, keys)
}

func appendSecrets(secrets []string, v any, keys []string) []string {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if isSecretKey(k, keys) {
				for _, leaf := range appendLeaves(nil, jsonValue(e)) {
					secrets = append(secrets, leaf)
					secrets = appendCredentials(secrets, leaf)
				}
			} else {
				secrets = appendSecrets(secrets, e, keys)
			}
		}
	case []any:
		for _, e := range x {
			secrets = appendSecrets(secrets, e, keys)
		}
	case string:
		secrets = appendCredentials(secrets, x)
	case json.RawMessage:
		var decoded any
		if json.Unmarshal(x, &decoded) != nil {
			return append(secrets, string(x))
		}
		secrets = appendSecrets(secrets, decoded, keys)
	}
	return secrets
}

// appendCredentials appends the credentials that s carries after a
// "Bearer", "Basic" or "token" word.
func appendCredentials(secrets []string, s string) []string {
	for _, m := range credentialInText.FindAllStringSubmatch(s, -1) {
		secrets = append(secrets, m[2])
	}
	return secrets
}

// maskValue returns v with its secrets masked, and whether it hid any.
// What has no secret is returned as it is, not copied: masking the
// arguments of a call that has none copies nothing.
func maskValue(v any, keys []string) (any, bool) {
	switch x := v.(type) {
	case map[string]any:
		var out map[string]any
		for k, e := range x {
			masked, changed := any(Masked), true
			if !isSecretKey(k, keys) {
				masked, changed = maskValue(e, keys)
			}
			if !changed {
				continue
			}
			if out == nil {
				out = maps.Clone(x)
			}
			out[k] = masked
		}
		if out == nil {
			return v, false
		}
		return out, true
	case []any:
		var out []any
		for i, e := range x {
			masked, changed := maskValue(e, keys)
			if !changed {
				continue
			}
			if out == nil {
				out = slices.Clone(x)
			}
			out[i] = masked
		}
		if out == nil {
			return v, false
		}
		return out, true
	case string:
		if !credentialInText.MatchString(x) {
			return v, false
		}
		return credentialInText.ReplaceAllString(x, "$1 "+Masked), true
	case json.RawMessage:
		var decoded any
		if json.Unmarshal(x, &decoded) != nil {
			return Masked, true
		}
		masked, _ := maskValue(decoded, keys)
		return masked, true
	}
	return v, false
}

func isSecretKey(key string, keys []string) bool {
	k := strings.ToLower(key)
	for _, fragment := range keys {
		if strings.Contains(k, fragment) {
			return true
		}
	}
	return false
}

// renderArgs returns the compact JSON shown for masked arguments.
func renderArgs(v any) string {
	raw, err := json.Marshal(v)
	if err != nil {
		return `"<arguments do not encode as JSON>"`
	}
	return string(raw)
}
