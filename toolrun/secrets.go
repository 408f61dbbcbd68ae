package toolrun

import (
	"net/url"
	"slices"
	"strconv"
	"strings"
)

// The secrets a component is given, found from how it is configured: an
// executor that holds them (a process's environment, a URL's key) redacts
// with them ([NewRedactor]) what it quotes from elsewhere.

// ProcessSecrets returns the secrets a process is given: the values of
// the variables of its environment and of its command-line flags whose
// names suggest a secret (GITHUB_TOKEN, OPENAI_API_KEY, --password, and
// the NAME=value arguments of "docker run -e"; the rule of
// [SecretMasker]), the credentials written inside any
// variable or argument ("Authorization: Bearer abc"), and the passwords
// of the URLs among them (a proxy's "http://user:password@host"). The XDG
// variables are the desktop session's directories and facts, never
// secrets, though some names hold "SESSION".
func ProcessSecrets(env, args []string) []string {
	var s secretSet
	for _, kv := range env {
		name, value, ok := strings.Cut(kv, "=")
		if ok && !strings.HasPrefix(strings.ToUpper(name), "XDG_") {
			s.add(name, value)
		}
	}
	for i, arg := range args {
		s.add("arg "+strconv.Itoa(i), arg)
		flag, isFlag := strings.CutPrefix(arg, "-")
		flag = strings.TrimPrefix(flag, "-")
		if name, value, ok := strings.Cut(flag, "="); ok {
			// --api-key=..., or a variable given as an argument
			// (docker run -e API_KEY=...).
			s.add("arg "+strconv.Itoa(i)+" "+name, value)
		} else if isFlag && i+1 < len(args) {
			s.add("arg "+strconv.Itoa(i+1)+" "+flag, args[i+1])
		}
	}
	return s.list(SecretMasker{})
}

// urlQuerySecretKeys are the fragments of the names of a URL's query
// parameters whose values are secrets: the masker's, and the "key" and
// "sig" of the APIs that take their key or signature in the URL.
var urlQuerySecretKeys = append(slices.Clone(DefaultSecretKeys), "key", "sig")

// URLSecrets returns the secrets of a URL and the headers sent with it: its URL's password and
// whole query, the values of the query's parameters whose names suggest a
// secret ("api_key", "key", "token", "sig"), and the values of its headers
// whose names suggest one ("Authorization", "X-API-Key"), with the
// credentials written inside any header.
func URLSecrets(rawURL string, headers map[string]string) []string {
	var query, named secretSet
	if u, err := url.Parse(rawURL); err == nil {
		if password, ok := u.User.Password(); ok {
			query.secrets = append(query.secrets, password)
		}
		if u.RawQuery != "" {
			query.secrets = append(query.secrets, u.RawQuery)
		}
		for name, values := range u.Query() {
			for i, v := range values {
				query.add(name+" "+strconv.Itoa(i), v)
			}
		}
	}
	for name, value := range headers {
		named.add(name, value)
	}
	return append(query.list(SecretMasker{Keys: urlQuerySecretKeys}), named.list(SecretMasker{})...)
}

// secretSet gathers named values, and the secrets found in them.
type secretSet struct {
	given   map[string]any
	secrets []string
}

// add records a named value, and the password of a URL it holds.
func (s *secretSet) add(name, value string) {
	if s.given == nil {
		s.given = map[string]any{}
	}
	s.given[name] = value
	if u, err := url.Parse(value); err == nil {
		if password, ok := u.User.Password(); ok {
			s.secrets = append(s.secrets, password)
		}
	}
}

// list returns the secrets: those added, and those masker finds in the
// named values, each once, and each line of a secret written on several
// lines (standard error is redacted line by line: a PEM key is searched
// for line by line).
func (s *secretSet) list(masker SecretMasker) []string {
	secrets := slices.Concat(s.secrets, masker.Secrets("", s.given))
	for _, secret := range secrets {
		if strings.Contains(secret, "\n") {
			for line := range strings.Lines(secret) {
				secrets = append(secrets, strings.TrimRight(line, "\r\n"))
			}
		}
	}
	slices.Sort(secrets)
	return slices.Compact(secrets)
}
