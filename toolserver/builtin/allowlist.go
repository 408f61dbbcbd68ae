package builtin

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolrun/httpexec"
)

// internalPrefix marks an allow-list entry that may reach internal
// addresses.
const internalPrefix = "internal:"

// allowEntry is one entry of the allow-list of http:fetch.
type allowEntry struct {
	// display is the entry as the tool's description shows it.
	display string
	// name is a host name or a wildcard "*.domain"; empty for an address
	// entry.
	name string
	// prefix is the address or range of an address entry.
	prefix netip.Prefix
	// port is the one port allowed; 0 allows the defaults, 80 and 443.
	port    int
	anyPort bool
	// internal lets the entry reach internal addresses.
	internal bool
}

// allowList is the set of hosts and ports http:fetch may reach.
type allowList struct {
	entries []allowEntry
}

// linkLocal are the ranges where cloud metadata services answer
// (169.254.169.254, fe80::...): an address entry in them needs the
// internal: mark.
var linkLocal = []netip.Prefix{netip.MustParsePrefix("169.254.0.0/16"), netip.MustParsePrefix("fe80::/10")}

// parseAllowEntry parses an entry: [internal:]HOST[:PORT], where HOST is
// a host name, "*.domain", an IP address (IPv6 in brackets when a port
// follows) or a CIDR range, and PORT a port number or "*".
func parseAllowEntry(raw string) (allowEntry, error) {
	s := strings.ToLower(strings.TrimSpace(raw))
	var e allowEntry
	s, e.internal = strings.CutPrefix(s, internalPrefix)
	if strings.Contains(s, "://") {
		return e, fmt.Errorf("%q is a URL: write its host, as example.com, with :port for a port other than 80 and 443", raw)
	}
	host, port := s, ""
	switch {
	case strings.HasPrefix(s, "["):
		end := strings.Index(s, "]")
		if end < 0 {
			return e, fmt.Errorf("%q has no closing ]", raw)
		}
		host = s[1:end]
		rest := s[end+1:]
		if rest != "" {
			var ok bool
			if port, ok = strings.CutPrefix(rest, ":"); !ok {
				return e, fmt.Errorf("%q has %q after its address, not :port", raw, rest)
			}
		}
	case strings.Count(s, ":") == 1:
		host, port, _ = strings.Cut(s, ":")
	}
	switch port {
	case "":
	case "*":
		e.anyPort = true
	default:
		n, err := strconv.Atoi(port)
		if err != nil || n < 1 || n > 65535 || strconv.Itoa(n) != port {
			return e, fmt.Errorf("%q has port %q: use a number from 1 to 65535 or *", raw, port)
		}
		e.port = n
	}
	host = strings.TrimSuffix(host, ".")
	if strings.Contains(host, "/") {
		p, err := netip.ParsePrefix(host)
		if err != nil {
			return e, fmt.Errorf("%q is not a CIDR range: %w", raw, err)
		}
		e.prefix = p.Masked()
	} else if addr, err := netip.ParseAddr(host); err == nil {
		if addr.Zone() != "" {
			return e, fmt.Errorf("%q has an IPv6 zone, which the list cannot match", raw)
		}
		addr = addr.Unmap()
		e.prefix = netip.PrefixFrom(addr, addr.BitLen())
	} else {
		name, _ := strings.CutPrefix(host, "*.")
		if !validHost(name) || net.ParseIP(name) != nil {
			return e, fmt.Errorf("%q is not a host name, an IP address, a CIDR range or *.domain, with an optional :port", raw)
		}
		e.name = host
	}
	if e.prefix.IsValid() && !e.internal {
		for _, ll := range linkLocal {
			if e.prefix.Overlaps(ll) {
				return e, fmt.Errorf("%q reaches the link-local range %s, where cloud metadata services answer: write %s%s to allow it on purpose",
					raw, ll, internalPrefix, strings.TrimSpace(raw))
			}
		}
	}
	e.display = strings.TrimPrefix(strings.TrimSpace(strings.ToLower(raw)), internalPrefix)
	if strings.HasPrefix(e.display, "[") && !strings.Contains(e.display, "]:") {
		e.display = strings.Trim(e.display, "[]")
	}
	e.display = strings.TrimSuffix(e.display, ".")
	return e, nil
}

// CheckHTTPAllowList reports the problems of entries for
// [WithHTTPAllowList], with code [errors.InvalidArgument]: what
// [Tools] would refuse. A configuration check calls it to refuse a
// dangerous entry, such as 169.254.169.254 without internal:, before
// anything runs.
func CheckHTTPAllowList(entries ...string) error {
	_, err := parseAllowList(entries)
	return err
}

func parseAllowList(hosts []string) (*allowList, error) {
	a := &allowList{}
	var problems []string
	for _, h := range hosts {
		e, err := parseAllowEntry(h)
		if err != nil {
			problems = append(problems, err.Error())
			continue
		}
		a.entries = append(a.entries, e)
	}
	if len(problems) > 0 {
		e := errors.Errorf(errors.InvalidArgument, "invalid HTTP allow-list: %s", strings.Join(problems, "; "))
		e.Op = "builtin.Tools"
		return nil, e
	}
	return a, nil
}

