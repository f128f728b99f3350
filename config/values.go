package config

import (
	"fmt"
	"net"
	"regexp"
	"strings"
	"time"
)

var (
	envKeyRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	hostRE   = regexp.MustCompile(`^(\*\.)?[A-Za-z0-9]([A-Za-z0-9.-]*[A-Za-z0-9])?(:[0-9]{1,5})?$`)
)

// typeName names a decoded TOML value's type for messages.
func typeName(v any) string {
	switch v.(type) {
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case int64:
		return "an integer"
	case float64:
		return "a float"
	case time.Time:
		return "a date-time"
	case map[string]any:
		return "a table"
	case []map[string]any, []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}

func (p *parser) str(k string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", p.bad(k, "want a string, got %s", typeName(v))
	}
	return s, nil
}

func (p *parser) boolean(k string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, p.bad(k, "want true or false, got %s", typeName(v))
	}
	return b, nil
}

func (p *parser) table(k string, v any) (map[string]any, error) {
	m, ok := v.(map[string]any)
	if !ok {
		return nil, p.bad(k, "want a table, got %s", typeName(v))
	}
	return m, nil
}

// strList returns a non-nil list of strings, each non-empty.
func (p *parser) strList(k string, v any) ([]string, error) {
	a, ok := v.([]any)
	if !ok {
		return nil, p.bad(k, "want an array of strings, got %s", typeName(v))
	}
	out := make([]string, 0, len(a))
	for i, e := range a {
		s, ok := e.(string)
		if !ok {
			return nil, p.bad(k, "element %d: want a string, got %s", i+1, typeName(e))
		}
		if s == "" || strings.ContainsAny(s, "\x00\n") {
			return nil, p.bad(k, "element %d: empty or contains a newline or NUL", i+1)
		}
		out = append(out, s)
	}
	return out, nil
}

// argv returns a non-empty argument vector.
func (p *parser) argv(k string, v any) ([]string, error) {
	if _, ok := v.(string); ok {
		return nil, p.bad(k, "want an argv array such as [\"prog\", \"arg\"], got a string")
	}
	a, err := p.strList(k, v)
	if err == nil && len(a) == 0 {
		err = p.bad(k, "must name a program")
	}
	return a, err
}

// paths validates a list of paths; withMode allows a ":ro"/":rw" suffix.
func (p *parser) paths(k string, v any, withMode bool) ([]string, error) {
	a, err := p.strList(k, v)
	if err != nil {
		return nil, err
	}
	for i, s := range a {
		path := s
		if withMode {
			path, _ = SplitMount(s)
		}
		if path == "" {
			return nil, p.bad(k, "element %d: %q has no path", i+1, s)
		}
	}
	return a, nil
}

// env validates "KEY=VALUE" entries; bare "KEY" only when passthrough.
func (p *parser) env(k string, v any, passthrough bool) ([]string, error) {
	a, err := p.strList(k, v)
	if err != nil {
		return nil, err
	}
	for i, s := range a {
		name, _, hasValue := strings.Cut(s, "=")
		if !envKeyRE.MatchString(name) {
			return nil, p.bad(k, "element %d: %q is not a variable name", i+1, name)
		}
		if !hasValue && !passthrough {
			return nil, p.bad(k, "element %d: want KEY=VALUE, got %q (checks never see host variables)", i+1, s)
		}
	}
	return a, nil
}

// network accepts true/false, "on"/"off", or a non-empty array of hosts.
func (p *parser) network(k string, v any) (*Network, error) {
	switch x := v.(type) {
	case bool:
		if x {
			return &Network{Mode: NetworkOn}, nil
		}
		return &Network{Mode: NetworkOff}, nil
	case string:
		if x == NetworkOn || x == NetworkOff {
			return &Network{Mode: x}, nil
		}
		return nil, p.bad(k, "%q is not true, false, \"on\", \"off\" or an array of hosts", x)
	case []any:
		hosts, err := p.strList(k, v)
		if err != nil {
			return nil, err
		}
		if len(hosts) == 0 {
			return nil, p.bad(k, "empty host list; write network = false for no network")
		}
		for i, h := range hosts {
			if !validHost(h) {
				return nil, p.bad(k, "element %d: %q is not a host name, IP address or host:port", i+1, h)
			}
		}
		return &Network{Mode: NetworkHosts, Hosts: hosts}, nil
	}
	return nil, p.bad(k, "want true, false, \"on\", \"off\" or an array of hosts, got %s", typeName(v))
}

// validHost accepts a host name (optionally "*." prefixed), an IP literal,
// either with an optional ":port", and "[v6]:port".
func validHost(h string) bool {
	if net.ParseIP(h) != nil || hostRE.MatchString(h) {
		return true
	}
	if host, port, err := net.SplitHostPort(h); err == nil && port != "" {
		return net.ParseIP(host) != nil
	}
	return false
}

// branchPrefix checks that prefix+id is a valid branch name under refs/heads.
func (p *parser) branchPrefix(k, s string) error {
	if s == "" || !strings.HasSuffix(s, "/") {
		return p.bad(k, "%q must be non-empty and end with \"/\"", s)
	}
	for _, seg := range strings.Split(strings.TrimSuffix(s, "/"), "/") {
		if seg == "" || seg[0] == '.' || strings.HasSuffix(seg, ".lock") ||
			strings.Contains(seg, "..") || strings.ContainsAny(seg, " ~^:?*[\\\x7f") ||
			strings.IndexFunc(seg, func(r rune) bool { return r < 0x20 }) >= 0 {
			return p.bad(k, "%q is not a valid ref name prefix", s)
		}
	}
	if strings.HasPrefix(s, "refs/") {
		return p.bad(k, "%q is relative to refs/heads/; drop \"refs/\"", s)
	}
	return nil
}

func hasPlaceholder(a []string) bool {
	for _, s := range a {
		if strings.Contains(s, "{prompt}") {
			return true
		}
	}
	return false
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

// suggest returns the known key closest to name within edit distance 2.
func suggest(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur := make([]int, len(b)+1)
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev = cur
	}
	return prev[len(b)]
}
