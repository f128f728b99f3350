// Package config reads git-agent's TOML configuration (DESIGN.md
// "Configuration"), layers it, and decides whether a project's own config
// may be used without the user's trust (invariant 10).
//
// # Format
//
// The format is agent-run's, with git-agent's additions:
//
//	worktrees = "~/src/.agent-worktrees"   # where run worktrees go
//	branch_prefix = "agent/"               # branch = <prefix><id>
//
//	[global]                     # every tool
//	inherit_env = false          # see below
//	network = true               # true|false|"on"|"off"|["host", ...]
//	mount = ["~/data:ro", "/opt/sdk"]   # rw unless ":ro"; "~" expanded
//	ro = ["~/.config/gh"]        # bound read-only
//	hide = ["secrets/"]          # masked (empty) inside the sandbox
//	env = ["CI=1", "GITHUB_TOKEN"]      # KEY=VALUE, or KEY to pass through
//	sandbox = "auto"             # auto|bwrap|landlock|none
//
//	[tools.claude]               # chosen by the command's basename
//	command = ["claude"]
//	prompt = ["claude", "-p", "{prompt}"]
//	repair = ["claude", "--continue", "-p", "{prompt}"]
//
//	[verify]
//	max_attempts = 3             # 1..50, attempt 1 is the task
//	parallel = false
//
//	[[setup]]                    # run before the checks, same shape
//	command = "npm ci"
//
//	[[checks]]
//	name = "test"
//	command = ["go", "test", "./..."]   # argv, or a string run with sh -c
//	timeout = "5m"               # Go duration, default 10m
//	env = ["CGO_ENABLED=0"]      # KEY=VALUE only
//
// Unknown keys, duplicate tables and bad values are *errfmt.Error values
// with code ERR_CONFIG whose What starts with "path:line:col:".
//
// # Meanings and decisions
//
// inherit_env = true passes the whole host environment to the agent minus
// credential-looking variables (CredentialLike); false, the default, passes a
// minimal one (PATH, HOME, TERM, LANG, LC_*, USER, TZ and what the tool's
// profile needs). In both cases a variable named bare in env is passed
// through by name even when it looks like a credential: that is how a user
// hands an API key to a tool.
//
// network: true/"on" shares the host network (agent-run's default, used when
// no layer sets it); false/"off" gives the sandbox its own empty network
// namespace; an array of hosts ("api.example.com", "203.0.113.7", "::1":
// exact names or IP literals, no port, scheme or wildcard) gives it its own
// namespace too and allows only those hosts, on any port, through
// git-agent's filtering proxy (package netproxy); a listed name that
// resolves to a loopback, private or link-local address is refused unless
// that address is listed too.
//
// mount entries are host paths bound read-write unless suffixed ":ro"
// (":rw" is accepted and is the default); see SplitMount and ExpandHome. A
// missing path is the caller's warning, not a parse error.
//
// # Layers
//
// Merge applies layers in order (built-in profiles, user, project,
// --config, flags); a later layer wins key by key. Tool() overlays [global]
// with [tools.<name>] the same way. Two exceptions: hide lists accumulate
// (a later layer can add masks but never remove one), and [[checks]] and
// [[setup]] are replaced as a whole by the last layer that defines them.
//
// # Trust
//
// A project config (read by the caller from the base commit) may only
// narrow the policy. Widening lists the keys that widen it; CheckTrust
// refuses them unless the user ran "git agent trust" for exactly this
// content (TrustStore, keyed by repository and ContentHash).
package config