// validHost reports whether h is made of DNS labels.
func validHost(h string) bool {
	if h == "" {
		return false
	}
	for label := range strings.SplitSeq(h, ".") {
		if label == "" {
			return false
		}
		for _, c := range []byte(label) {
			if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-' || c == '_') {
				return false
			}
		}
	}
	return true
}

// normalizeHost puts a URL's host in the form of the entries.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	h = strings.TrimPrefix(strings.TrimSuffix(h, "]"), "[")
	return strings.TrimSuffix(h, ".")
}

func (e *allowEntry) matchesHost(host string) bool {
	if e.prefix.IsValid() {
		addr, err := netip.ParseAddr(host)
		return err == nil && e.prefix.Contains(addr.Unmap())
	}
	if suffix, wildcard := strings.CutPrefix(e.name, "*"); wildcard {
		return strings.HasSuffix(host, suffix)
	}
	return host == e.name
}

func (e *allowEntry) allowsPort(port int) bool {
	switch {
	case e.anyPort:
		return true
	case e.port != 0:
		return port == e.port
	}
	return port == 80 || port == 443
}

// portOf returns the port a URL reaches.
func portOf(u *url.URL) int {
	if p, err := strconv.Atoi(u.Port()); err == nil {
		return p
	}
	if u.Scheme == "http" {
		return 80
	}
	return 443
}

// check reports why u may not be fetched, or nil.
func (a *allowList) check(u *url.URL) error {
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return fmt.Errorf("only http and https URLs can be fetched, not %q", u.Scheme)
	case u.User != nil:
		return errors.New("URLs with credentials are refused: send credentials in a header")
	case u.Hostname() == "":
		return errors.New("the URL has no host")
	}
	host, port := normalizeHost(u.Hostname()), portOf(u)
	hostListed := false
	for i := range a.entries {
		if a.entries[i].matchesHost(host) {
			hostListed = true
			if a.entries[i].allowsPort(port) {
				return nil
			}
		}
	}
	if hostListed {
		return fmt.Errorf("port %d of host %q is not on the allow-list (%s): an entry allows ports 80 and 443 unless it names others, as host:8080 or host:*",
			port, u.Hostname(), a.displays())
	}
	return fmt.Errorf("host %q is not on the allow-list (%s)", u.Hostname(), a.displays())
}

func (a *allowList) displays() string {
	out := make([]string, len(a.entries))
	for i, e := range a.entries {
		out[i] = e.display
	}
	return strings.Join(out, ", ")
}

// internalAllowed reports whether an entry marked internal: allows host
// and port.
func (a *allowList) internalAllowed(host string, port int) bool {
	host = normalizeHost(host)
	for i := range a.entries {
		e := &a.entries[i]
		if e.internal && e.matchesHost(host) && e.allowsPort(port) {
			return true
		}
	}
	return false
}

// checkAddress reports why the address a connection is about to reach
// is refused, or nil: an internal address is reached only through an
// entry marked internal: (internalOK) or an address entry that names it.
func (a *allowList) checkAddress(addr netip.Addr, port int, internalOK bool) error {
	addr = addr.Unmap()
	kind := httpexec.InternalAddress(addr)
	if kind == "" || internalOK {
		return nil
	}
	for i := range a.entries {
		e := &a.entries[i]
		if e.prefix.IsValid() && e.prefix.Contains(addr) && e.allowsPort(port) {
			return nil
		}
	}
	return fmt.Errorf("address %s is %s: only an allow-list entry naming it (an address or CIDR range) or one marked %s reaches it",
		addr, kind, internalPrefix)
}

// guardTransport makes t check the address of every connection it dials
// against the list, after name resolution, and connect directly rather
// than through a proxy from the environment, whose address the list
// could not check.
//
// A transport with a dial function of its own keeps it, and the address
// of each connection it returns is checked before anything is sent on
// it; without one, the check runs before connecting (a [net.Dialer]
// Control hook).
func (a *allowList) guardTransport(t *http.Transport) {
	dialer := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	t.Proxy = nil
	t.DialTLSContext, t.DialTLS = nil, nil //nolint:staticcheck // DialTLS is cleared, not used
	custom := t.DialContext
	if custom == nil && t.Dial != nil { //nolint:staticcheck // Dial is wrapped, not used
		dial := t.Dial //nolint:staticcheck // as above
		custom = func(_ context.Context, network, address string) (net.Conn, error) { return dial(network, address) }
	}
	t.Dial = nil //nolint:staticcheck // as above
	t.DialContext = func(ctx context.Context, network, address string) (net.Conn, error) {
		host, portText, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		port, _ := strconv.Atoi(portText)
		internalOK := a.internalAllowed(host, port)
		if custom != nil {
			conn, err := custom(ctx, network, address)
			if err != nil {
				return nil, err
			}
			remote, err := netip.ParseAddrPort(conn.RemoteAddr().String())
			if err == nil {
				err = a.checkAddress(remote.Addr(), int(remote.Port()), internalOK)
			}
			if err != nil {
				_ = conn.Close()
				return nil, err
			}
			return conn, nil
		}
		d := *dialer
		d.Control = func(_, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return fmt.Errorf("address %q: %w", address, err)
			}
			return a.checkAddress(ap.Addr(), int(ap.Port()), internalOK)
		}
		return d.DialContext(ctx, network, address)
	}
}
