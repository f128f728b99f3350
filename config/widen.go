package config

import (
	"fmt"
	"sort"
	"strings"
)

// credentialExact are variables dropped by name (compared upper-cased).
var credentialExact = []string{
	"DATABASE_URL", "REDIS_URL", "NETRC", "KRB5CCNAME", "NPM_TOKEN", "PGPASSFILE",
	"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
	"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR",
	"DOCKER_HOST", "DOCKER_CONFIG", "CONTAINER_HOST", "KUBECONFIG",
	"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
	"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_EXEC_PATH",
	"GIT_ASKPASS", "SSH_ASKPASS", "SUDO_ASKPASS", "GIT_NAMESPACE",
	"GIT_CEILING_DIRECTORIES", "GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF",
	"GIT_TEMPLATE_DIR", "GIT_REPLACE_REF_BASE",
}

// credentialParts are substrings that make a variable credential-looking.
var credentialParts = []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "API_KEY",
	"CREDENTIAL", "AUTH", "COOKIE", "PRIVATE"}

// CredentialLike reports whether the environment variable name must not
// reach a sandbox unless a config passes it by name (invariant 7). It is a
// superset of what the sandbox package's ScrubEnv drops (a test keeps the
// two in step), so a project config passing any scrubbed variable is
// always classified as widening: names containing TOKEN, SECRET, PASSWORD,
// PASSWD, APIKEY, API_KEY, CREDENTIAL, AUTH (not GIT_AUTHOR_*), COOKIE or
// PRIVATE; ending in _KEY, _PAT or _DSN; starting with AWS_, AZURE_,
// VAULT_, GIT_CONFIG, GIT_SSH or LD_; and the host sockets, helpers and git
// redirections in credentialExact (DATABASE_URL, SSH_AUTH_SOCK, DISPLAY,
// GIT_DIR, ...). The match is case-insensitive.
func CredentialLike(name string) bool {
	n := strings.ToUpper(name)
	if contains(credentialExact, n) {
		return true
	}
	for _, p := range []string{"AWS_", "AZURE_", "VAULT_", "GIT_CONFIG", "GIT_SSH", "LD_"} {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	for _, s := range []string{"_KEY", "_PAT", "_DSN"} {
		if strings.HasSuffix(n, s) {
			return true
		}
	}
	if strings.HasPrefix(n, "GIT_AUTHOR_") {
		return false // identity, not authentication
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
