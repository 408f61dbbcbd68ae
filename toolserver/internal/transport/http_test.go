package transport

import (
	"net/url"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// FuzzOriginAllowed checks the origin check on any Origin header: it never
// fails, lets through what is listed and the server's own origin, and
// refuses what is no web origin unless listed.
func FuzzOriginAllowed(f *testing.F) {
	for _, origin := range []string{"http://evil.example", "null", "http://localhost:3000", "https://app.example.com", "http://[::1", "file://x"} {
		f.Add(origin, "example.com")
	}
	f.Fuzz(func(t *testing.T, origin, host string) {
		allowed := []string{"https://app.example.com"}
		got := OriginAllowed(origin, host, allowed)
		if strings.EqualFold(origin, allowed[0]) {
			assert.True(t, got)
		}
		if !strings.HasPrefix(strings.ToLower(origin), "http://") && !strings.HasPrefix(strings.ToLower(origin), "https://") && !strings.EqualFold(origin, allowed[0]) {
			assert.False(t, got, "%q is no web origin", origin)
		}
		if host != "" && !strings.ContainsAny(host, "/?#@%") && !OriginAllowed("http://"+host, host, nil) {
			u, err := url.Parse("http://" + host)
			if err == nil && u.Host == host {
				t.Errorf("the server's own origin http://%s is refused", host)
			}
		}
	})
}
