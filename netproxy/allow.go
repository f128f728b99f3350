// Package netproxy is git-agent's host-side HTTP/1.1 forward proxy for a
// network host list (DESIGN.md invariant 8). The sandbox has its own network
// namespace with only loopback; the proxy's unix socket is bound into it and
// bridged to 127.0.0.1 there (sandbox.Bridge), and HTTP_PROXY/HTTPS_PROXY
// point at the bridge.
//
// The proxy filters both CONNECT (tunnels, HTTPS) and plain HTTP in
// absolute form by the request line's host against an Allowlist: exact
// names, and IP literals only when listed as literals. It resolves names
// itself and refuses a name any of whose addresses is loopback, private,
// link-local, unspecified or multicast unless that address is listed as a
// literal, then dials exactly the addresses it checked (no second lookup,
// so no DNS rebinding between check and connect). A refusal is
// "403 Forbidden" with the body "blocked by git-agent policy: host X".
// It chains to an upstream proxy taken from the host's HTTPS_PROXY /
// HTTP_PROXY, and logs every decision as a JSON line.
package netproxy

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"sort"
	"strings"
)

// Allowlist is the set of hosts a sandbox may reach. The zero value allows
// nothing.
type Allowlist struct {
	names map[string]bool
	ips   map[netip.Addr]bool
}

// ParseAllowlist returns the allowlist of hosts: DNS names (matched
// exactly, case-insensitively, a trailing dot ignored; no wildcards) and IP
// literals (IPv4, IPv6 with or without brackets). Any port of a listed
// host is allowed. It returns an error for an empty entry, one with a port,
// path, scheme, wildcard or zone, or an empty list.
func ParseAllowlist(hosts []string) (Allowlist, error) {
	a := Allowlist{names: map[string]bool{}, ips: map[netip.Addr]bool{}}
	for _, h := range hosts {
		if ip, ok := parseIP(h); ok {
			a.ips[ip] = true
			continue
		}
		n := normName(h)
		if n == "" || strings.ContainsAny(n, ":/@*% []") {
			return Allowlist{}, fmt.Errorf("network host %q: want a host name or an IP address, without port or scheme", h)
		}
		a.names[n] = true
	}
	if len(a.names)+len(a.ips) == 0 {
		return Allowlist{}, fmt.Errorf("empty network host list")
	}
	return a, nil
}

// Hosts returns the list's entries, sorted: names, then IP literals.
func (a Allowlist) Hosts() []string {
	var out, ips []string
	for n := range a.names {
		out = append(out, n)
	}
	for ip := range a.ips {
		ips = append(ips, ip.String())
	}
	sort.Strings(out)
	sort.Strings(ips)
	return append(out, ips...)
}

// Resolver looks a name up; *net.Resolver implements it.
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// Decision is the verdict on one request's target.
type Decision struct {
	// Allowed says whether the target may be reached.
	Allowed bool
	// Host is the normalized host (a name, or an IP in canonical form);
	// Port the port, in decimal.
	Host, Port string
	// Addrs are the addresses to dial when Allowed (the checked ones).
	Addrs []netip.Addr
	// Reason says why, in a few words ("not in the host list", "resolves
	// to 127.0.0.1, a loopback address", …).
	Reason string
}

// Check decides whether host:port (an authority, as in a CONNECT request
// line or a URL's host with its port filled in) may be reached, resolving
// names through r. A name must be listed; every address it resolves to
// must be public (see Public) or itself listed as a literal. An IP literal
// must be listed as one. A malformed authority is refused.
func (a Allowlist) Check(ctx context.Context, r Resolver, hostport string) Decision {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port == "" || !validPort(port) {
		return Decision{Host: hostport, Reason: "malformed host:port"}
	}
	if ip, ok := parseIP(host); ok {
		d := Decision{Host: ip.String(), Port: port}
		if !a.ips[ip] {
			d.Reason = "IP address not listed as a literal"
			return d
		}
		d.Allowed, d.Addrs, d.Reason = true, []netip.Addr{ip}, "listed literal"
		return d
	}
	name := normName(host)
	d := Decision{Host: name, Port: port}
	if name == "" || strings.ContainsAny(name, ":%/ ") {
		d.Reason = "malformed host"
		return d
	}
	if !a.names[name] {
		d.Reason = "not in the host list"
		return d
	}
	addrs, err := r.LookupNetIP(ctx, "ip", name)
	if err != nil || len(addrs) == 0 {
		d.Reason = "does not resolve"
		return d
	}
	for i, ip := range addrs {
		ip = ip.Unmap().WithZone("")
		addrs[i] = ip
		if kind := Class(ip); kind != "" && !a.ips[ip] {
			d.Reason = fmt.Sprintf("resolves to %s, a %s address not listed as a literal", ip, kind)
			return d
		}
	}
	d.Allowed, d.Addrs, d.Reason = true, addrs, "listed name"
	return d
}

// Class returns "" for a public unicast address, else what it is:
// "unspecified", "loopback", "private" (RFC 1918, fc00::/7, 100.64.0.0/10
// shared space), "link-local" (169.254.0.0/16, fe80::/10, including cloud
// metadata endpoints), "multicast" or "reserved".
func Class(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case !ip.IsValid() || ip.IsUnspecified():
		return "unspecified"
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate() || cgnat.Contains(ip):
		return "private"
	case ip.IsLinkLocalUnicast():
		return "link-local"
	case ip.IsMulticast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.Is4() && (ip.As4()[0] == 0 || ip.As4()[0] >= 240):
		return "reserved"
	case ip.Is6() && (nat64.Contains(ip) || v4compat.Contains(ip)):
		return "reserved" // may embed an IPv4 address, loopback included
	}
	return ""
}

var (
	cgnat    = netip.MustParsePrefix("100.64.0.0/10")
	nat64    = netip.MustParsePrefix("64:ff9b::/96")
	v4compat = netip.MustParsePrefix("::/96")
)

// parseIP parses an IP literal, bracketed or not, IPv4-mapped IPv6 as its
// IPv4 form. A zone (fe80::1%eth0) is not a literal it accepts.
func parseIP(s string) (netip.Addr, bool) {
	s = strings.TrimSuffix(strings.TrimPrefix(s, "["), "]")
	ip, err := netip.ParseAddr(s)
	if err != nil || ip.Zone() != "" {
		return netip.Addr{}, false
	}
	return ip.Unmap(), true
}

// normName lower-cases a host name and drops one trailing dot.
func normName(s string) string {
	return strings.TrimSuffix(strings.ToLower(strings.TrimSpace(s)), ".")
}

func validPort(p string) bool {
	n := 0
	for _, c := range p {
		if c < '0' || c > '9' {
			return false
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return false
		}
	}
	return n > 0
}
