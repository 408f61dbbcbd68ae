package httpexec

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
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

// receivedRequest is what a server saw of a request.
type receivedRequest struct {
	query  url.Values
	header http.Header
}

// FuzzRequestEncoding builds requests from arbitrary arguments, parameter
// names and credentials, and sends the ones it builds to a real server:
// building never panics and fails with an invalid_argument error (or
// unauthenticated, for an empty secret) that does not show the secret; what it builds, net/http sends, and the
// server reads each query and header parameter and the credentials as
// they were given.
func FuzzRequestEncoding(f *testing.F) {
	for _, seed := range []struct {
		args                string
		query, header, name string
		auth                uint8
		secret, user        string
	}{
		{`{"id": "7", "q": "a b&c", "tags": ["x", "y"], "X-Trace": "t-1"}`, "q", "X-Trace", "", 1, "tok3n", ""},
		{`{"id": 7, "q": 1e21, "tags": [1.5, true], "X-Trace": ["a", "b"]}`, "q", "X-Trace", "X-Api-Key", 2, "k3y", ""},
		{`{"id": "a/b", "q": {"nested": ["<&>"]}, "tags": null}`, "q", "X-Trace", "api_key", 3, "s3cret=&", ""},
		{`{"id": "%zz", "q": "é", "X-Trace": "line\nbreak"}`, "q", "X-Trace", "", 4, "pa:ss", "user"},
		{`{"id": "1", "bad header": "v"}`, "q", "bad header", "", 2, "k", ""},
		{`{"id": "1"}`, "", "", "", 1, "tok\r\nX-Injected: 1", ""},
		{`{"id": "1"}`, "q", "X-Trace", "X-Key", 2, " padded\t", ""},
	} {
		f.Add(seed.args, seed.query, seed.header, seed.name, seed.auth, seed.secret, seed.user)
	}
	received := make(chan receivedRequest, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		received <- receivedRequest{query: r.URL.Query(), header: r.Header.Clone()}
	}))
	f.Cleanup(srv.Close)
	client := srv.Client()

	f.Fuzz(func(t *testing.T, rawArgs, queryName, headerName, authName string, authKind uint8, secret, user string) {
		var args map[string]any
		if json.Unmarshal([]byte(rawArgs), &args) != nil {
			return
		}
		b := &toolmodel.HTTPBackend{
			BaseURL: srv.URL + "/v1?fixed=1", Method: http.MethodGet, Path: "/items/{id}",
			QueryParams: []string{queryName, "tags"}, HeaderParams: []string{headerName},
		}
		switch authKind % 5 {
		case 1:
			b.Auth = &toolmodel.HTTPAuth{Type: toolmodel.AuthBearer, Secret: "s"}
		case 2:
			b.Auth = &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "s", Name: authName}
		case 3:
			b.Auth = &toolmodel.HTTPAuth{Type: toolmodel.AuthAPIKey, Secret: "s", Name: authName, In: "query"}
		case 4:
			b.Auth = &toolmodel.HTTPAuth{Type: toolmodel.AuthBasic, Secret: "s", Username: user}
		}
		e := New(WithSecrets(MapSecrets{"s": secret}))
		var used []string
		req, err := e.newRequest(context.Background(), b, args, &used)
		if err != nil {
			var coded *errors.Error
			require.ErrorAs(t, err, &coded)
			// Bad arguments or configuration; an empty secret is a missing one.
			missingSecret := secret == "" && coded.Code == errors.Unauthenticated
			assert.True(t, coded.Code == errors.InvalidArgument || missingSecret, "%v", err)
			if len(secret) >= 4 && !strings.Contains(rawArgs+queryName+headerName+authName+user, secret) {
				assert.NotContains(t, err.Error(), secret, "an error shows the secret")
			}
			return
		}
		resp, err := client.Do(req)
		require.NoError(t, err, "net/http refuses a request that was built")
		require.NoError(t, resp.Body.Close())
		got := <-received

		assert.Equal(t, "1", got.query.Get("fixed"), "the base URL's query is kept")
		if s, ok := args[queryName].(string); ok && !(b.Auth != nil && b.Auth.In == "query" && authName == queryName) && queryName != "tags" {
			assert.Contains(t, got.query[queryName], s, "query parameter %q", queryName)
		}
		trimmed := func(s string) string { return strings.Trim(s, " \t") }
		if s, ok := args[headerName].(string); ok && (b.Auth == nil || b.Auth.Type != toolmodel.AuthAPIKey || b.Auth.In == "query" ||
			http.CanonicalHeaderKey(authName) != http.CanonicalHeaderKey(headerName)) {
			assert.Equal(t, trimmed(s), got.header.Get(headerName), "header parameter %q", headerName)
		}
		switch authKind % 5 {
		case 1:
			assert.Equal(t, trimmed("Bearer "+secret), got.header.Get("Authorization"))
		case 2:
			assert.Equal(t, trimmed(secret), got.header.Get(authName))
		case 3:
			assert.Equal(t, []string{secret}, got.query[authName])
		case 4:
			gotUser, gotPassword, ok := (&http.Request{Header: got.header}).BasicAuth()
			require.True(t, ok)
			assert.Equal(t, user+":"+secret, gotUser+":"+gotPassword)
		}
	})
}
