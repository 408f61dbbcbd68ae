package console

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"html/template"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/metatools-go/metatools/errors"
)

// The sign-in of a console behind tokens, for a person at a browser,
// which cannot add an Authorization header by itself.
const (
	// CookieName is the cookie of a signed-in browser: a random session
	// ID, HttpOnly, SameSite=Strict, for the console's path alone. The
	// token stays on the server.
	CookieName = "metatools_console"
	// SessionLifetime is how long a sign-in lasts.
	SessionLifetime = 12 * time.Hour
	// maxSessions bounds the sign-ins kept; a new one beyond it ends the
	// oldest.
	maxSessions = 1000
	// maxLoginBody bounds the sign-in form.
	maxLoginBody = 16 << 10
)

var loginPage = template.Must(template.ParseFS(assets, "assets/login.html"))

// session is a signed-in browser's token and when the sign-in ends.
type session struct {
	token   string
	expires time.Time
}

// login keeps the sign-ins of a console.
type login struct {
	authenticate func(http.Handler) http.Handler
	ui           http.Handler // the console
	next         http.Handler // the console behind authenticate
	now          func() time.Time

	mu       sync.Mutex
	sessions map[string]session // by the SHA-256 of the cookie's ID
}

// WithLogin returns ui behind authenticate (the authentication of /mcp,
// which answers 401 without a valid bearer token), with a sign-in page at
// Path+"login" for browsers: a person gives a token, which authenticate
// must accept, and the browser gets a cookie ([CookieName]) that stands
// for the token on the console's later requests, until
// [SessionLifetime] passes or the person signs out (POST Path+"logout").
// A request with its own Authorization header is authenticated by it
// alone. The console's page asked without a sign-in gets 401 with the
// sign-in form; its script and its API, 401 from authenticate (its style
// sheet and icon, which the form shows, need no sign-in). The sign-in and
// sign-out must come from a page of the console's origin. An answer made
// with a sign-in's token says so in the header X-Metatools-Signed-In, for
// the page to offer to sign out.
func WithLogin(ui http.Handler, authenticate func(http.Handler) http.Handler) http.Handler {
	l := &login{authenticate: authenticate, ui: ui, next: authenticate(ui), now: time.Now, sessions: map[string]session{}}
	return l
}

// ServeHTTP serves the sign-in and sign-out, and the console with the
// token of a signed-in browser.
func (l *login) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	secure(h)
	switch {
	case r.URL.Path == Path+"login" && r.Method == http.MethodGet:
		l.page(w, http.StatusOK, "")
		return
	case r.URL.Path == Path+"login" && r.Method == http.MethodPost:
		l.signIn(w, r)
		return
	case r.URL.Path == Path+"logout" && r.Method == http.MethodPost:
		l.signOut(w, r)
		return
	case (r.URL.Path == Path+"app.css" || r.URL.Path == Path+"icon.svg") && r.Method == http.MethodGet:
		l.ui.ServeHTTP(w, r)
		return
	}
	if r.Header.Get("Authorization") == "" {
		if token, ok := l.token(r); ok {
			r = r.Clone(r.Context())
			r.Header.Set("Authorization", "Bearer "+token)
			h.Set("X-Metatools-Signed-In", "1")
		} else if (r.URL.Path == Path || r.URL.Path+"/" == Path) && r.Method == http.MethodGet {
			l.page(w, http.StatusUnauthorized, "")
			return
		}
	}
	l.next.ServeHTTP(w, r)
}

// page answers the sign-in form with status and a problem to show.
func (l *login) page(w http.ResponseWriter, status int, problem string) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", "Bearer")
	}
	w.WriteHeader(status)
	_ = loginPage.Execute(w, struct{ Problem string }{problem})
}

