package sandbox

import (
	"strings"
)

// ScrubEnv returns environ (KEY=VALUE entries, as from os.Environ) without
// the variables that must not reach an agent (DESIGN.md invariant 7), in
// their original order. Names are matched case-insensitively; a name listed
// in pass (exact name, case-insensitive) is kept whatever it looks like.
// Dropped:
//
//   - credential-looking names: containing TOKEN, SECRET, PASSWORD, PASSWD,
//     APIKEY, API_KEY, CREDENTIAL (GOOGLE_APPLICATION_CREDENTIALS), AUTH
//     (but not GIT_AUTHOR_*, which is identity), COOKIE, PRIVATE; ending in
//     _KEY, _PAT or _DSN; starting with AWS_, AZURE_, VAULT_; and
//     DATABASE_URL, REDIS_URL, NETRC, KRB5CCNAME, NPM_TOKEN, PGPASSFILE;
//   - access to host services: SSH_AUTH_SOCK, SSH_AGENT_PID, GPG_AGENT_INFO,
//     DBUS_SESSION_BUS_ADDRESS, DISPLAY, WAYLAND_DISPLAY, XAUTHORITY,
//     XDG_RUNTIME_DIR, DOCKER_HOST, CONTAINER_HOST, KUBECONFIG;
//   - git redirections: GIT_DIR, GIT_WORK_TREE, GIT_INDEX_FILE,
//     GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES,
//     GIT_COMMON_DIR, GIT_CONFIG*, GIT_EXEC_PATH, GIT_SSH*, GIT_ASKPASS,
//     GIT_NAMESPACE, GIT_CEILING_DIRECTORIES, GIT_PROXY_COMMAND,
//     GIT_EXTERNAL_DIFF, GIT_TEMPLATE_DIR, GIT_REPLACE_REF_BASE;
//   - loader injection: LD_PRELOAD, LD_LIBRARY_PATH, LD_AUDIT;
//   - malformed entries (no "=" or an empty name).
//
// Provider keys an agent needs (ANTHROPIC_API_KEY, …) are dropped too: the
// tool's profile passes them by name.
func ScrubEnv(environ []string, pass []string) []string {
	keep := make(map[string]bool, len(pass))
	for _, p := range pass {
		keep[strings.ToUpper(p)] = true
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, _, ok := strings.Cut(kv, "=")
		if !ok || k == "" {
			continue
		}
		u := strings.ToUpper(k)
		if keep[u] || !scrubbed(u) {
			out = append(out, kv)
		}
	}
	return out
}

// scrubbed reports whether the upper-cased name u is dropped by ScrubEnv.
func scrubbed(u string) bool {
	switch u {
	case "DATABASE_URL", "REDIS_URL", "NETRC", "KRB5CCNAME", "NPM_TOKEN", "PGPASSFILE",
		"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
		"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR",
		"DOCKER_HOST", "CONTAINER_HOST", "KUBECONFIG",
		"GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY",
		"GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR", "GIT_EXEC_PATH",
		"GIT_ASKPASS", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES", "GIT_PROXY_COMMAND",
		"GIT_EXTERNAL_DIFF", "GIT_TEMPLATE_DIR", "GIT_REPLACE_REF_BASE",
		"LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT":
		return true
	}
	if strings.HasPrefix(u, "GIT_AUTHOR_") {
		return false // identity, not authentication
	}
	for _, s := range []string{"TOKEN", "SECRET", "PASSWORD", "PASSWD", "APIKEY", "API_KEY",
		"CREDENTIAL", "AUTH", "COOKIE", "PRIVATE"} {
		if strings.Contains(u, s) {
			return true
		}
	}
	for _, s := range []string{"_KEY", "_PAT", "_DSN"} {
		if strings.HasSuffix(u, s) {
			return true
		}
	}
	for _, s := range []string{"AWS_", "AZURE_", "VAULT_", "GIT_CONFIG", "GIT_SSH"} {
		if strings.HasPrefix(u, s) {
			return true
		}
	}
	return false
}

// PrependPath returns a copy of env (KEY=VALUE entries) whose PATH starts
// with InitDir, so that "git-agent" inside the sandbox is the bound binary.
// Any other occurrence of InitDir in PATH is removed; a missing PATH becomes
// InitDir followed by the usual system directories. When several PATH
// entries exist, the last wins (as in exec) and the others are dropped.
func PrependPath(env []string) []string {
	out := make([]string, 0, len(env)+1)
	path, found := "", false
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "PATH="); ok {
			path, found = v, true
			continue
		}
		out = append(out, kv)
	}
	if !found {
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin"
	}
	parts := []string{InitDir}
	for _, d := range strings.Split(path, ":") {
		if d != InitDir && d != "" {
			parts = append(parts, d)
		}
	}
	return append(out, "PATH="+strings.Join(parts, ":"))
}
