package netproxy

import (
	"context"
	"errors"
	"net/netip"
	"strings"
	"testing"
)

// table is a Resolver answering from a fixed map; unknown names fail.
type table map[string][]string

func (t table) LookupNetIP(_ context.Context, _, host string) ([]netip.Addr, error) {
	var out []netip.Addr
	for _, s := range t[host] {
		out = append(out, netip.MustParseAddr(s))
	}
	if len(out) == 0 {
		return nil, errors.New("no such host")
	}
	return out, nil
}

var dns = table{
	"api.example.com":    {"93.184.216.34"},
	"evil.example.com":   {"93.184.216.35"},
	"localhost":          {"127.0.0.1", "::1"},
	"internal.corp":      {"10.1.2.3"},
	"metadata.cloud":     {"169.254.169.254"},
	"v6.example.com":     {"2001:4860:4860::8888"},
	"v6local.example":    {"fe80::1"},
	"ula.example":        {"fd00::1"},
	"mapped.example":     {"::ffff:127.0.0.1"},
	"cgnat.example":      {"100.64.0.1"},
	"zero.example":       {"0.0.0.0"},
	"mixed.example":      {"93.184.216.36", "192.168.1.1"},
	"nat64.example":      {"64:ff9b::7f00:1"},
	"private-ok.example": {"10.9.9.9"},
}

func TestCheck(t *testing.T) {
	list := []string{"api.example.com", "localhost", "internal.corp", "metadata.cloud",
		"v6.example.com", "v6local.example", "ula.example", "mapped.example", "cgnat.example",
		"zero.example", "mixed.example", "nat64.example", "private-ok.example", "10.9.9.9",
		"127.0.0.2", "[2001:db8::1]", "nosuch.example"}
	a, err := ParseAllowlist(list)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		target string
		ok     bool
		reason string // a substring of the reason
	}{
		{"api.example.com:443", true, "listed name"},
		{"api.example.com:80", true, "listed name"},
		{"API.Example.COM.:443", true, "listed name"},
		{"evil.example.com:443", false, "not in the host list"},
		{"sub.api.example.com:443", false, "not in the host list"},
		{"example.com:443", false, "not in the host list"},
		{"localhost:8080", false, "127.0.0.1, a loopback"},
		{"internal.corp:80", false, "10.1.2.3, a private"},
		{"metadata.cloud:80", false, "169.254.169.254, a link-local"},
		{"v6.example.com:443", true, "listed name"},
		{"v6local.example:443", false, "fe80::1, a link-local"},
		{"ula.example:443", false, "fd00::1, a private"},
		{"mapped.example:443", false, "127.0.0.1, a loopback"},
		{"cgnat.example:443", false, "private"},
		{"zero.example:443", false, "unspecified"},
		{"mixed.example:443", false, "192.168.1.1, a private"},
		{"nat64.example:443", false, "reserved"},
		{"private-ok.example:443", true, "listed name"}, // its address is a listed literal
		{"nosuch.example:443", false, "does not resolve"},
		{"127.0.0.2:9999", true, "listed literal"},
		{"127.0.0.1:80", false, "not listed as a literal"},
		{"[::1]:80", false, "not listed as a literal"},
		{"[::ffff:127.0.0.2]:80", true, "listed literal"},
		{"[2001:db8::1]:443", true, "listed literal"},
		{"[2001:db8::2]:443", false, "not listed as a literal"},
		{"93.184.216.34:443", false, "not listed as a literal"}, // api.example.com's address is not the name
		{"2130706433:80", false, "not in the host list"},        // decimal 127.0.0.1
		{"0x7f.0.0.1:80", false, "not in the host list"},
		{"[fe80::1%eth0]:80", false, "malformed"},
		{"api.example.com", false, "malformed"},
		{"api.example.com:", false, "malformed"},
		{"api.example.com:0", false, "malformed"},
		{"api.example.com:70000", false, "malformed"},
		{"api.example.com:https", false, "malformed"},
		{":443", false, "malformed"},
	} {
		d := a.Check(context.Background(), dns, c.target)
		if d.Allowed != c.ok || !strings.Contains(d.Reason, c.reason) {
			t.Errorf("Check(%q) = %v %q, want %v %q", c.target, d.Allowed, d.Reason, c.ok, c.reason)
		}
		if d.Allowed && len(d.Addrs) == 0 {
			t.Errorf("Check(%q): allowed without addresses", c.target)
		}
	}
}

func TestParseAllowlist(t *testing.T) {
	for _, bad := range [][]string{nil, {""}, {"api.example.com:443"}, {"https://api.example.com"},
		{"*.example.com"}, {"a b"}, {"user@host"}, {"fe80::1%eth0"}} {
		if _, err := ParseAllowlist(bad); err == nil {
			t.Errorf("ParseAllowlist(%q): no error", bad)
		}
	}
	a, err := ParseAllowlist([]string{"B.example.", "a.example", "::1", "[2001:db8::1]", "127.0.0.1"})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(a.Hosts(), " ")
	if want := "a.example b.example 127.0.0.1 2001:db8::1 ::1"; got != want {
		t.Errorf("Hosts() = %q, want %q", got, want)
	}
	if d := (Allowlist{}).Check(context.Background(), dns, "api.example.com:443"); d.Allowed {
		t.Error("the zero Allowlist allowed a host")
	}
}

func TestClass(t *testing.T) {
	for ip, want := range map[string]string{
		"8.8.8.8": "", "2001:4860:4860::8888": "", "127.0.0.1": "loopback", "127.255.0.1": "loopback",
		"::1": "loopback", "10.0.0.1": "private", "172.16.0.1": "private", "192.168.0.1": "private",
		"fc00::1": "private", "100.127.255.255": "private", "169.254.1.1": "link-local",
		"fe80::1": "link-local", "0.0.0.0": "unspecified", "::": "unspecified", "224.0.0.1": "multicast",
		"ff02::1": "multicast", "240.0.0.1": "reserved", "0.1.2.3": "reserved", "::ffff:10.0.0.1": "private",
		"::7f00:1": "reserved",
	} {
		if got := Class(netip.MustParseAddr(ip)); got != want {
			t.Errorf("Class(%s) = %q, want %q", ip, got, want)
		}
	}
}
