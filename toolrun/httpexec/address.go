package httpexec

import "net/netip"

// The ranges of internal addresses beyond those netip classifies.
var (
	sharedRange = netip.MustParsePrefix("100.64.0.0/10") // carrier-grade NAT
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
)

// InternalAddress names the kind of an internal address ("a loopback
// address", "a private address", "a link-local address (where cloud
// metadata services answer)", ...), or returns "" for a public one: the
// addresses a request sent on behalf of a model must not reach unless an
// operator named them. IPv4 addresses mapped into IPv6, and NAT64 ones,
// are classified as the IPv4 address they carry.
func InternalAddress(addr netip.Addr) string {
	addr = addr.Unmap()
	if nat64.Contains(addr) {
		b := addr.As16()
		return InternalAddress(netip.AddrFrom4([4]byte(b[12:])))
	}
	switch {
	case addr.IsLoopback():
		return "a loopback address"
	case addr.IsLinkLocalUnicast(), addr.IsLinkLocalMulticast():
		return "a link-local address (where cloud metadata services answer)"
	case addr.IsPrivate():
		return "a private address"
	case addr.IsUnspecified(), thisNetwork.Contains(addr):
		return "an unspecified address"
	case addr.IsMulticast(), addr.IsInterfaceLocalMulticast():
		return "a multicast address"
	case sharedRange.Contains(addr):
		return "a shared (carrier-grade NAT) address"
	}
	return ""
}
