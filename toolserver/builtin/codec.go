package builtin

import (
	"context"
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"html"
	"net/url"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/metatools-go/metatools/errors"
)

// codec is an encoding of text:encode and text:decode.
type codec struct {
	name        string
	description string
	encode      func([]byte) string
	decode      func(string) ([]byte, error)
}

// codecs are the encodings, in the order the tools document them.
var codecs = []codec{
	{"base64", "standard base64 with padding, RFC 4648", base64.StdEncoding.EncodeToString, decodeBase64},
	{"base64url", "URL-safe base64 without padding, as in JWTs", base64.RawURLEncoding.EncodeToString, decodeBase64},
	{"hex", "lower-case hexadecimal", hex.EncodeToString, decodeHex},
	{"url", "percent-encoding of a URL query value, a space becoming +", func(b []byte) string { return url.QueryEscape(string(b)) }, decodeWith(url.QueryUnescape)},
	{"urlpath", "percent-encoding of a URL path segment, a space becoming %20", func(b []byte) string { return url.PathEscape(string(b)) }, decodeWith(url.PathUnescape)},
	{"html", "HTML escaping of < > & ' and \"", func(b []byte) string { return html.EscapeString(string(b)) }, func(s string) ([]byte, error) { return []byte(html.UnescapeString(s)), nil }},
}

func findCodec(name string) (codec, bool) {
	for _, c := range codecs {
		if c.name == name {
			return c, true
		}
	}
	return codec{}, false
}

// codecNames lists the encodings' names.
func codecNames() []string {
	names := make([]string, len(codecs))
	for i, c := range codecs {
		names[i] = c.name
	}
	return names
}

// codecList describes the encodings for a tool description.
func codecList() string {
	parts := make([]string, len(codecs))
	for i, c := range codecs {
		parts[i] = c.name + " (" + c.description + ")"
	}
	return strings.Join(parts, ", ")
}

// decodeBase64 decodes both base64 alphabets, with or without padding,
// ignoring white space such as the line breaks of MIME.
func decodeBase64(s string) ([]byte, error) {
	s = strings.Map(func(r rune) rune {
		switch {
		case unicode.IsSpace(r):
			return -1
		case r == '-':
			return '+'
		case r == '_':
			return '/'
		}
		return r
	}, s)
	b, err := base64.RawStdEncoding.DecodeString(strings.TrimRight(s, "="))
	if err != nil {
		var corrupt base64.CorruptInputError
		if errors.As(err, &corrupt) {
			return nil, fmt.Errorf("not valid base64: unexpected data at offset %d (without white space)", int64(corrupt))
		}
		return nil, fmt.Errorf("not valid base64: %w", err)
	}
	return b, nil
}

// decodeHex decodes hexadecimal in either case, ignoring white space.
func decodeHex(s string) ([]byte, error) {
	b, err := hex.DecodeString(strings.Join(strings.Fields(s), ""))
	if err != nil {
		return nil, fmt.Errorf("not valid hex: %w", err)
	}
	return b, nil
}

func decodeWith(unescape func(string) (string, error)) func(string) ([]byte, error) {
	return func(s string) ([]byte, error) {
		out, err := unescape(s)
		if err != nil {
			return nil, fmt.Errorf("not valid percent-encoding: %w", err)
		}
		return []byte(out), nil
	}
}

type encodeInput struct {
	Text     string `json:"text"`
	Encoding string `json:"encoding"`
}

type encodeOutput struct {
	Text string `json:"text" jsonschema:"The encoded text."`
}

type decodeOutput struct {
	Text  string `json:"text" jsonschema:"The decoded text, when the decoded bytes are UTF-8 text; empty otherwise."`
	Hex   string `json:"hex,omitempty" jsonschema:"The decoded bytes in hexadecimal, when they are not UTF-8 text (binary data)."`
	Bytes int    `json:"bytes" jsonschema:"The number of decoded bytes."`
	UTF8  bool   `json:"utf8" jsonschema:"Whether the decoded bytes are valid UTF-8 text."`
}

// encodingProperties documents the arguments of text:encode and
// text:decode.
func encodingProperties(props map[string]*jsonschema.Schema) {
	textProperty(props)
	props["encoding"].Description = "The encoding."
	props["encoding"].Enum = stringsToAny(codecNames())
}

// codecFor returns the codec of a call, or the validation error of an
// unknown name.
func codecFor(toolID string, in *encodeInput) (codec, error) {
	if err := checkSize(toolID, "text", in.Text, maxTextBytes); err != nil {
		return codec{}, err
	}
	c, ok := findCodec(in.Encoding)
	if !ok {
		return codec{}, validationError(toolID, "unknown encoding %q: use one of %s", in.Encoding, strings.Join(codecNames(), ", "))
	}
	return c, nil
}

func textEncodeTool(*config) (Tool, error) {
	return newTool(spec{
		namespace:   "text",
		name:        "encode",
		title:       "Encode text",
		description: "Encode a text's UTF-8 bytes as " + codecList() + ". The reverse is text:decode.",
		tags:        append([]string{"encode", "base64", "hex", "url-encode", "percent-encoding", "escape", "html"}, textTags...),
		input:       encodingProperties,
		examples: []Example{
			{Name: "base64", Description: "A string in base64.", Args: map[string]any{"text": "user:pa55 word", "encoding": "base64"}},
			{Name: "query-value", Description: "A value for a URL query string.", Args: map[string]any{"text": "café & croissants?", "encoding": "url"}},
		},
	}, func(_ context.Context, in encodeInput) (encodeOutput, error) {
		c, err := codecFor("text:encode", &in)
		if err != nil {
			return encodeOutput{}, err
		}
		return encodeOutput{Text: c.encode([]byte(in.Text))}, nil
	})
}

func textDecodeTool(*config) (Tool, error) {
	return newTool(spec{
		namespace: "text",
		name:      "decode",
		title:     "Decode text",
		description: "Decode text from " + codecList() + ". Base64 decoding accepts both alphabets, with or without padding and line breaks. " +
			"The result is text when the decoded bytes are UTF-8, else their hexadecimal form. The reverse is text:encode.",
		tags:  append([]string{"decode", "base64", "hex", "url-decode", "percent-encoding", "unescape", "html", "jwt"}, textTags...),
		input: encodingProperties,
		examples: []Example{
			{Name: "base64", Description: "Decode a base64 string.", Args: map[string]any{"text": "aGVsbG8sIHdvcmxk", "encoding": "base64"}},
			{Name: "jwt-payload", Description: "Decode the payload of a JWT (its middle part).", Args: map[string]any{"text": "eyJzdWIiOiIxMjM0NTY3ODkwIiwibmFtZSI6IkFkYSJ9", "encoding": "base64url"}},
			{Name: "url", Description: "Decode a URL query value.", Args: map[string]any{"text": "caf%C3%A9+%26+croissants%3F", "encoding": "url"}},
		},
	}, func(_ context.Context, in encodeInput) (decodeOutput, error) {
		c, err := codecFor("text:decode", &in)
		if err != nil {
			return decodeOutput{}, err
		}
		b, err := c.decode(in.Text)
		if err != nil {
			return decodeOutput{}, err
		}
		out := decodeOutput{Bytes: len(b), UTF8: utf8.Valid(b)}
		if out.UTF8 {
			out.Text = string(b)
		} else {
			out.Hex = hex.EncodeToString(b)
		}
		return out, nil
	})
}
