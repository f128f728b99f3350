package sandbox

import (
	"fmt"
	"path/filepath"
	"strings"
)

// LandlockInitCommand is the argument that makes git-agent act as the
// Landlock backend's init shim: main must call LandlockInit(os.Args[2:])
// when os.Args[1] == LandlockInitCommand.
const LandlockInitCommand = "__landlock-init"

// LandlockRule allows one host path (a directory and everything beneath it,
// or a file). Except lists paths beneath Path that must stay inaccessible:
// Landlock cannot take rights away inside an allowed tree, so the init shim
// expands such a rule into rules for each entry of Path except those (and,
// recursively, the directories that contain them); Path itself then gets no
// right, so its own entries cannot be listed or created.
type LandlockRule struct {
	Path   string   `json:"path"`
	Write  bool     `json:"write,omitempty"`
	Ioctl  bool     `json:"ioctl,omitempty"` // device ioctls (terminals)
	Except []string `json:"except,omitempty"`
}

// Redirect is a file bwrap would bind over Dst (the worktree's .git gitfile
// that names the scratch repository). Landlock has no mount namespace, so
// the Landlock backend passes the gitfile's directory through GIT_DIR and
// GIT_WORK_TREE instead, and the host restores Dst after the command.
type Redirect struct {
	Src string `json:"src"`
	Dst string `json:"dst"`
}

// LandlockPlan is what the Landlock backend enforces for a Policy. It is
// computed by LandlockPlanFor (pure) and handed to the init shim as JSON on
// a pipe.
type LandlockPlan struct {
	// Rules are the allowed paths, in Policy order.
	Rules []LandlockRule `json:"rules"`
	// Network is "off" (every TCP bind and connect denied, Landlock ABI 4 or
	// later required) or "on" (not restricted).
	Network string `json:"network"`
	// Enforce is false for the "none" backend: nothing is restricted.
	Enforce bool `json:"enforce"`
	// Redirects are gitfile binds, honoured through the environment.
	Redirects []Redirect `json:"redirects,omitempty"`
	// Unsupported describes binds Landlock cannot express (remaps other
	// than a gitfile); they are left out, never widened.
	Unsupported []string `json:"unsupported,omitempty"`
}

// landlockDevices are the device files a command may write (and use
// terminal ioctls on); the rest of /dev is read-only.
func landlockDevices() []string {
	return []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty", "/dev/ptmx", "/dev/pts"}
}

// LandlockPlanFor maps p onto Landlock rules, pure like BwrapArgs (it reads
// no file). tmp is the private host directory (writable) that replaces the
// sandbox's empty /tmp, /var/tmp and /dev/shm. The mapping, bind by bind in
// order:
//
//   - RO or RW with Src == Dst: allow Dst read-only or read-write (a later
//     RO bind inside an earlier RW one adds it to that rule's Except: the
//     read-only file stays unwritable, at the price of the directory's own
//     entries);
//   - Proc: /proc read-only (Landlock's ptrace scoping still denies other
//     processes' environ and memory); Dev: /dev read-only and the
//     landlockDevices read-write;
//   - Tmpfs and MaskFile: the path is hidden: removed from earlier rules
//     (as an Except) and rules beneath it are dropped;
//   - Symlink, Dir: nothing (the host's own are used);
//   - RO or RW with Src != Dst: a Redirect when Dst is named ".git", else
//     an entry of Unsupported (left out).
//
// Self is allowed read-only. enforce is false only for the "none" backend.
// It returns an error for a Network other than "off" or "on", an empty
// Argv, or a path that is not absolute and clean.
func LandlockPlanFor(p Policy, tmp string, enforce bool) (LandlockPlan, error) {
	if len(p.Argv) == 0 || p.Argv[0] == "" {
		return LandlockPlan{}, fmt.Errorf("sandbox: no command to run")
	}
	if p.Network != "off" && p.Network != "on" {
		return LandlockPlan{}, fmt.Errorf("sandbox: network %q: want \"off\" or \"on\"", p.Network)
	}
	for _, c := range []struct{ what, p string }{{"self", p.Self}, {"tmp", tmp}} {
		if err := checkPath(c.what, c.p); err != nil {
			return LandlockPlan{}, err
		}
	}
	plan := LandlockPlan{Network: p.Network, Enforce: enforce}
	allow := func(r LandlockRule) {
		for i := range plan.Rules {
			e := &plan.Rules[i]
			if !r.Write && e.Write && r.Path != e.Path && under(r.Path, e.Path) {
				e.Except = append(e.Except, r.Path)
			}
		}
		plan.Rules = append(plan.Rules, r)
	}
	hide := func(d string) {
		kept := plan.Rules[:0]
		for _, e := range plan.Rules {
			switch {
			case under(e.Path, d):
				continue // covered by the empty directory
			case under(d, e.Path):
				e.Except = append(e.Except, d)
			}
			kept = append(kept, e)
		}
		plan.Rules = kept
	}
	for _, list := range [][]Bind{p.System, p.Binds} {
		for _, b := range list {
			if err := checkPath(b.Mode.String()+" destination", b.Dst); err != nil {
				return LandlockPlan{}, err
			}
			switch b.Mode {
			case RO, RW:
				if err := checkPath(b.Mode.String()+" source", b.Src); err != nil {
					return LandlockPlan{}, err
				}
				switch {
				case b.Src == b.Dst:
					allow(LandlockRule{Path: b.Dst, Write: b.Mode == RW})
				case filepath.Base(b.Dst) == ".git":
					plan.Redirects = append(plan.Redirects, Redirect{Src: b.Src, Dst: b.Dst})
				default:
					plan.Unsupported = append(plan.Unsupported, fmt.Sprintf("%s bind %s over %s", b.Mode, b.Src, b.Dst))
				}
			case Proc:
				allow(LandlockRule{Path: b.Dst})
			case Dev:
				allow(LandlockRule{Path: b.Dst})
				for _, d := range landlockDevices() {
					allow(LandlockRule{Path: d, Write: true, Ioctl: true})
				}
			case Tmpfs, MaskFile:
				hide(b.Dst)
			case Symlink, Dir:
			default:
				return LandlockPlan{}, fmt.Errorf("sandbox: %s: unknown mount mode %d", b.Dst, int(b.Mode))
			}
		}
	}
	allow(LandlockRule{Path: p.Self})
	allow(LandlockRule{Path: tmp, Write: true})
	return plan, nil
}

// LandlockEnv returns the environment for the Landlock and none backends:
// PrependPath(env) with InitDir replaced by bin (a directory holding a
// git-agent link to Self), TMPDIR set to tmpdir, and GIT_DIR/GIT_WORK_TREE
// to gitDir and workTree when gitDir is not empty (a Redirect's gitfile
// target and the directory of its Dst).
func LandlockEnv(env []string, bin, tmpdir, gitDir, workTree string) []string {
	var out []string
	for _, kv := range PrependPath(env) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "PATH":
			v = bin + strings.TrimPrefix(v, InitDir)
			kv = "PATH=" + v
		case "TMPDIR", "GIT_DIR", "GIT_WORK_TREE":
			continue
		}
		out = append(out, kv)
	}
	out = append(out, "TMPDIR="+tmpdir)
	if gitDir != "" {
		out = append(out, "GIT_DIR="+gitDir, "GIT_WORK_TREE="+workTree)
	}
	return out
}
