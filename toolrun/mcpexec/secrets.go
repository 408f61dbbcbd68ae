package mcpexec

import (
	"encoding/json"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun"
)

// A server's errors, and the lines of its standard error, reach a model:
// they must not carry the secrets the server is given. Those are known
// from its configuration; each is replaced by [toolrun.Masked].

// secrets returns the secrets a server is given, parent being the
// environment of the current process (as os.Environ returns it): for a
// command, those of its environment and arguments
// ([toolrun.ProcessSecrets]); for a URL, those of the URL and its headers
// ([toolrun.URLSecrets]).
func (c *ServerConfig) secrets(parent []string, goos string) []string {
	if c.Command != "" {
		return toolrun.ProcessSecrets(c.environ(parent, goos), c.Args)
	}
	return toolrun.URLSecrets(c.URL, c.Headers)
}

// stderrRedaction returns the redaction of a process's standard error:
// the server's secrets, and any credential a line writes after "Bearer",
// "Basic" or "token", each replaced by [toolrun.Masked].
func stderrRedaction(rd *toolrun.Redactor) func(string) string {
	return func(line string) string {
		masked, _ := toolrun.SecretMasker{}.Mask("", rd.Redact(line)).(string)
		return masked
	}
}

// redacted returns e without the server's secrets.
func (s *server) redacted(e *errors.Error) *errors.Error {
	var r *errors.Error
	if errors.As(s.redact.RedactError(e), &r) {
		return r
	}
	return e
}

// redactValue returns a JSON value (a log message's data) without the
// server's secrets; a value that is no longer JSON once redacted (a
// secret that was a number) is replaced whole.
func (s *server) redactValue(v any) any {
	if s.redact == nil {
		return v
	}
	raw, err := json.Marshal(v)
	if err != nil {
		return v
	}
	red := s.redact.Redact(string(raw))
	if red == string(raw) {
		return v
	}
	var out any
	if json.Unmarshal([]byte(red), &out) != nil {
		return toolrun.Masked
	}
	return out
}
