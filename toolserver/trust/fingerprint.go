package trust

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
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
	type canonicalItem struct {
		Kind         Kind            `json:"kind"`
		Name         string          `json:"name"`
		Title        string          `json:"title,omitempty"`
		Description  string          `json:"description,omitempty"`
		InputSchema  json.RawMessage `json:"inputSchema,omitempty"`
		OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
		Annotations  json.RawMessage `json:"annotations,omitempty"`
		Arguments    []Argument      `json:"arguments,omitempty"`
		URITemplate  string          `json:"uriTemplate,omitempty"`
		MIMEType     string          `json:"mimeType,omitempty"`
	}
	c := canonicalItem{
		Kind: it.Kind, Name: it.Name, Title: it.Title, Description: it.Description,
		InputSchema: canonicalJSON(it.InputSchema), OutputSchema: canonicalJSON(it.OutputSchema),
		Annotations: canonicalJSON(it.Annotations), Arguments: it.Arguments,
		URITemplate: it.URITemplate, MIMEType: it.MIMEType,
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(c) // strings, raw JSON made by canonicalJSON and plain structs always encode
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

// canonicalJSON returns the canonical form of raw, nil for empty input or
// JSON null, and for input that is not JSON a JSON string holding it
// (quoted, so the result still embeds as a raw message).
func canonicalJSON(raw json.RawMessage) json.RawMessage {
	if len(bytes.TrimSpace(raw)) == 0 {
		return nil
	}
	v, err := decodeJSON(raw)
	if err != nil {
		b, _ := json.Marshal("invalid JSON: " + string(raw))
		return b
	}
	if v == nil {
		return nil
	}
	var buf bytes.Buffer
	writeCanonical(&buf, v)
	return buf.Bytes()
}

// decodeJSON decodes one JSON value with numbers kept as json.Number.
func decodeJSON(raw []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("data after the JSON value")
	}
	return v, nil
}

func writeCanonical(buf *bytes.Buffer, v any) {
	switch v := v.(type) {
	case map[string]any:
		keys := sortedKeys(v)
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeString(buf, k)
			buf.WriteByte(':')
			writeCanonical(buf, v[k])
		}
		buf.WriteByte('}')
	case []any:
		buf.WriteByte('[')
		for i, e := range v {
			if i > 0 {
				buf.WriteByte(',')
			}
			writeCanonical(buf, e)
		}
		buf.WriteByte(']')
	case string:
		writeString(buf, v)
	case json.Number:
		buf.WriteString(canonicalNumber(v))
	case bool:
		buf.WriteString(strconv.FormatBool(v))
	default: // nil
		buf.WriteString("null")
	}
}

func writeString(buf *bytes.Buffer, s string) {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	buf.Truncate(buf.Len() - 1)
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
