package builtin

import (
	"net/netip"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAllowListMatchesHostsAndPorts(t *testing.T) {
	a, err := parseAllowList([]string{"API.Example.com", " 127.0.0.1 ", "[::1]", "*.example.org", "docs.go.dev.",
		"api.example.net:8443", "10.0.0.0/8:*", "[fd00::1]:9000"})
	require.NoError(t, err)
	const list = "(api.example.com, 127.0.0.1, ::1, *.example.org, docs.go.dev, api.example.net:8443, 10.0.0.0/8:*, [fd00::1]:9000)"
	tests := []struct {
		url  string
		want string // empty when allowed
	}{
		{"https://api.example.com/v1", ""},
		{"https://API.EXAMPLE.COM./v1", ""},
		{"http://api.example.com/", ""},
		{"http://api.example.com:8080/", `port 8080 of host "api.example.com" is not on the allow-list ` + list},
		{"https://example.com/", `host "example.com" is not on the allow-list ` + list},
		{"https://www.api.example.com/", "is not on the allow-list"},
		{"https://api.example.com.evil.net/", "is not on the allow-list"},
		{"http://127.0.0.1/", ""},
		{"http://127.0.0.1:9000/", `port 9000 of host "127.0.0.1"`},
		{"http://127.0.0.2/", `host "127.0.0.2" is not on the allow-list`},
		{"http://[::1]/", ""},
		{"http://[::ffff:127.0.0.1]/", ""},
		{"https://www.example.org/", ""},
		{"https://a.b.example.org/", ""},
		{"https://example.org/", "is not on the allow-list"},
		{"https://evilexample.org/", "is not on the allow-list"},
		{"https://docs.go.dev/", ""},
		{"https://api.example.net:8443/", ""},
		{"https://api.example.net/", `port 443 of host "api.example.net"`},
		{"http://10.1.2.3:5432/", ""},
		{"http://11.1.2.3/", "is not on the allow-list"},
		{"http://[fd00::1]:9000/", ""},
		{"http://[fd00::1]/", `port 80 of host "fd00::1"`},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			u, err := url.Parse(tt.url)
			require.NoError(t, err)
			if tt.want == "" {
				require.NoError(t, a.check(u))
			} else {
				require.ErrorContains(t, a.check(u), tt.want)
			}
		})
	}
}

func TestAllowListEntries(t *testing.T) {
	tests := []struct {
		entry, want string // want is empty when the entry is valid
	}{
		{"169.254.169.254", `"169.254.169.254" reaches the link-local range 169.254.0.0/16, where cloud metadata services answer: write internal:169.254.169.254 to allow it on purpose`},
		{"169.254.0.0/16:80", "reaches the link-local range"},
		{"0.0.0.0/0", "reaches the link-local range"},
		{"[fe80::1]:8080", "reaches the link-local range fe80::/10"},
		{"internal:169.254.169.254", ""},
		{"internal:metadata.internal:80", ""},
		{"example.com:0", `"example.com:0" has port "0"`},
		{"example.com:65536", "has port"},
		{"example.com:08", "has port"},
		{"example.com:http", "has port"},
		{"example.com:*", ""},
		{"https://example.com", `"https://example.com" is a URL: write its host`},
		{"*", "is not a host name"},
		{"api.*.example.com", "is not a host name"},
		{"", "is not a host name"},
		{"[::1", "has no closing ]"},
		{"[::1]x", "after its address"},
		{"10.0.0.0/33", "is not a CIDR range"},
		{"[fe80::1%eth0]", "zone"},
		{"[::1]:443", ""},
		{"::1", ""},
		{"fd00::/8", ""},
	}
	for _, tt := range tests {
		t.Run(tt.entry, func(t *testing.T) {
			_, err := parseAllowEntry(tt.entry)
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.want)
			}
		})
	}
}

func TestAllowListChecksDialledAddresses(t *testing.T) {
	a, err := parseAllowList([]string{"api.example.com", "internal:intranet.example.com", "10.1.0.0/16:8080", "127.0.0.1:*"})
	require.NoError(t, err)
	tests := []struct {
		addr       string
		port       int
		internalOK bool
		want       string
	}{
		{"93.184.216.34", 443, false, ""},
		{"127.0.0.1", 443, false, ""},
		{"127.0.0.2", 443, false, "address 127.0.0.2 is a loopback address"},
		{"::1", 80, false, "is a loopback address"},
		{"::ffff:10.1.2.3", 8080, false, ""},
		{"10.1.2.3", 443, false, "address 10.1.2.3 is a private address"},
		{"10.2.0.1", 8080, false, "is a private address"},
		{"10.2.0.1", 8080, true, ""},
		{"169.254.169.254", 80, false, "is a link-local address (where cloud metadata services answer)"},
		{"fd00:ec2::254", 80, false, "is a private address"},
		{"100.64.0.1", 443, false, "is a shared (carrier-grade NAT) address"},
		{"0.0.0.0", 80, false, "is an unspecified address"},
		{"64:ff9b::7f00:1", 80, false, "is a loopback address"},
		{"239.1.1.1", 80, false, "is a multicast address"},
	}
	for _, tt := range tests {
		t.Run(tt.addr, func(t *testing.T) {
			err := a.checkAddress(netip.MustParseAddr(tt.addr), tt.port, tt.internalOK)
			if tt.want == "" {
				require.NoError(t, err)
			} else {
				require.ErrorContains(t, err, tt.want)
			}
		})
	}
	assert.True(t, a.internalAllowed("intranet.example.com", 443))
	assert.False(t, a.internalAllowed("intranet.example.com", 8443))
	assert.False(t, a.internalAllowed("api.example.com", 443))
}

func TestAllowListExampleHost(t *testing.T) {
	tests := []struct {
		hosts []string
		want  string
	}{
		{[]string{"*.example.org", "api.example.com"}, "api.example.com"},
		{[]string{"*.example.org"}, "www.example.org"},
		{[]string{"::1"}, "[::1]"},
		{[]string{"10.0.0.0/8", "localhost:8080"}, "localhost:8080"},
		{[]string{"[::1]:9000"}, "[::1]:9000"},
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
