// Package sandbox runs a command inside a bubblewrap (bwrap) sandbox that
// enforces DESIGN.md's security invariants 1 (no privilege), 2 (allowlisted
// view), 7 (scrubbed environment, no secret in argv) and 9 (own PID
// namespace, no terminal, nothing outlives the run).
//
// The pieces, in the order a caller uses them:
//
//   - Probe checks that bwrap is installed and may create a user namespace.
//   - ScrubEnv and PrependPath build the environment the sandbox sees.
//   - SystemBinds, PathBinds and ResolveCommand compute mounts (they read the
//     host filesystem, so that BwrapArgs does not have to).
//   - Policy is a pure value; BwrapArgs turns it into bwrap's argument list
//     (pure, golden-tested).
//   - Run executes bwrap and supervises it: exit status, cancellation, and
//     telling a sandbox failure from the command's own exit status.
//   - Init is the shim git-agent runs as the sandbox's first command
//     ("git-agent __sandbox-init -- argv..."): it verifies that it holds no
//     capability and then execs argv.
package sandbox

import (
	"os"
	"path/filepath"
	"strings"
)

// In-sandbox locations. The git-agent binary (Policy.Self) is bound
// read-only at SelfPath; InitDir is put first on PATH (PrependPath) so the
// agent can run "git-agent decide" and friends.
const (
	InitDir  = "/run/git-agent/bin"
	SelfPath = InitDir + "/git-agent"
	// InitCommand is the argument that makes git-agent act as the init shim:
	// main must call Init(os.Args[2:]) when os.Args[1] == InitCommand.
	InitCommand = "__sandbox-init"
)

// Mode says how a Bind is mounted. Each maps to one bwrap option.
type Mode int

// Mount modes.
const (
	RO       Mode = iota // --ro-bind Src Dst: host path Src read-only at Dst
	RW                   // --bind Src Dst: host path Src writable at Dst
	Tmpfs                // --tmpfs Dst: an empty tmpfs (Src ignored; Perms applies)
	Symlink              // --symlink Src Dst: a symlink at Dst whose target is Src
	Dir                  // --dir Dst: an empty directory (Perms applies)
	Proc                 // --proc Dst: a new procfs (Src ignored)
	Dev                  // --dev Dst: a new minimal /dev (Src ignored)
	MaskFile             // --ro-bind /dev/null Dst: hide a file (Src ignored)
)

// String returns the mode's name, as used in error messages.
func (m Mode) String() string {
	switch m {
	case RO:
		return "ro"
	case RW:
		return "rw"
	case Tmpfs:
		return "tmpfs"
	case Symlink:
		return "symlink"
	case Dir:
		return "dir"
	case Proc:
		return "proc"
	case Dev:
		return "dev"
	case MaskFile:
		return "mask"
	}
	return "unknown"
}

// Bind is one mount. Binds are applied in slice order: a later mount covers
// what earlier ones put at or below its Dst, so a read-only file inside a
// writable directory must come after the directory's bind. Dst (and Src for
// RO, RW) must be absolute, clean paths; Src for Symlink is the link's
// target, verbatim. Perms, when non-zero, sets the octal mode bits of a
// Tmpfs or Dir (bwrap's --perms, e.g. 0o1777 for /tmp).
type Bind struct {
	Src   string
	Dst   string
	Mode  Mode
	Perms uint32
}

// Policy is everything that defines one sandbox. It is a pure value:
// BwrapArgs reads no file.
type Policy struct {
	// System is the standard view, normally SystemBinds(); applied first.
	System []Bind
	// Binds are applied after System, in order.
	Binds []Bind
	// Env is the final environment, KEY=VALUE, already scrubbed with
	// ScrubEnv. Run passes it as bwrap's own environment (never in argv)
	// after PrependPath.
	Env []string
	// Dir is the working directory inside; empty means bwrap's default.
	Dir string
	// Network is "off" (own network namespace, loopback only) or "on"
	// (share the host's network, including its loopback services).
	Network string
	// Proxy, when set, is the host path of git-agent's filtering proxy
	// socket (netproxy) for a host list; Network must be "off". It is bound
	// read-only at ProxySocket and bridged to 127.0.0.1:ProxyPort inside;
	// the caller adds ProxyEnv() to Env.
	Proxy string
	// Argv is the command to run inside; Argv[0] is looked up on Env's PATH
	// inside the sandbox by the init shim.
	Argv []string
	// Self is the host path of the git-agent binary. It is bound read-only
	// at SelfPath and is the init shim.
	Self string
	// Backend is "bwrap" (or empty), "landlock" or "none" (see Choose). It
	// selects how Run enforces the policy; BwrapArgs ignores it.
	Backend string
}

