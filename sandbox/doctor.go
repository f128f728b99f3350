package sandbox

import (
	"context"
	"os/exec"
	"strings"
	"time"
)

// BwrapVersion returns "bubblewrap 0.8.0" (the first line of bwrap
// --version), or "" when bwrap is missing or does not answer within five
// seconds.
func BwrapVersion(ctx context.Context) string {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return ""
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, bwrap, "--version").Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

// ProbeNetNS reports whether bwrap can give the sandbox its own network
// namespace with loopback up (network "off"): it runs bwrap with
// --unshare-user --unshare-net and reads /proc/net/dev inside, for at most
// ten seconds. It returns nil on success, else bwrap's reason.
func ProbeNetNS(ctx context.Context) error {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bwrap, "--unshare-user", "--unshare-net", "--cap-drop", "ALL",
		"--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc", "--", "cat", "/proc/net/dev")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return &probeError{bwrapReason(string(out), exitStatus(cmd.ProcessState))}
	}
	if !strings.Contains(string(out), "lo:") {
		return &probeError{"no loopback interface in the new network namespace"}
	}
	return nil
}

type probeError struct{ s string }

func (e *probeError) Error() string { return e.s }

// UsernsFixes are the ways to let bwrap create user namespaces, one per
// line, for git agent doctor: Ubuntu 24.04's AppArmor restriction (sysctl
// or a profile for bwrap), the bubblewrap package, Docker's seccomp and
// AppArmor profiles.
func UsernsFixes() []string {
	return []string{
		"Ubuntu 24.04+ (AppArmor restricts unprivileged user namespaces): sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0 (persist it in /etc/sysctl.d/60-userns.conf)",
		`  or, narrower, an AppArmor profile for bwrap only: printf 'abi <abi/4.0>,\ninclude <tunables/global>\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n}\n' | sudo tee /etc/apparmor.d/bwrap && sudo apparmor_parser -r /etc/apparmor.d/bwrap`,
		"Debian/older kernels: sudo sysctl -w kernel.unprivileged_userns_clone=1; everywhere: user.max_user_namespaces must be > 0",
		"bwrap missing: " + installCommand(readOSRelease("/etc/os-release"), false),
		"Docker: docker run --security-opt seccomp=unconfined --security-opt apparmor=unconfined ... (or --cap-add SYS_ADMIN); Podman: --security-opt seccomp=unconfined",
		`meanwhile git-agent falls back to Landlock (sandbox = "auto"), with the limits listed above`,
	}
}
