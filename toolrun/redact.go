package toolrun

import (
	"encoding/json"
	"maps"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/metatools-go/metatools/errors"
)

// SecretLister is an optional interface of an [ArgumentMasker] or of an
// [Extension]: Secrets returns the values that its masking hides in args
// (what Mask or MaskArguments would replace), so that the runner removes
// them from error messages and log lines as well as from the arguments
// shown in events. It must not modify args and is safe for concurrent use.
//
// A masker or extension without it still gets its secrets redacted: the
// runner compares the arguments before and after masking and treats
// every string or number the masking changed (the changed part of a
// string) as a secret. Implement SecretLister when a secret may also
// appear in another form, as [SecretMasker] does for the credential inside
// an "Authorization: Bearer ..." value.
type SecretLister interface {
	Secrets(toolID string, args any) []string
}

// MinSecretLen is the length below which a secret value is not searched
// for in error messages and log lines: shorter strings would hide ordinary
// words and numbers. Such values are still masked in the arguments.
const MinSecretLen = 4

// RedactURL returns rawURL fit for an error message or a log line:
// without its user info, query and fragment, which may hold credentials
// (a password, an API key in the query). A URL that does not parse gives
// "(invalid URL)", since where its secrets lie cannot be known; so does
// one whose redacted form would not read back as the same URL without
// them (an empty authority before a path that starts with "//@").
func RedactURL(rawURL string) string {
	u, err := url.Parse(rawURL)
	if err != nil {
		return "(invalid URL)"
	}
	u.User, u.RawQuery, u.ForceQuery, u.Fragment, u.RawFragment = nil, "", false, "", ""
	redacted := u.String()
	if back, err := url.Parse(redacted); err != nil || back.User != nil {
		return "(invalid URL)"
	}
	return redacted
}

// Redactor replaces secrets by [Masked] in text. The runner redacts the
// errors of a call with the secrets its maskers find in the call's
// arguments; an executor that holds secrets of its own (the credentials
// in a server's environment) redacts what it quotes from elsewhere, such
// as a process's output, with one too. A nil *Redactor changes nothing.
// It is safe for concurrent use.
type Redactor struct {
	replacer *strings.Replacer
}

// NewRedactor returns the Redactor of the given secrets, or nil when none
// is long enough to be searched for ([MinSecretLen]). Each secret is also
// searched for in its quoted forms (JSON and Go escapes), as error
// messages quote values.
func NewRedactor(secrets []string) *Redactor {
	var forms []string
	for _, s := range secrets {
		if len(s) < MinSecretLen {
			continue
		}
		forms = append(forms, s)
		if raw, err := json.Marshal(s); err == nil {
			forms = append(forms, string(raw[1:len(raw)-1]))
		}
		if q := strconv.Quote(s); len(q) >= 2 {
			forms = append(forms, q[1:len(q)-1])
		}
	}
	if len(forms) == 0 {
		return nil
	}
	// Longest first: the replacer tries its patterns in order at each
	// position, so a whole value is hidden before a part of it.
	slices.SortFunc(forms, func(a, b string) int {
		if len(a) != len(b) {
			return len(b) - len(a)
		}
		return strings.Compare(a, b) // equal forms side by side, for Compact
	})
	forms = slices.Compact(forms)
	pairs := make([]string, 0, 2*len(forms))
	for _, f := range forms {
		pairs = append(pairs, f, Masked)
	}
	return &Redactor{replacer: strings.NewReplacer(pairs...)}
}

// Redact returns s with every secret replaced by [Masked].
func (rd *Redactor) Redact(s string) string {
	if rd == nil {
		return s
	}
	return rd.replacer.Replace(s)
}

// RedactError returns err with a message free of secrets. An
// *errors.Error comes back as a copy, an *errors.Error too, with its
// cause and metadata redacted, so that errors.As finds a redacted one;
// the errors of a join are redacted one by one; any other error is
// wrapped in one whose message is redacted and which unwraps to the
// original, so that errors.Is and errors.As keep working. An error
// without secrets comes back as it is.
func (rd *Redactor) RedactError(err error) error {
	if rd == nil || err == nil {
		return err
	}
	msg := err.Error()
	red := rd.Redact(msg)
	if red == msg {
		return err
	}
	switch x := err.(type) { //nolint:errorlint // the top error's own type decides how it is rebuilt
	case *errors.Error:
		return rd.coded(x)
	case interface{ Unwrap() []error }:
		parts := x.Unwrap()
		out := make([]error, len(parts))
		for i, p := range parts {
			out[i] = rd.RedactError(p)
		}
		return &redactedJoin{msg: red, errs: out}
	}
	return &redactedError{msg: red, err: err}
}