// fromConsole refuses a form that a page of another site may have sent:
// the browser says where it comes from (Sec-Fetch-Site, Origin) and it
// must be the console's origin.
func fromConsole(r *http.Request) error {
	site, origin := r.Header.Get("Sec-Fetch-Site"), r.Header.Get("Origin")
	if site == "" && origin == "" {
		return errors.Errorf(errors.PermissionDenied, "signing in and out needs a browser that says where the form comes from (Origin)")
	}
	if site != "" && site != "same-origin" {
		return errors.Errorf(errors.PermissionDenied, "cross-site request refused (Sec-Fetch-Site: %s)", site)
	}
	if origin != "" && !ownOrigin(origin, r.Host) {
		return errors.Errorf(errors.PermissionDenied, "cross-site request refused (Origin: %.100s)", origin)
	}
	return nil
}

// signIn checks the token of the form with authenticate and, when it is
// accepted, starts a session.
func (l *login) signIn(w http.ResponseWriter, r *http.Request) {
	if err := fromConsole(r); err != nil {
		writeError(w, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxLoginBody)
	if err := r.ParseForm(); err != nil {
		l.page(w, http.StatusBadRequest, "The form could not be read.")
		return
	}
	token := strings.TrimSpace(r.PostForm.Get("token"))
	if token == "" || !l.accepted(r, token) {
		l.page(w, http.StatusUnauthorized, "That token is not accepted.")
		return
	}
	var raw [32]byte
	_, _ = rand.Read(raw[:])
	id := hex.EncodeToString(raw[:])
	now := l.now()
	l.mu.Lock()
	for key, s := range l.sessions {
		if !now.Before(s.expires) {
			delete(l.sessions, key)
		}
	}
	if len(l.sessions) >= maxSessions {
		oldest := ""
		for key, s := range l.sessions {
			if oldest == "" || s.expires.Before(l.sessions[oldest].expires) {
				oldest = key
			}
		}
		delete(l.sessions, oldest)
	}
	l.sessions[sessionKey(id)] = session{token: token, expires: now.Add(SessionLifetime)}
	l.mu.Unlock()
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: id, Path: Path, MaxAge: int(SessionLifetime / time.Second),
		HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, Path, http.StatusSeeOther)
}

// accepted reports whether authenticate accepts token.
func (l *login) accepted(r *http.Request, token string) bool {
	probe := r.Clone(r.Context())
	probe.Method, probe.Body, probe.ContentLength = http.MethodGet, http.NoBody, 0
	probe.Header = http.Header{"Authorization": {"Bearer " + token}}
	reached := false
	l.authenticate(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { reached = true })).ServeHTTP(discard{}, probe)
	return reached
}

// signOut ends the session of the browser.
func (l *login) signOut(w http.ResponseWriter, r *http.Request) {
	if err := fromConsole(r); err != nil {
		writeError(w, err)
		return
	}
	if c, err := r.Cookie(CookieName); err == nil {
		l.mu.Lock()
		delete(l.sessions, sessionKey(c.Value))
		l.mu.Unlock()
	}
	http.SetCookie(w, &http.Cookie{Name: CookieName, Value: "", Path: Path, MaxAge: -1, HttpOnly: true, Secure: r.TLS != nil, SameSite: http.SameSiteStrictMode})
	http.Redirect(w, r, Path+"login", http.StatusSeeOther)
}

// token returns the token of the browser's session, if it has one still
// running.
func (l *login) token(r *http.Request) (string, bool) {
	c, err := r.Cookie(CookieName)
	if err != nil {
		return "", false
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	s, ok := l.sessions[sessionKey(c.Value)]
	if !ok || !l.now().Before(s.expires) {
		return "", false
	}
	return s.token, true
}

// sessionKey is what the sessions are kept by: the SHA-256 of the
// cookie's ID, so that a lookup's timing says nothing of the IDs held.
func sessionKey(id string) string {
	sum := sha256.Sum256([]byte(id))
	return string(sum[:])
}

// discard is a ResponseWriter that keeps nothing, for the probe of a
// token.
type discard struct{}

func (discard) Header() http.Header         { return http.Header{} }
func (discard) Write(p []byte) (int, error) { return len(p), nil }
func (discard) WriteHeader(int)             {}