// SystemBinds returns the standard allowlisted view (DESIGN.md invariant 2),
// in order, computed from the host filesystem:
//
//   - /usr read-only; /bin, /sbin, /lib, /lib32, /lib64, /libx32 as the same
//     symlinks as on the host when they are symlinks (merged /usr), else
//     read-only binds; missing ones are skipped.
//   - /etc read-only, with secrets readable by uid 0 masked (/etc/shadow,
//     /etc/gshadow, their backups, /etc/ssh, /etc/ssl/private, …), only those
//     that exist and are not symlinks (bwrap aborts on a missing mask target).
//   - /opt read-only when it exists.
//   - a new /proc and a minimal /dev with an empty /dev/shm.
//   - empty tmpfs on /home, /root, /run, /tmp, /var, /var/tmp, /mnt, /media;
//     /var/run and /var/lock as symlinks into /run. Nothing else of /var
//     (databases, logs, mail, spools) is visible.
//   - the real targets of /etc/resolv.conf and /etc/hosts when they resolve
//     into one of those hidden directories (systemd-resolved's stub in /run),
//     read-only at their resolved path, so name resolution works.
func SystemBinds() []Bind {
	b := []Bind{{Src: "/usr", Dst: "/usr", Mode: RO}}
	for _, d := range []string{"/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"} {
		fi, err := os.Lstat(d)
		switch {
		case err != nil:
			continue
		case fi.Mode()&os.ModeSymlink != 0:
			if t, err := os.Readlink(d); err == nil {
				b = append(b, Bind{Src: t, Dst: d, Mode: Symlink})
			}
		case fi.IsDir():
			b = append(b, Bind{Src: d, Dst: d, Mode: RO})
		}
	}
	b = append(b, Bind{Src: "/etc", Dst: "/etc", Mode: RO})
	for _, s := range etcSecrets() {
		fi, err := os.Lstat(s)
		if err != nil || fi.Mode()&os.ModeSymlink != 0 {
			continue
		}
		if fi.IsDir() {
			b = append(b, Bind{Dst: s, Mode: Tmpfs, Perms: 0o755})
		} else {
			b = append(b, Bind{Dst: s, Mode: MaskFile})
		}
	}
	if fi, err := os.Stat("/opt"); err == nil && fi.IsDir() {
		b = append(b, Bind{Src: "/opt", Dst: "/opt", Mode: RO})
	}
	b = append(b,
		Bind{Dst: "/proc", Mode: Proc},
		Bind{Dst: "/dev", Mode: Dev},
		Bind{Dst: "/dev/shm", Mode: Tmpfs, Perms: 0o1777},
	)
	for _, d := range hiddenDirs() {
		perms := uint32(0o755)
		if d == "/tmp" || d == "/var/tmp" {
			perms = 0o1777
		}
		b = append(b, Bind{Dst: d, Mode: Tmpfs, Perms: perms})
	}
	b = append(b,
		Bind{Src: "../run", Dst: "/var/run", Mode: Symlink},
		Bind{Src: "../run/lock", Dst: "/var/lock", Mode: Symlink},
	)
	for _, f := range []string{"/etc/resolv.conf", "/etc/hosts"} {
		real, err := filepath.EvalSymlinks(f)
		if err != nil || real == f || Visible(real) {
			continue
		}
		b = append(b, Bind{Src: real, Dst: real, Mode: RO})
	}
	return b
}

// hiddenDirs are the directories SystemBinds makes empty tmpfs, in order
// (/var before /var/tmp).
func hiddenDirs() []string {
	return []string{"/home", "/root", "/run", "/tmp", "/var", "/var/tmp", "/mnt", "/media"}
}

// etcSecrets are paths under /etc that root can read and an agent must not.
func etcSecrets() []string {
	return []string{
		"/etc/shadow", "/etc/shadow-", "/etc/gshadow", "/etc/gshadow-",
		"/etc/security/opasswd", "/etc/ssh", "/etc/ssl/private",
		"/etc/krb5.keytab", "/etc/wireguard", "/etc/NetworkManager/system-connections",
		"/etc/letsencrypt",
	}
}

// visibleRoots are the host trees SystemBinds shows (read-only).
func visibleRoots() []string {
	return []string{"/usr", "/etc", "/opt", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"}
}

// Visible reports whether the host path p (absolute, symlinks resolved) is
// shown by SystemBinds' read-only system view. Every other path (HOME,
// /root, /tmp, /run, /var, /mnt, /srv, /nix, …) is hidden inside unless
// bound explicitly.
func Visible(p string) bool {
	for _, r := range visibleRoots() {
		if under(p, r) {
			return true
		}
	}
	return false
}

// under reports whether p is dir or inside it (both clean absolute paths).
func under(p, dir string) bool {
	if dir == "/" {
		return true
	}
	return p == dir || strings.HasPrefix(p, dir+"/")
}