// coded returns a copy of e whose cause and metadata are redacted; e
// itself is left as it is.
func (rd *Redactor) coded(e *errors.Error) *errors.Error {
	if rd == nil || e == nil {
		return e
	}
	c := *e
	c.Err = rd.RedactError(e.Err)
	cloned := false
	for k, v := range e.Meta {
		if red := rd.Redact(v); red != v {
			if !cloned {
				c.Meta, cloned = maps.Clone(e.Meta), true
			}
			c.Meta[k] = red
		}
	}
	return &c
}

// redactedError is an error whose message had secrets removed; it unwraps
// to the original error.
type redactedError struct {
	msg string
	err error
}

func (e *redactedError) Error() string { return e.msg }
func (e *redactedError) Unwrap() error { return e.err }

// redactedJoin is a multiple error whose message and errors had secrets
// removed.
type redactedJoin struct {
	msg  string
	errs []error
}

func (e *redactedJoin) Error() string   { return e.msg }
func (e *redactedJoin) Unwrap() []error { return e.errs }

// masking reports whether e may mask arguments: any extension but the
// adapters of the single hooks that do not. Without one, the runner
// redacts nothing and pays nothing for it.
func masking(e Extension) bool {
	switch e.(type) {
	case hookExtension, preCallExtension, postCallExtension, authExtension, publishExtension:
		return false
	}
	return true
}

// redactorFor returns the redactor of the secrets the runner's maskers
// hide in args, or nil when there is none. Each masker is asked about the
// arguments as the maskers before it left them, as in [Runner.maskedArgs].
// The error is a masker's panic: the runner redacts the errors it
// returns, a panic's included, so that this is where it must stop.
func (r *Runner) redactorFor(toolID string, args map[string]any) (_ *Redactor, err error) {
	if !r.masks {
		return nil, nil
	}
	defer recoverPanic(&err)
	var secrets []string
	var shown any = args
	for _, e := range r.extensions {
		if !masking(e) {
			continue
		}
		next := e.MaskArguments(toolID, shown)
		if l, ok := e.(SecretLister); ok {
			secrets = append(secrets, l.Secrets(toolID, shown)...)
		} else {
			secrets = appendHidden(secrets, shown, next)
		}
		shown = next
	}
	return NewRedactor(secrets), nil
}

// appendHidden appends to secrets what masking turned before into after:
// every string or number leaf of before that after changes (for a string
// still present, the part between the prefix and suffix the two share).
func appendHidden(secrets []string, before, after any) []string {
	before, after = jsonValue(before), jsonValue(after)
	switch b := before.(type) {
	case map[string]any:
		a, ok := after.(map[string]any)
		if !ok {
			return appendLeaves(secrets, b)
		}
		for k, v := range b {
			secrets = appendHidden(secrets, v, a[k])
		}
	case []any:
		a, ok := after.([]any)
		if !ok || len(a) != len(b) {
			return appendLeaves(secrets, b)
		}
		for i, v := range b {
			secrets = appendHidden(secrets, v, a[i])
		}
	case string:
		a, ok := after.(string)
		if !ok {
			return append(secrets, b)
		}
		if a == b {
			return secrets
		}
		prefix := commonPrefix(a, b)
		a, b = a[prefix:], b[prefix:]
		suffix := commonSuffix(a, b)
		return append(secrets, b[:len(b)-suffix])
	case float64:
		if a, ok := after.(float64); !ok || a != b {
			return appendLeaves(secrets, b)
		}
	}
	return secrets
}

// appendLeaves appends every string and number of a JSON value.
func appendLeaves(secrets []string, v any) []string {
	switch x := v.(type) {
	case map[string]any:
		for _, e := range x {
			secrets = appendLeaves(secrets, e)
		}
	case []any:
		for _, e := range x {
			secrets = appendLeaves(secrets, e)
		}
	case string:
		secrets = append(secrets, x)
	case float64:
		secrets = append(secrets, strconv.FormatFloat(x, 'f', -1, 64))
	case json.Number:
		secrets = append(secrets, string(x))
	}
	return secrets
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func commonSuffix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[len(a)-1-n] == b[len(b)-1-n] {
		n++
	}
	return n
}
