package console_test

import (
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/toolserver"
	"github.com/metatools-go/metatools/toolserver/internal/console"
)

// browser is an HTTP client that keeps cookies and does not follow
// redirects, as the tests read them.
func browser(t *testing.T) *http.Client {
	t.Helper()
	jar, err := cookiejar.New(nil)
	require.NoError(t, err)
	return &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
}

// answer is what a request got.
type answer struct {
	StatusCode int
	Header     http.Header
	cookies    []*http.Cookie
}

// Cookies returns the cookies the answer set.
func (a answer) Cookies() []*http.Cookie { return a.cookies }

// send sends a request of c, with a form when form is not nil, and the
// headers of header, and returns the answer and its body.
func send(t *testing.T, c *http.Client, method, target string, form url.Values, header map[string]string) (answer, string) {
	t.Helper()
	var body io.Reader = http.NoBody
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequestWithContext(t.Context(), method, target, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return answer{StatusCode: resp.StatusCode, Header: resp.Header, cookies: resp.Cookies()}, string(data)
}

func TestSignIn(t *testing.T) {
	f := newFixture(t, console.Options{Run: true}, toolserver.BearerToken{Name: "alice", Token: "alice-secret"})
	b := browser(t)
	same := map[string]string{"Origin": f.url, "Sec-Fetch-Site": "same-origin"}

	resp, page := send(t, b, http.MethodGet, f.url+"/ui/", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the console's page without a sign-in")
	assert.Contains(t, page, `<form class="card login" method="post" action="/ui/login">`, "shows the sign-in form")
	assert.Contains(t, resp.Header.Get("Content-Security-Policy"), "frame-ancestors 'none'")
	resp, page = send(t, b, http.MethodGet, f.url+"/ui", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "the console's path without its slash")
	assert.Contains(t, page, `action="/ui/login"`)
	resp, _ = send(t, b, http.MethodGet, f.url+"/ui/app.css", nil, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, "the form's style sheet needs no sign-in")

	resp, page = send(t, b, http.MethodPost, f.url+"/ui/login", url.Values{"token": {"wrong"}}, same)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
	assert.Contains(t, page, "That token is not accepted.")
	assert.Empty(t, resp.Cookies())

	for _, header := range []map[string]string{
		{"Origin": "https://evil.example"},
		{"Sec-Fetch-Site": "cross-site"},
		{},
	} {
		resp, _ = send(t, b, http.MethodPost, f.url+"/ui/login", url.Values{"token": {"alice-secret"}}, header)
		assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a sign-in from elsewhere: %v", header)
		assert.Empty(t, resp.Cookies())
	}

	resp, _ = send(t, b, http.MethodPost, f.url+"/ui/login", url.Values{"token": {"alice-secret"}}, same)
	require.Equal(t, http.StatusSeeOther, resp.StatusCode)
	assert.Equal(t, "/ui/", resp.Header.Get("Location"), "no secret in the redirect")
	require.Len(t, resp.Cookies(), 1)
	cookie := resp.Cookies()[0]
	assert.Equal(t, console.CookieName, cookie.Name)
	assert.True(t, cookie.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, cookie.SameSite)
	assert.Equal(t, "/ui/", cookie.Path)
	assert.NotContains(t, cookie.Value, "alice-secret", "the cookie is no token")

	resp, page = send(t, b, http.MethodGet, f.url+"/ui/", nil, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode)
	assert.Contains(t, page, `<script src="app.js" defer></script>`)
	resp, body := send(t, b, http.MethodPost, f.url+"/ui/api/run", nil, map[string]string{
		"Origin": f.url, "Sec-Fetch-Site": "same-origin", console.HeaderName: "1", "Content-Type": "application/json"})
	assert.Equal(t, http.StatusBadRequest, resp.StatusCode, "the signed-in browser reaches the API: %s", body)
	assert.Equal(t, "1", resp.Header.Get("X-Metatools-Signed-In"))
	resp, body = send(t, b, http.MethodGet, f.url+"/ui/api/calls", nil, nil)
	assert.Equal(t, http.StatusOK, resp.StatusCode, body)

	resp, _ = send(t, b, http.MethodPost, f.url+"/ui/logout", url.Values{}, map[string]string{"Origin": "https://evil.example"})
	assert.Equal(t, http.StatusForbidden, resp.StatusCode, "a sign-out from elsewhere")
	resp, _ = send(t, b, http.MethodPost, f.url+"/ui/logout", url.Values{}, same)
	assert.Equal(t, http.StatusSeeOther, resp.StatusCode)
	resp, _ = send(t, b, http.MethodGet, f.url+"/ui/api/calls", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode, "signed out")

	// The cookie of a session that ended stands for nothing.
	replay := browser(t)
	u, err := url.Parse(f.url + "/ui/")
	require.NoError(t, err)
	replay.Jar.SetCookies(u, []*http.Cookie{cookie})
	resp, _ = send(t, replay, http.MethodGet, f.url+"/ui/api/calls", nil, nil)
	assert.Equal(t, http.StatusUnauthorized, resp.StatusCode)
}

// TestSignInEnds checks that a sign-in stands for its token for
// SessionLifetime, and not a moment longer.
func TestSignInEnds(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		authenticate := func(h http.Handler) http.Handler {
			return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.Header.Get("Authorization") != "Bearer s3cret" {
					http.Error(w, "missing bearer token", http.StatusUnauthorized)
					return
				}
				h.ServeHTTP(w, r)
			})
		}
		ui := http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { _, _ = io.WriteString(w, "console") })
		h := console.WithLogin(ui, authenticate)
		serve := func(req *http.Request) *httptest.ResponseRecorder {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			return rec
		}
		signIn := httptest.NewRequest(http.MethodPost, "http://console.test/ui/login", strings.NewReader("token=s3cret"))
		signIn.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		signIn.Header.Set("Origin", "http://console.test")
		rec := serve(signIn)
		require.Equal(t, http.StatusSeeOther, rec.Code, rec.Body.String())
		cookies := rec.Result().Cookies()
		require.Len(t, cookies, 1)
		ask := func() int {
			req := httptest.NewRequest(http.MethodGet, "http://console.test/ui/api/calls", http.NoBody)
			req.AddCookie(cookies[0])
			return serve(req).Code
		}
		assert.Equal(t, http.StatusOK, ask())
		time.Sleep(console.SessionLifetime - time.Second)
		assert.Equal(t, http.StatusOK, ask(), "a second before its end")
		time.Sleep(time.Second)
		assert.Equal(t, http.StatusUnauthorized, ask(), "at its end")
	})
}
