package toolrun

import (
	"encoding/json"
	"regexp"
	"strings"
)

// ArgumentMasker decides what events and logs show of a call's arguments.
// Mask receives the arguments (or what an earlier masker made of them) and
// returns what may be shown; it must not modify args, which are the call's
// own. Implementations are safe for concurrent use.
//
// Whatever the maskers return is rendered as compact JSON in [Event.Args].
// Without a masker, the arguments are shown as they are.
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

var _ ArgumentMasker = SecretMasker{}

// DefaultSecretKeys are the member-name fragments [SecretMasker] hides by
// default.
var DefaultSecretKeys = []string{
	"auth", "token", "secret", "password", "passwd", "api_key", "apikey", "api-key",
	"credential", "private_key", "cookie", "session",
}

var credentialInText = regexp.MustCompile(`(?i)\b(bearer|basic|token)\s+[A-Za-z0-9._~+/=-]+`)

// Mask implements [ArgumentMasker].
func (m SecretMasker) Mask(_ string, args any) any {
	keys := m.Keys
	if keys == nil {
		keys = DefaultSecretKeys
	}
	return maskValue(args, keys)
}

func maskValue(v any, keys []string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if isSecretKey(k, keys) {
				out[k] = Masked
			} else {
				out[k] = maskValue(e, keys)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = maskValue(e, keys)
		}
		return out
	case string:
		return credentialInText.ReplaceAllString(x, "$1 "+Masked)
	case json.RawMessage:
		var decoded any
		if json.Unmarshal(x, &decoded) != nil {
			return Masked
		}
		return maskValue(decoded, keys)
	}
	return v
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
