package config

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/git-agent/git-agent/errfmt"
)

// Known keys per table, in documentation order.
var (
	topKeys    = []string{"worktrees", "branch_prefix", "global", "tools", "verify", "checks", "setup"}
	toolKeys   = []string{"inherit_env", "network", "mount", "ro", "hide", "env", "command", "prompt", "repair", "sandbox"}
	verifyKeys = []string{"max_attempts", "parallel"}
	checkKeys  = []string{"name", "command", "timeout", "env"}
)

// Parse decodes one config layer. path is only for messages (a display
// path such as "<base>:.git-agent/config.toml"). Syntax errors, duplicate
// keys or tables, unknown keys and bad values return an *errfmt.Error with
// code ErrConfig whose What is "path:line:col: <problem>" (the position is
// omitted when unknown). Check timeouts default to DefaultTimeout; no other
// defaults are filled in (see Merge).
func Parse(path string, data []byte) (*File, error) {
	var raw map[string]any
	if _, err := toml.Decode(string(data), &raw); err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, configError(path, Position{pe.Position.Line, pe.Position.Col}, pe.Message,
				"fix the TOML syntax at that position")
		}
		return nil, configError(path, Position{}, err.Error(), "fix the TOML syntax")
	}
	p := &parser{f: &File{Path: path, keys: locate(string(data))}}
	if err := p.top(raw); err != nil {
		return nil, err
	}
	return p.f, nil
}

// configError builds the ErrConfig error for a problem at pos in path.
func configError(path string, pos Position, msg, remedy string) error {
	what := path + ": " + msg
	if pos.Line > 0 {
		what = path + ":" + pos.String() + ": " + msg
	}
	return errfmt.New(errfmt.ErrConfig, what, "reading config "+path, remedy)
}

// parser walks the decoded map. It records every key it accepts in f.keys
// (keeping the scanner's position, or the parent's when the scanner had
// none) so that File.Has is exact.
type parser struct {
	f *File
}

// pos returns the position of key, falling back to its parents.
func (p *parser) pos(key string) Position {
	for k := key; k != ""; k = parentKey(k) {
		if pos, ok := p.f.keys[k]; ok {
			return pos
		}
	}
	return Position{}
}

// mark records key as present.
func (p *parser) mark(key string) {
	p.f.keys[key] = p.pos(key)
}

// bad returns the ErrConfig error for a bad value at key.
func (p *parser) bad(key, format string, args ...any) error {
	return configError(p.f.Path, p.pos(key), key+": "+fmt.Sprintf(format, args...), "fix the value of "+key)
}

// sorted returns m's keys in file order (unplaced keys last, by name).
func (p *parser) sorted(prefix string, m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	at := func(k string) Position {
		if pos, ok := p.f.keys[join(prefix, k)]; ok {
			return pos
		}
		return Position{1 << 30, 0}
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := at(keys[i]), at(keys[j])
		if a != b {
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		}
		return keys[i] < keys[j]
	})
	return keys
}

// unknown returns the error for an unknown key, suggesting a near known one.
func (p *parser) unknown(key, name string, known []string) error {
	msg := fmt.Sprintf("unknown key %q", key)
	if s := suggest(name, known); s != "" {
		msg += fmt.Sprintf(" (did you mean %q?)", s)
	}
	return configError(p.f.Path, p.pos(key), msg,
		"remove or rename the key; known keys here: "+strings.Join(known, ", "))
}

func join(prefix, k string) string {
	if prefix == "" {
		return k
	}
	return prefix + "." + k
}

func (p *parser) top(raw map[string]any) error {
	f := p.f
	for _, k := range p.sorted("", raw) {
		v := raw[k]
		var err error
		switch k {
		case "worktrees":
			f.Worktrees, err = p.str(k, v)
			if err == nil && f.Worktrees == "" {
				err = p.bad(k, "must not be empty")
			}
		case "branch_prefix":
			f.BranchPrefix, err = p.str(k, v)
			if err == nil {
				err = p.branchPrefix(k, f.BranchPrefix)
			}
		case "global":
			var m map[string]any
			if m, err = p.table(k, v); err == nil {
				f.Global, err = p.tool(k, m)
			}
		case "tools":
			err = p.tools(k, v)
		case "verify":
			err = p.verify(k, v)
		case "checks":
			f.Checks, err = p.checks(k, v)
		case "setup":
			f.Setup, err = p.checks(k, v)
		default:
			return p.unknown(k, k, topKeys)
		}
		if err != nil {
			return err
		}
		p.mark(k)
	}
	return nil
}

func (p *parser) tools(key string, v any) error {
	m, err := p.table(key, v)
	if err != nil {
		return err
	}
	p.f.Tools = map[string]Tool{}
	for _, name := range p.sorted(key, m) {
		k := join(key, name)
		if name == "" {
			return p.bad(k, "tool name must not be empty")
		}
		tm, err := p.table(k, m[name])
		if err != nil {
			return err
		}
		if p.f.Tools[name], err = p.tool(k, tm); err != nil {
			return err
		}
		p.mark(k)
	}
	return nil
}

