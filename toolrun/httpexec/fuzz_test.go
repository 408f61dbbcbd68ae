package httpexec

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func FuzzParseRetryAfter(f *testing.F) {
	for _, seed := range []string{"0", "120", "18446744073709551615", "99999999999999999999", "-1", " 5 ",
		"Wed, 21 Oct 2015 07:28:00 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994", "soon", ""} {
		f.Add(seed)
	}
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, value string) {
		d, ok := parseRetryAfter(value, now)
		if !ok && d != 0 {
			t.Fatalf("parseRetryAfter(%q) = %v, false", value, d)
		}
		if d < 0 {
			t.Fatalf("parseRetryAfter(%q) = %v: negative", value, d)
		}
	})
}

func FuzzFillPath(f *testing.F) {
	for _, seed := range [][2]string{{"/pets/{id}", "7"}, {"/a/{id}/b/{id}", "x/y"}, {"/{id", ""}, {"/}{id}", ".."},
		{"/{}", "a"}, {"/{{id}}", "%"}, {"", "é"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, template, value string) {
		path, err := fillPath(template, map[string]any{"id": value}, map[string]bool{})
		if err != nil {
			return
		}
		if strings.Contains(template, "{id}") && value != "" && strings.Contains(path, "{id}") {
			t.Fatalf("fillPath(%q) = %q: placeholder left", template, path)
		}
	})
}

func FuzzResponse(f *testing.F) {
	f.Add(200, "application/json; charset=utf-8", []byte(`{"a":1}`))
	f.Add(200, "text/plain", []byte("hello"))
	f.Add(200, "image/png", []byte{0x89, 'P'})
	f.Add(429, "application/problem+json", []byte(`{"error":{"message":"slow down"}}`))
	f.Add(500, "bogus;;=", []byte{0xff})
	e := New()
	f.Fuzz(func(t *testing.T, status int, contentType string, body []byte) {
		if status < 100 || status > 999 {
			return
		}
		resp := &http.Response{StatusCode: status, Header: http.Header{"Content-Type": {contentType}, "Retry-After": {string(body)}}}
		r := newResponse(resp, body)
		if status >= 400 {
			if err := e.statusError("GET https://x", r, []string{"secret"}); err == nil || err.Code == "" {
				t.Fatalf("status %d: no coded error", status)
			}
			return
		}
		successOutput(r, "https://x")
	})
}

// FuzzFormBody encodes arbitrary JSON objects as forms: no panic, and the
// form decodes back to each string field and array of strings.
func FuzzFormBody(f *testing.F) {
	for _, seed := range []string{`{"a":"b","n":1.5,"t":true}`, `{"tags":["x","y&z"],"o":{"k":"<v>"}}`, `{"é":"=&?","":""}`,
		`{"nul":null,"list":[null,1]}`, `[1]`, `"text"`} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, doc string) {
		var value any
		if json.Unmarshal([]byte(doc), &value) != nil {
			return
		}
		body, err := formBody(value)
		obj, isObject := value.(map[string]any)
		if !isObject {
			if err == nil {
				t.Fatalf("formBody(%s) accepted a non-object", doc)
			}
			return
		}
		if err != nil {
			return
		}
		form, err := url.ParseQuery(string(body))
		if err != nil {
			t.Fatalf("formBody(%s) = %q, which does not parse: %v", doc, body, err)
		}
		for name, v := range obj {
			switch v := v.(type) {
			case string:
				if got := form[name]; len(got) != 1 || got[0] != v {
					t.Fatalf("field %q of %s: got %q", name, doc, got)
				}
			case nil:
				if _, ok := form[name]; ok {
					t.Fatalf("null field %q of %s is sent", name, doc)
				}
			}
		}
	})
}
