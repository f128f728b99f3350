package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// PlanFD is the descriptor on which the Landlock init shim reads its
// LandlockPlan (JSON); the host closes its end after writing it.
const PlanFD = 3

// LandlockABI returns the Landlock ABI version the kernel offers (0 when
// Landlock is unavailable or disabled).
func LandlockABI() int {
	v, err := llsys.LandlockGetABIVersion()
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// LandlockInit is the Landlock backend's init shim, run by the host as
// "git-agent __landlock-init -- argv..." in the command's working directory
// with its final environment; args is what follows LandlockInitCommand.
// It reads the LandlockPlan on PlanFD and, when the plan enforces:
//
//  1. drops every capability of the thread that will exec (bounding set
//     when it may, ambient, effective, permitted, inheritable) — as root
//     Landlock alone would still leave CAP_SYS_ADMIN and friends;
//  2. enforces the plan's rules with go-landlock at the kernel's ABI
//     (strict, never best effort: an unenforceable plan is refused), which
//     also sets no_new_privs; network "off" denies every TCP bind and
//     connect (ABI 4); from ABI 6, signals and abstract unix sockets to
//     processes outside the sandbox are scoped;
//  3. installs the seccomp filter of LandlockFilter (TIOCSTI/TIOCLINUX
//     always; with network "off" every socket but unix, netlink and TCP,
//     so UDP, raw, packet and MPTCP sockets too);
//  4. self-tests: CapEff and CapPrm are zero, NoNewPrivs is 1, Seccomp 2.
//
// Then it reports on ReportFD and execs argv like Init. Failures return
// InitExitRefused after "fail <reason>" on ReportFD.
//
// The shim started by the host does not confine itself: it runs as
// ReapedRun a second copy of itself with "--inner" (which does all of the
// above and execs argv) and outlives it, out of the agent's reach, to kill
// whatever the agent left behind.
func LandlockInit(args []string) int {
	inner := len(args) > 0 && args[0] == innerFlag
	if inner {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	runtime.LockOSThread() // capabilities are per thread: drop and exec on this one
	report := reportFile()
	say := sayer(report)
	refuse := func(err error) int {
		fmt.Fprintln(os.Stderr, "git-agent: landlock sandbox refused to start: "+err.Error())
		say("fail", err.Error())
		return InitExitRefused
	}
	var plan LandlockPlan
	f := os.NewFile(PlanFD, "git-agent-plan")
	if f == nil {
		return refuse(fmt.Errorf("no plan on fd %d", PlanFD))
	}
	err := json.NewDecoder(f).Decode(&plan)
	f.Close()
	if err != nil {
		return refuse(fmt.Errorf("reading the plan: %v", err))
	}
	if len(args) == 0 {
		return refuse(fmt.Errorf("no command given to %s", LandlockInitCommand))
	}
	if plan.Enforce && !inner {
		code, err := runInner(plan, args)
		if err != nil {
			return refuse(err)
		}
		return code
	}
	if plan.Enforce {
		if err := dropCapabilities(); err != nil {
			return refuse(err)
		}
		if err := enforce(plan); err != nil {
			return refuse(err)
		}
		if err := installLandlockFilter(plan.Network == "off"); err != nil {
			return refuse(err)
		}
		if err := landlockSelfTest("/proc/thread-self/status"); err != nil {
			return refuse(err)
		}
		if err := seccompSelfTest("/proc/thread-self/status"); err != nil {
			return refuse(err)
		}
	}
	return execCommand(args, report, say)
}

// dropCapabilities empties the calling thread's capability sets. Dropping
// the bounding set needs CAP_SETPCAP; without it (not root) the bounding
// set is left, which no_new_privs makes unusable.
func dropCapabilities() error {
	for c := 0; c <= 63; c++ {
		if err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0); err != nil && err != unix.EINVAL && err != unix.EPERM {
			return fmt.Errorf("dropping capability %d from the bounding set: %v", c, err)
		}
	}
	_ = unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
	hdr := unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	var data [2]unix.CapUserData
	if err := unix.Capset(&hdr, &data[0]); err != nil {
		return fmt.Errorf("dropping capabilities: %v", err)
	}
	return nil
}

// enforce applies plan's rules with the strictest go-landlock config the
// kernel offers.
func enforce(plan LandlockPlan) error {
	abi := LandlockABI()
	configs := []landlock.Config{landlock.V1, landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6, landlock.V7}
	if abi < 1 {
		return fmt.Errorf("Landlock is not available in this kernel")
	}
	cfg := configs[min(abi, len(configs)-1)]
	if plan.Network == "off" {
		if abi < 4 {
			return fmt.Errorf("network off needs Landlock ABI 4 (TCP rules); this kernel has ABI %d", abi)
		}
	} else {
		cfg.HandledAccessNet = 0
	}
	var rules []landlock.Rule
	for _, r := range plan.Rules {
		for _, e := range expand(r) {
			if rule, ok := fsRule(e, abi); ok {
				rules = append(rules, rule)
			}
		}
	}
	if err := cfg.Restrict(rules...); err != nil {
		return fmt.Errorf("enforcing the Landlock ruleset: %v", err)
	}
	return nil
}

// expand resolves a rule's Except list into rules for the entries of its
// directory (recursively for directories that contain an excepted path).
func expand(r LandlockRule) []LandlockRule {
	if len(r.Except) == 0 {
		return []LandlockRule{r}
	}
	if slices.Contains(r.Except, r.Path) {
		return nil
	}
	ents, err := os.ReadDir(r.Path)
	if err != nil {
		return nil // not a directory, or unreadable: allow nothing
	}
	var out []LandlockRule
	for _, e := range ents {
		if e.Type()&os.ModeSymlink != 0 {
			continue // reached through its target's own rule, if any
		}
		c := LandlockRule{Path: filepath.Join(r.Path, e.Name()), Write: r.Write, Ioctl: r.Ioctl}
		for _, x := range r.Except {
			if under(x, c.Path) {
				c.Except = append(c.Except, x)
			}
		}
		out = append(out, expand(c)...)
	}
	return out
}

// fsRule turns a rule into a go-landlock rule for what the path is (a
// directory or a file); a missing path yields nothing.
func fsRule(r LandlockRule, abi int) (landlock.Rule, bool) {
	fi, err := os.Stat(r.Path)
	if err != nil || !(fi.IsDir() || fi.Mode().IsRegular() || fi.Mode()&os.ModeCharDevice != 0) {
		return nil, false // missing, or a pipe or socket Landlock cannot take
	}
	var rule landlock.FSRule
	switch {
	case fi.IsDir() && r.Write:
		rule = landlock.RWDirs(r.Path)
		if abi >= 2 {
			rule = rule.WithRefer()
		}
	case fi.IsDir():
		rule = landlock.RODirs(r.Path)
	case r.Write:
		rule = landlock.RWFiles(r.Path)
	default:
		rule = landlock.ROFiles(r.Path)
	}
	if r.Ioctl && abi >= 5 {
		rule = rule.WithIoctlDev()
	}
	return rule, true
}

// landlockSelfTest returns an error unless CapEff and CapPrm are zero and
// NoNewPrivs is 1 in the status file (proc(5)).
func landlockSelfTest(status string) error {
	b, err := os.ReadFile(status)
	if err != nil {
		return fmt.Errorf("cannot read %s: %v", status, err)
	}
	want := map[string]string{"CapEff": "0000000000000000", "CapPrm": "0000000000000000", "NoNewPrivs": "1"}
	for _, line := range strings.Split(string(b), "\n") {
		k, v, _ := strings.Cut(line, ":")
		if w, ok := want[k]; ok {
			if strings.TrimSpace(v) != w {
				return fmt.Errorf("%s is %s, want %s", k, strings.TrimSpace(v), w)
			}
			delete(want, k)
		}
	}
	for k := range want {
		return fmt.Errorf("%s missing from %s", k, status)
	}
	return nil
}
