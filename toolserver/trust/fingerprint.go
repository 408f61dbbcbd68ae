package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Fingerprint is the SHA-256 of an item's canonical form ([Canonical]), in
// lower-case hex (64 characters).
type Fingerprint string

// ShortLen is the length of a fingerprint's short form.
const ShortLen = 12

// Short returns the first [ShortLen] hex digits, for display. Pre-approval
// and approval always compare whole fingerprints.
func (f Fingerprint) Short() string {
	if len(f) < ShortLen {
		return string(f)
	}
	return string(f[:ShortLen])
}

// Valid reports whether f has the form of a fingerprint: 64 lower-case hex
// digits.
func (f Fingerprint) Valid() bool {
	if len(f) != 2*sha256.Size {
		return false
	}
	for i := 0; i < len(f); i++ {
		if c := f[i]; !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// fingerprintDomain starts every hashed form, so that a later change of the
// canonical form can never collide with this one.
const fingerprintDomain = "metatools-trust-v1\n"

// FingerprintOf returns the fingerprint of it: kind, name, title,
// description, schemas, annotations, prompt arguments, URI template and
// MIME type. The upstream and namespace are not part of it, so the same
// tool has the same fingerprint wherever it is served. A schema or
// annotation that is not valid JSON is hashed as its raw bytes, so even a
// broken item has a stable fingerprint.
func FingerprintOf(it *Item) Fingerprint {
	h := sha256.New()
	h.Write([]byte(fingerprintDomain))
	h.Write(Canonical(it))
	return Fingerprint(hex.EncodeToString(h.Sum(nil)))
}

// Canonical returns the canonical JSON form of it that [FingerprintOf]
// hashes: an object with the fingerprinted fields, empty ones left out,
// object keys sorted at every depth, no insignificant space, no HTML
// escaping, and numbers written as the shortest form of their float64
// value (integers that fit an int64 exactly as integers), so two listings
// of the same item that differ only in key order, spacing or number
// spelling have the same fingerprint.
func Canonical(it *Item) []byte {
	var buf bytes.Buffer
	buf.Grow(64 + len(it.Description) + len(it.InputSchema) + len(it.OutputSchema) + len(it.Annotations))
	first := true
	field := func(name string) {
		if !first {
			buf.WriteByte(',')
		}
		first = false
		writeString(&buf, name)
		buf.WriteByte(':')
	}
	text := func(name, v string, always bool) {
		if v != "" || always {
			field(name)
			writeString(&buf, v)
		}
	}
	raw := func(name string, v json.RawMessage) {
		if c := canonicalJSON(v); c != nil {
			field(name)
			buf.Write(c)
		}
	}
	buf.WriteByte('{')
	text("kind", string(it.Kind), true)
	text("name", it.Name, true)
	text("title", it.Title, false)
	text("description", it.Description, false)
	raw("inputSchema", it.InputSchema)
	raw("outputSchema", it.OutputSchema)
	raw("annotations", it.Annotations)
	if len(it.Arguments) > 0 {
		field("arguments")
		buf.WriteByte('[')
		for i, a := range it.Arguments {
			if i > 0 {
				buf.WriteByte(',')
			}
			buf.WriteByte('{')
			first = true
			text("name", a.Name, true)
			text("title", a.Title, false)
			text("description", a.Description, false)
			if a.Required {
				field("required")
				buf.WriteString("true")
			}
			buf.WriteByte('}')
		}
		buf.WriteByte(']')
		first = false
	}
	text("uriTemplate", it.URITemplate, false)
	text("mimeType", it.MIMEType, false)
	buf.WriteByte('}')
	return buf.Bytes()
}

// canonicalJSON returns the canonical form of raw, nil for empty input or
// JSON null, and for input that is not JSON a JSON string holding it
// (quoted, so the result still embeds as a raw message).
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	trimmed := bytes.TrimSpace(raw)
	if len(trimmed) == 0 || string(trimmed) == "null" {
		return nil
	}
	if !json.Valid(trimmed) {
		var buf bytes.Buffer
		writeString(&buf, "invalid JSON: "+string(raw))
		return buf.Bytes()
	}
	c := canonicalizer{b: trimmed}
	c.out.Grow(len(trimmed))
	c.value()
	return c.out.Bytes()
}

// canonicalizer rewrites valid JSON in canonical form: object members
// sorted by key (all of them, duplicates kept in their order, so that no
// duplicate escapes the fingerprint), no space, strings re-escaped,
// numbers by canonicalNumber.
type canonicalizer struct {
	b   []byte
	i   int
	out bytes.Buffer
}

func (c *canonicalizer) space() {
	for c.i < len(c.b) && (c.b[c.i] == ' ' || c.b[c.i] == '\t' || c.b[c.i] == '\n' || c.b[c.i] == '\r') {
		c.i++
	}
}

func (c *canonicalizer) value() {
	c.space()
	switch c.b[c.i] {
	case '{':
		c.i++
		type member struct {
			key string
			val []byte
		}
		var members []member
		for {
			c.space()
			if c.b[c.i] == '}' {
				c.i++
				break
			}
			key := c.str()
			c.space()
			c.i++ // ':'
			sub := canonicalizer{b: c.b, i: c.i}
			sub.value()
			c.i = sub.i
			members = append(members, member{key, sub.out.Bytes()})
			c.space()
			if c.b[c.i] == ',' {
				c.i++
			}
		}
		slices.SortStableFunc(members, func(a, b member) int { return strings.Compare(a.key, b.key) })
		c.out.WriteByte('{')
		for i, m := range members {
			if i > 0 {
				c.out.WriteByte(',')
			}
			writeString(&c.out, m.key)
			c.out.WriteByte(':')
			c.out.Write(m.val)
		}
		c.out.WriteByte('}')
	case '[':
		c.i++
		c.out.WriteByte('[')
		for n := 0; ; n++ {
			c.space()
			if c.b[c.i] == ']' {
				c.i++
				break
			}
			if n > 0 {
				c.out.WriteByte(',')
			}
			c.value()
			c.space()
			if c.b[c.i] == ',' {
				c.i++
			}
		}
		c.out.WriteByte(']')
	case '"':
		writeString(&c.out, c.str())
	default:
		start := c.i
		for c.i < len(c.b) && !strings.ContainsRune(",}] \t\n\r", rune(c.b[c.i])) {
			c.i++
		}
		lit := string(c.b[start:c.i])
		switch lit {
		case "true", "false", "null":
			c.out.WriteString(lit)
		default:
			c.out.WriteString(canonicalNumber(json.Number(lit)))
		}
	}
}

// str reads the string at c.i (the input is valid JSON) and returns its
// value.
func (c *canonicalizer) str() string {
	start := c.i
	escaped := false
	for j := start + 1; j < len(c.b); j++ {
		switch c.b[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			c.i = j + 1
			if !escaped {
				return string(c.b[start+1 : j])
			}
			var s string
			_ = json.Unmarshal(c.b[start:c.i], &s) // valid JSON, so a valid string
			return s
		}
	}
	return ""
}

// writeString writes s as a JSON string: '"' and '\\' escaped, control
// characters as \u00XX (\n, \r and \t by name), invalid UTF-8 as
// U+FFFD, nothing else escaped.
func writeString(buf *bytes.Buffer, s string) {
	buf.WriteByte('"')
	for i := 0; i < len(s); {
		c := s[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && size == 1 {
				buf.WriteString("\ufffd")
			} else {
				buf.WriteString(s[i : i+size])
			}
			i += size
			continue
		}
		switch {
		case c == '"' || c == '\\':
			buf.WriteByte('\\')
			buf.WriteByte(c)
		case c == '\n':
			buf.WriteString(`\n`)
		case c == '\r':
			buf.WriteString(`\r`)
		case c == '\t':
			buf.WriteString(`\t`)
		case c < 0x20:
			const hexDigits = "0123456789abcdef"
			buf.WriteString(`\u00`)
			buf.WriteByte(hexDigits[c>>4])
			buf.WriteByte(hexDigits[c&0xf])
		default:
			buf.WriteByte(c)
		}
		i++
	}
	buf.WriteByte('"')
}

// canonicalNumber writes n as an integer when it is one that fits an int64,
// else as the shortest form of its float64 value; a number beyond float64
// range stays as written.
func canonicalNumber(n json.Number) string {
	if i, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return strconv.FormatInt(i, 10)
	}
	f, err := strconv.ParseFloat(string(n), 64)
	if err != nil || math.IsInf(f, 0) {
		return string(n)
	}
	if f == math.Trunc(f) && math.Abs(f) < 1<<53 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}
