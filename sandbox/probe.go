package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

// Probe checks that the bwrap backend works here: bwrap is on PATH (else an
// ERR_SANDBOX_MISSING *errfmt.Error whose remedy is the distribution's
// install command), it accepts --disable-userns (bubblewrap 0.8 or later,
// else ERR_SANDBOX), and it can create a user namespace with --unshare-user
// --cap-drop ALL (else ERR_USERNS_BLOCKED, naming the exact setting that
// blocks it: Ubuntu's kernel.apparmor_restrict_unprivileged_userns,
// kernel.unprivileged_userns_clone, user.max_user_namespaces, or a
// container's seccomp profile). It never falls back to anything. It runs
// bwrap once, for at most ten seconds. With TestBlockUsernsEnv=1 (tests
// only) it reports ERR_USERNS_BLOCKED without running anything.
func Probe(ctx context.Context) error {
	const where = "probing the bwrap sandbox"
	if os.Getenv(TestBlockUsernsEnv) == "1" {
		return usernsError("user namespaces are blocked (simulated by "+TestBlockUsernsEnv+"=1, test only)", where)
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return missingError(where)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bwrap, "--unshare-user", "--unshare-pid", "--cap-drop", "ALL",
		"--disable-userns", "--die-with-parent", "--ro-bind", "/", "/", "--proc", "/proc",
		"--", bwrap, "--version")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	err = cmd.Run()
	if err == nil {
		return nil
	}
	if ctx.Err() != nil {
		return errfmt.Wrap(errfmt.ErrSandbox, ctx.Err(), "bwrap did not answer in time", where,
			"run `bwrap --unshare-user --ro-bind / / true` by hand to see why it hangs")
	}
	reason := bwrapReason(errb.String(), exitStatus(cmd.ProcessState))
	if strings.Contains(reason, "Unknown option") || strings.Contains(reason, "unrecognized option") {
		return errfmt.New(errfmt.ErrSandbox, "bubblewrap is too old: "+reason, where,
			"upgrade bubblewrap to 0.8 or later (it needs --disable-userns)")
	}
	return usernsError(reason, where)
}

// usernsError explains why bwrap could not create a user namespace, with the
// one setting to change.
func usernsError(reason, where string) error {
	what := "bwrap cannot create a user namespace: " + reason
	switch {
	case sysctlIs("/proc/sys/kernel/apparmor_restrict_unprivileged_userns", "1"):
		return errfmt.New(errfmt.ErrUserns, what+" (AppArmor restricts unprivileged user namespaces)", where,
			`allow bwrap: printf 'abi <abi/4.0>,\ninclude <tunables/global>\nprofile bwrap /usr/bin/bwrap flags=(unconfined) {\n  userns,\n}\n' | sudo tee /etc/apparmor.d/bwrap && sudo apparmor_parser -r /etc/apparmor.d/bwrap`)
	case sysctlIs("/proc/sys/kernel/unprivileged_userns_clone", "0"):
		return errfmt.New(errfmt.ErrUserns, what+" (kernel.unprivileged_userns_clone=0)", where,
			"sudo sysctl -w kernel.unprivileged_userns_clone=1 (persist it in /etc/sysctl.d/)")
	case sysctlIs("/proc/sys/user/max_user_namespaces", "0"):
		return errfmt.New(errfmt.ErrUserns, what+" (user.max_user_namespaces=0)", where,
			"sudo sysctl -w user.max_user_namespaces=15000 (persist it in /etc/sysctl.d/)")
	case exists("/.dockerenv") || exists("/run/.containerenv"):
		return errfmt.New(errfmt.ErrUserns, what+" (inside a container)", where,
			`run the container with --security-opt seccomp=unconfined --security-opt apparmor=unconfined, or set sandbox = "landlock"`)
	}
	return errfmt.New(errfmt.ErrUserns, what, where,
		`allow user namespaces for bwrap (see bwrap's error above), or set sandbox = "landlock" in git-agent's config`)
}

// missingError is the ERR_SANDBOX_MISSING error with this distribution's
// install command.
func missingError(where string) error {
	return errfmt.New(errfmt.ErrSandboxMissing, "bubblewrap (bwrap) is not installed or not on PATH",
		where, installCommand(readOSRelease("/etc/os-release"), os.Geteuid() == 0))
}

// installCommand returns the command that installs bubblewrap, given the
// ID and ID_LIKE words of os-release(5).
func installCommand(ids []string, root bool) string {
	sudo := "sudo "
	if root {
		sudo = ""
	}
	for _, id := range ids {
		switch id {
		case "debian", "ubuntu":
			return sudo + "apt-get install -y bubblewrap"
		case "fedora", "rhel", "centos":
			return sudo + "dnf install -y bubblewrap"
		case "arch":
			return sudo + "pacman -S --noconfirm bubblewrap"
		case "alpine":
			return sudo + "apk add bubblewrap"
		case "suse", "opensuse":
			return sudo + "zypper install -y bubblewrap"
		case "nixos":
			return "add bubblewrap to environment.systemPackages"
		}
	}
	return "install bubblewrap 0.8 or later with your distribution's package manager"
}

// readOSRelease returns the words of ID then ID_LIKE from an os-release file.
func readOSRelease(path string) []string {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var ids, like []string
	for _, line := range strings.Split(string(b), "\n") {
		k, v, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"'`)
		switch k {
		case "ID":
			ids = append(ids, v)
		case "ID_LIKE":
			like = strings.Fields(v)
		}
	}
	return append(ids, like...)
}

// bwrapReason picks bwrap's complaint out of its stderr: the last line
// starting with "bwrap: ", else the last non-empty line, else a sentence
// with the exit status.
func bwrapReason(stderr string, code int) string {
	lines := strings.Split(strings.TrimSpace(stderr), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if r, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "bwrap: "); ok {
			return r
		}
	}
	if l := strings.TrimSpace(lines[len(lines)-1]); l != "" {
		return l
	}
	return fmt.Sprintf("bwrap exited with status %d before starting the command", code)
}

// bwrapRemedy returns the next step for a bwrap setup failure.
func bwrapRemedy(reason string) string {
	switch {
	case strings.Contains(reason, "Can't find source path"):
		return "create the missing path, or remove it from the config's mount and ro entries"
	case strings.Contains(reason, "namespace") || strings.Contains(reason, "Operation not permitted"):
		return "run `git agent doctor` for the exact fix that allows user namespaces here"
	case strings.Contains(reason, "Unknown option"):
		return "upgrade bubblewrap to 0.8 or later"
	}
	return "run `git agent doctor`; it shows what does not work here and the exact fix"
}

func sysctlIs(path, want string) bool {
	b, err := os.ReadFile(path)
	return err == nil && strings.TrimSpace(string(b)) == want
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}
