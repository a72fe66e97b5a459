package selfcheck

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"syscall"
	"time"
)

// ErrNotPublic is a fetch refused because the origin's address is not a public one: loopback,
// private, link-local, shared, documentation or otherwise reserved (docs/formats.md#check-json).
var ErrNotPublic = errors.New("not a public address")

// reserved are the ranges besides loopback, private, link-local and multicast that no public
// origin uses, or that lead to one of those (NAT64, 6to4, Teredo).
var reserved = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),
	netip.MustParsePrefix("100.64.0.0/10"),
	netip.MustParsePrefix("192.0.0.0/24"),
	netip.MustParsePrefix("192.0.2.0/24"),
	netip.MustParsePrefix("198.18.0.0/15"),
	netip.MustParsePrefix("198.51.100.0/24"),
	netip.MustParsePrefix("203.0.113.0/24"),
	netip.MustParsePrefix("240.0.0.0/4"),
	netip.MustParsePrefix("64:ff9b::/96"),
	netip.MustParsePrefix("64:ff9b:1::/48"),
	netip.MustParsePrefix("2001::/32"),
	netip.MustParsePrefix("2001:db8::/32"),
	netip.MustParsePrefix("2002::/16"),
	netip.MustParsePrefix("fec0::/10"),
}

// public reports whether a is an address a public origin may have.
func public(a netip.Addr) bool {
	a = a.Unmap()
	if !a.IsValid() || !a.IsGlobalUnicast() || a.IsPrivate() {
		return false
	}
	for _, p := range reserved {
		if p.Contains(a) {
			return false
		}
	}
	return true
}

// publicOnly is a net.Dialer Control function: it refuses to connect to a non-public address.
// It runs on the address actually dialled, after name resolution, so a name that resolves to a
// public address when checked and to a private one when dialled is refused all the same.
func publicOnly(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("dial %s %s: %w", network, address, err)
	}
	if !public(ap.Addr()) {
		return fmt.Errorf("dial %s: %w", address, ErrNotPublic)
	}
	return nil
}

// checkHost resolves host and refuses it when one of its addresses is not public, so that the
// person is told why rather than seeing an unreachable robots.txt.
func checkHost(ctx context.Context, host string) error {
	if a, err := netip.ParseAddr(host); err == nil {
		if !public(a) {
			return fmt.Errorf("%s: %w", host, ErrNotPublic)
		}
		return nil
	}
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return nil // the fetch fails the same way and reports it as unreachable
	}
	for _, a := range addrs {
		if !public(a) {
			return fmt.Errorf("%s resolves to %s: %w", host, a.Unmap(), ErrNotPublic)
		}
	}
	return nil
}

// newClient is the HTTP client of robots.txt fetches: no proxy, short timeouts, and unless
// allowPrivate, only public addresses dialled.
func newClient(timeout time.Duration, allowPrivate bool) *http.Client {
	d := &net.Dialer{Timeout: timeout}
	if !allowPrivate {
		d.Control = publicOnly
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.Proxy = nil
	tr.DialContext = d.DialContext
	tr.TLSHandshakeTimeout = timeout
	tr.ResponseHeaderTimeout = timeout
	tr.MaxIdleConns = 8
	tr.IdleConnTimeout = 30 * time.Second
	return &http.Client{Transport: tr, Timeout: timeout}
}
