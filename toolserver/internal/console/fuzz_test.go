package console_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/metatools-go/metatools/toolserver/internal/console"
)

// FuzzAPI sends the console's API any path, query and body, as its own
// page would: every answer is JSON, an error one with a code, and
// nothing panics. The run and approve permissions are on, so that the
// bodies reach their decoders.
func FuzzAPI(f *testing.F) {
	for _, seed := range []struct{ method, target, body string }{
		{"GET", "/ui/api/search?q=time&limit=5", ""},
		{"GET", "/ui/api/search?upstream=builtin&namespace=text&cursor=x", ""},
		{"GET", "/ui/api/tool?id=time:now", ""},
		{"POST", "/ui/api/run", `{"id": "text:case", "args": {"text": "a", "to": "upper"}}`},
		{"POST", "/ui/api/run", `{"id": 5}`},
		{"POST", "/ui/api/approve", `{"ids": ["notes:missing"]}`},
		{"POST", "/ui/api/approve", `{"ids": null} []`},
		{"DELETE", "/ui/api/calls", ""},
	} {
		f.Add(seed.method, seed.target, seed.body)
	}
	fx := newFixture(f, console.Options{Run: true, Approve: true})
	f.Fuzz(func(t *testing.T, method, target, body string) {
		if method != http.MethodGet && method != http.MethodPost {
			method = http.MethodGet
		}
		target = "/ui/api/" + strings.TrimPrefix(target, "/ui/api/")
		if strings.Contains(target, "approve") && strings.Contains(body, "add_note") {
			return // an approval that may succeed would change what the next inputs see
		}
		req := httptest.NewRequestWithContext(t.Context(), method, "http://console.test/", strings.NewReader(body))
		if req.URL = parseTarget(target); req.URL == nil {
			return
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set(console.HeaderName, "1")
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		if rec.Code == http.StatusMovedPermanently || rec.Code == http.StatusTemporaryRedirect {
			return // the mux cleans paths such as /ui/api/../x
		}
		if ct := rec.Header().Get("Content-Type"); ct != "application/json; charset=utf-8" {
			t.Fatalf("%s %q: Content-Type %q, status %d: %s", method, target, ct, rec.Code, rec.Body)
		}
		if rec.Code >= 500 {
			t.Fatalf("%s %q: status %d: %s", method, target, rec.Code, rec.Body)
		}
		if rec.Code >= 400 {
			var e apiError
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Code == "" || e.Error.Message == "" {
				t.Fatalf("%s %q: an error answer without its code and message: %s", method, target, rec.Body)
			}
		}
	})
}

// parseTarget parses a request target; nil when it is none.
func parseTarget(target string) *url.URL {
	u, err := url.ParseRequestURI(target)
	if err != nil {
		return nil
	}
	return u
}

// FuzzSignIn sends the sign-in any form and origin: nothing panics, a
// cookie comes only with the token, and a refusal never echoes the form.
func FuzzSignIn(f *testing.F) {
	f.Add("token=s3cret", "http://console.test")
	f.Add("token=wrong", "http://console.test")
	f.Add("token=s3cret", "https://evil.example")
	f.Add("token=%zz&token=s3cret", "")
	f.Add("token=s3cret&token=other", "null")
	authenticate := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Header.Get("Authorization") != "Bearer s3cret" {
				http.Error(w, "missing bearer token", http.StatusUnauthorized)
				return
			}
			h.ServeHTTP(w, r)
		})
	}
	h := console.WithLogin(http.NotFoundHandler(), authenticate)
	f.Fuzz(func(t *testing.T, form, origin string) {
		req := httptest.NewRequestWithContext(t.Context(), http.MethodPost, "http://console.test/ui/login", strings.NewReader(form))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("status %d: %s", rec.Code, rec.Body)
		}
		signedIn := len(rec.Result().Cookies()) > 0
		values, _ := url.ParseQuery(form)
		u, err := url.Parse(origin)
		own := err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, "console.test") && u.Path == ""
		if signedIn && (strings.TrimSpace(values.Get("token")) != "s3cret" || !own) {
			t.Fatalf("signed in with form %q from %q", form, origin)
		}
		if !signedIn && form != "" && len(form) > 8 && strings.Contains(rec.Body.String(), form) {
			t.Fatalf("the refusal echoes the form %q", form)
		}
	})
}
