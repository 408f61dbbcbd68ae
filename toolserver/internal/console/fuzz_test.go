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