func (p *parser) tool(prefix string, m map[string]any) (Tool, error) {
	var t Tool
	for _, name := range p.sorted(prefix, m) {
		k, v := join(prefix, name), m[name]
		var err error
		switch name {
		case "inherit_env":
			var b bool
			b, err = p.boolean(k, v)
			t.InheritEnv = &b
		case "network":
			t.Network, err = p.network(k, v)
		case "mount":
			t.Mount, err = p.paths(k, v, true)
		case "ro":
			t.Ro, err = p.paths(k, v, false)
		case "hide":
			t.Hide, err = p.paths(k, v, false)
		case "env":
			t.Env, err = p.env(k, v, true)
		case "command":
			t.Command, err = p.argv(k, v)
		case "prompt", "repair":
			var a []string
			if a, err = p.argv(k, v); err == nil && !hasPlaceholder(a) {
				err = p.bad(k, "template must contain \"{prompt}\"")
			}
			if name == "prompt" {
				t.Prompt = a
			} else {
				t.Repair = a
			}
		case "sandbox":
			t.Sandbox, err = p.str(k, v)
			if err == nil && !contains(sandboxes, t.Sandbox) {
				err = p.bad(k, "%q is not one of %s", t.Sandbox, strings.Join(sandboxes, ", "))
			}
		default:
			return t, p.unknown(k, name, toolKeys)
		}
		if err != nil {
			return t, err
		}
		p.mark(k)
	}
	return t, nil
}

func (p *parser) verify(key string, v any) error {
	m, err := p.table(key, v)
	if err != nil {
		return err
	}
	for _, name := range p.sorted(key, m) {
		k, v := join(key, name), m[name]
		switch name {
		case "max_attempts":
			n, ok := v.(int64)
			if !ok {
				return p.bad(k, "want an integer, got %s", typeName(v))
			}
			if n < 1 || n > MaxAttemptsLimit {
				return p.bad(k, "%d is outside 1..%d", n, MaxAttemptsLimit)
			}
			p.f.Verify.MaxAttempts = int(n)
		case "parallel":
			if p.f.Verify.Parallel, err = p.boolean(k, v); err != nil {
				return err
			}
		default:
			return p.unknown(k, name, verifyKeys)
		}
		p.mark(k)
	}
	return nil
}

// checks parses an array of tables; an empty array is a present, empty list.
func (p *parser) checks(key string, v any) ([]Check, error) {
	var tables []map[string]any
	switch a := v.(type) {
	case []map[string]any:
		tables = a
	case []any:
		for i, e := range a {
			m, ok := e.(map[string]any)
			if !ok {
				return nil, p.bad(fmt.Sprintf("%s[%d]", key, i), "want a table, got %s", typeName(e))
			}
			tables = append(tables, m)
		}
	default:
		return nil, p.bad(key, "want an array of tables ([[%s]]), got %s", key, typeName(v))
	}
	out := make([]Check, 0, len(tables))
	for i, m := range tables {
		c, err := p.check(fmt.Sprintf("%s[%d]", key, i), m)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

func (p *parser) check(prefix string, m map[string]any) (Check, error) {
	c := Check{Timeout: DefaultTimeout}
	written := ""
	for _, name := range p.sorted(prefix, m) {
		k, v := join(prefix, name), m[name]
		var err error
		switch name {
		case "name":
			if c.Name, err = p.str(k, v); err == nil && strings.TrimSpace(c.Name) == "" {
				err = p.bad(k, "must not be empty")
			}
		case "command":
			if s, ok := v.(string); ok {
				if strings.TrimSpace(s) == "" {
					return c, p.bad(k, "must not be empty")
				}
				c.Argv, written = []string{"sh", "-c", s}, s
			} else if c.Argv, err = p.argv(k, v); err == nil {
				written = strings.Join(c.Argv, " ")
			}
		case "timeout":
			c.Timeout, err = p.duration(k, v)
		case "env":
			c.Env, err = p.env(k, v, false)
		default:
			return c, p.unknown(k, name, checkKeys)
		}
		if err != nil {
			return c, err
		}
		p.mark(k)
	}
	if c.Argv == nil {
		return c, p.bad(prefix, "missing command")
	}
	if c.Name == "" {
		c.Name = written
	}
	p.mark(prefix)
	return c, nil
}

func (p *parser) duration(k string, v any) (time.Duration, error) {
	s, ok := v.(string)
	if !ok {
		return 0, p.bad(k, "want a duration string such as \"5m\" or \"90s\", got %s", typeName(v))
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, p.bad(k, "%q is not a duration such as \"5m\" or \"90s\"", s)
	}
	if d <= 0 {
		return 0, p.bad(k, "%q must be positive", s)
	}
	return d, nil
}
