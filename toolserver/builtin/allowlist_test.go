package builtin

import (
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowListMatchesHostsByName(t *testing.T) {
	a, err := parseAllowList([]string{"API.Example.com", " 127.0.0.1 ", "[::1]", "*.example.org", "docs.go.dev."})
	require.NoError(t, err)
	tests := []struct {
		url  string
		want bool
	}{
		{"https://api.example.com/v1", true},
		{"https://API.EXAMPLE.COM./v1", true},
		{"http://api.example.com:8080/", true},
		{"https://example.com/", false},
		{"https://www.api.example.com/", false},
		{"https://api.example.com.evil.net/", false},
		{"http://127.0.0.1:9000/", true},
		{"http://127.0.0.2/", false},
		{"http://[::1]:8080/", true},
		{"https://www.example.org/", true},
		{"https://a.b.example.org/", true},
		{"https://example.org/", false},
		{"https://evilexample.org/", false},
		{"https://docs.go.dev/", true},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			require.NoError(t, err)
			if tt.want {
				require.NoError(t, a.check(u))
			} else {
				require.ErrorContains(t, a.check(u), "is not on the allow-list (api.example.com, 127.0.0.1, ::1, *.example.org, docs.go.dev)")
			}
		})
	}
}

func TestAllowListExampleHost(t *testing.T) {
	tests := []struct {
		hosts []string
		want  string
	}{
		{[]string{"*.example.org", "api.example.com"}, "api.example.com"},
		{[]string{"*.example.org"}, "www.example.org"},
		{[]string{"::1"}, "[::1]"},
	}
	for _, tt := range tests {
		a, err := parseAllowList(tt.hosts)
		require.NoError(t, err)
		assert.Equal(t, tt.want, a.exampleHost())
	}
}

func TestTrimPartialRune(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"", ""},
		{"abc", "abc"},
		{"ab\xc3", "ab"},
		{"a\xe2\x98", "a"},
		{"a\xe2\x98\x95", "a\xe2\x98\x95"},
		{"\xf0\x9f\x98", ""},
		{"\x80\x80", "\x80\x80"},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, string(trimPartialRune([]byte(tt.in))), "%q", tt.in)
	}
}
