package config

import (
	"fmt"
	"sort"
	"strings"
)

// credentialExact are variables dropped by name (compared upper-cased).
var credentialExact = []string{
	"DATABASE_URL", "SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO",
	"DBUS_SESSION_BUS_ADDRESS", "DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY",
	"KRB5CCNAME", "NETRC", "GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS",
	"DOCKER_HOST", "DOCKER_CONFIG", "KUBECONFIG",
}

// credentialParts are substrings that make a variable credential-looking.
var credentialParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "CREDENTIAL", "APIKEY", "COOKIE"}

// CredentialLike reports whether the environment variable name looks like
// a credential and so is dropped from the sandbox unless a config passes it
// by name (invariant 7): names containing TOKEN, SECRET, PASSWORD, PASSWD,
// CREDENTIAL, APIKEY or COOKIE, ending in _KEY, _AUTH or _PAT, starting with
// AWS_, or one of DATABASE_URL, SSH_AUTH_SOCK, DBUS_SESSION_BUS_ADDRESS,
// DISPLAY and the other sockets and helpers in credentialExact. The match
// is case-insensitive. The sandbox's environment scrubbing should use this
// same function so the two never disagree.
func CredentialLike(name string) bool {
	n := strings.ToUpper(name)
	if contains(credentialExact, n) || strings.HasPrefix(n, "AWS_") {
		return true
	}
	for _, s := range []string{"_KEY", "_AUTH", "_PAT"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	for _, part := range credentialParts {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// redirectLike reports whether setting name to a project-chosen value could
// send the agent's traffic (and the credentials it carries) elsewhere or
// change what the dynamic loader runs.
func redirectLike(name string) bool {
	n := strings.ToUpper(name)
	if strings.HasPrefix(n, "LD_") {
		return true
	}
	for _, part := range []string{"URL", "HOST", "ENDPOINT", "PROXY", "BASE"} {
		if strings.Contains(n, part) {
			return true
		}
	}
	return false
}

// widening is one key of a project layer that widens the policy, and why.
type widening struct {
	key string
	why string
}

// Widening returns the keys of f, read as a PROJECT layer, that widen the
// sandbox policy, in file order; nil when f only narrows it. Widening:
//   - worktrees (where the writable worktree is placed on the host);
//   - mount and ro entries outside the worktree (absolute, "~", "..");
//   - network on or a host list (off is narrowing);
//   - sandbox other than "bwrap" or "auto";
//   - inherit_env = true;
//   - env passing a credential-looking variable through (bare KEY), or
//     setting a credential-looking or redirecting variable (*URL*, *HOST*,
//     *ENDPOINT*, *PROXY*, *BASE*, LD_*) to a value;
//   - command, prompt and repair (they choose which program runs with the
//     tool's credentials).
//
// Narrowing, always allowed: branch_prefix, verify, checks, setup, hide,
// network off, inherit_env = false, sandbox "bwrap"/"auto", relative mount
// and ro inside the worktree, other env entries.
func Widening(f *File) []string {
	ws := widenings(f)
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, w.key)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

func widenings(f *File) []widening {
	var ws []widening
	if f.Has("worktrees") {
		ws = append(ws, widening{"worktrees", "places the writable worktree at a host path"})
	}
	if f.Has("global") {
		ws = append(ws, toolWidenings("global", f.Global)...)
	}
	for name, t := range f.Tools {
		ws = append(ws, toolWidenings("tools."+name, t)...)
	}
	sort.SliceStable(ws, func(i, j int) bool {
		a, b := f.Pos(ws[i].key), f.Pos(ws[j].key)
		if a != b {
			return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
		}
		return ws[i].key < ws[j].key
	})
	return ws
}

func toolWidenings(prefix string, t Tool) []widening {
	var ws []widening
	add := func(k, format string, args ...any) {
		ws = append(ws, widening{prefix + "." + k, fmt.Sprintf(format, args...)})
	}
	if t.InheritEnv != nil && *t.InheritEnv {
		add("inherit_env", "inherit_env = true passes the host environment")
	}
	if t.Network != nil && t.Network.Mode != NetworkOff {
		add("network", "network %s reaches the network", t.Network.Mode)
	}
	for _, k := range []struct {
		name string
		list []string
	}{{"mount", t.Mount}, {"ro", t.Ro}} {
		for _, e := range k.list {
			if outsideWorktree(e) {
				add(k.name, "%s %q is outside the worktree", k.name, e)
				break
			}
		}
	}
	for _, e := range t.Env {
		name, _, hasValue := strings.Cut(e, "=")
		if !hasValue && CredentialLike(name) {
			add("env", "env passes the host's %s through", name)
			break
		}
		if hasValue && (CredentialLike(name) || redirectLike(name)) {
			add("env", "env sets %s", name)
			break
		}
	}
	if t.Sandbox != "" && t.Sandbox != "bwrap" && t.Sandbox != "auto" {
		add("sandbox", "sandbox = %q weakens isolation", t.Sandbox)
	}
	for _, k := range []struct {
		name string
		argv []string
	}{{"command", t.Command}, {"prompt", t.Prompt}, {"repair", t.Repair}} {
		if k.argv != nil {
			add(k.name, "%s chooses the program run with the tool's credentials", k.name)
		}
	}
	return ws
}
