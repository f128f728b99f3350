package sandbox

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// Backends (DESIGN.md "Backends"), the values of config key sandbox and of
// --sandbox.
const (
	BackendAuto     = "auto"
	BackendBwrap    = "bwrap"
	BackendLandlock = "landlock"
	BackendNone     = "none"
)

// TestBlockUsernsEnv, set to 1, makes Probe report that user namespaces
// are blocked without running bwrap. It exists only so tests can simulate a
// machine where bwrap cannot work (Ubuntu 24.04, Docker); it never widens
// anything.
const TestBlockUsernsEnv = "GIT_AGENT_TEST_BLOCK_USERNS"

// Choice is the backend a run uses and why.
type Choice struct {
	// Backend is BackendBwrap, BackendLandlock or BackendNone.
	Backend string
	// Fallback is bwrap's probe error when auto fell back to Landlock.
	Fallback error
	// ABI is the kernel's Landlock ABI (0: none).
	ABI int
}

// Choose picks the backend for want ("" means auto): bwrap when its probe
// passes; for auto, Landlock when bwrap's probe fails and the kernel has
// Landlock; "none" only when asked by name. It never falls back to none:
// with neither backend it returns bwrap's probe error. An unknown name is
// ERR_USAGE; landlock asked by name on a kernel without it is ERR_SANDBOX.
func Choose(ctx context.Context, want string) (Choice, error) {
	const where = "choosing the sandbox backend"
	abi := LandlockABI()
	switch want {
	case BackendNone:
		return Choice{Backend: BackendNone, ABI: abi}, nil
	case BackendBwrap:
		if err := Probe(ctx); err != nil {
			return Choice{}, err
		}
		return Choice{Backend: BackendBwrap, ABI: abi}, nil
	case BackendLandlock:
		if abi < 1 {
			return Choice{}, errfmt.New(errfmt.ErrSandbox, "this kernel has no Landlock (or it is disabled)", where,
				"boot a kernel 5.13 or later with lsm=landlock,... or use sandbox = \"bwrap\"")
		}
		return Choice{Backend: BackendLandlock, ABI: abi}, nil
	case BackendAuto, "":
		perr := Probe(ctx)
		if perr == nil {
			return Choice{Backend: BackendBwrap, ABI: abi}, nil
		}
		if abi < 1 || errfmt.As(perr).Code == errfmt.ErrSandbox {
			return Choice{}, perr
		}
		return Choice{Backend: BackendLandlock, Fallback: perr, ABI: abi}, nil
	}
	return Choice{}, errfmt.New(errfmt.ErrUsage, "unknown sandbox backend: "+want, where,
		"use auto, bwrap, landlock or none")
}

// Summary is one line saying which of DESIGN.md's invariants hold under
// the chosen backend; empty for bwrap, which enforces all of them.
func (c Choice) Summary() string {
	switch c.Backend {
	case BackendLandlock:
		why := "sandbox = landlock"
		if c.Fallback != nil {
			why = "bwrap unavailable: " + errfmt.As(c.Fallback).What
		}
		scoped := "signals and abstract sockets to host processes NOT scoped (ABI < 6)"
		if c.ABI >= 6 {
			scoped = "signals and abstract sockets to host processes scoped"
		}
		return fmt.Sprintf("sandbox landlock (ABI %d; %s): holds: no capabilities, no_new_privs; reads and writes only in the allowlist; "+
			"the user's .git unreachable; scrubbed environment; network off denies TCP and (seccomp) every UDP, raw, packet and MPTCP socket; TIOCSTI refused; %s. "+
			"Does NOT hold: hiding inside allowed trees, own PID namespace (host processes visible), "+
			"host unix sockets reachable by path (docker.sock, ssh-agent), network host lists (run as off), a private /tmp (denied instead), a read-only .git gitfile (restored after each command). `git agent doctor` for the fix", c.ABI, why, scoped)
	case BackendNone:
		return "sandbox none (asked for): NO isolation; the command runs with your privileges and files, only the environment is scrubbed"
	}
	return ""
}

// RunLandlock runs p.Argv under p with the Landlock backend (p.Backend
// "landlock") or unconfined ("none"): git-agent re-executes itself as
// "git-agent __landlock-init -- argv" (see LandlockInit) in p.Dir with the
// environment of LandlockEnv, hands it LandlockPlanFor(p) on PlanFD, and
// supervises it like Run (exit status, report, cancellation: SIGTERM to its
// process group, SIGKILL after Grace). A private TMPDIR (with a bin/
// holding git-agent) is created on the host and removed afterwards; each
// Redirect's Dst is restored to its content from before the command.
// Errors are those of Run.
func RunLandlock(ctx context.Context, p Policy, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	where := "starting " + argv0(p) + " in the " + p.Backend + " sandbox"
	tmp, err := os.MkdirTemp("", "git-agent-"+p.Backend+"-")
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot create the sandbox's private TMPDIR", where, "check that $TMPDIR is writable")
	}
	defer os.RemoveAll(tmp)
	bin, tmpdir := filepath.Join(tmp, "bin"), filepath.Join(tmp, "tmp")
	if err := mkdirs(bin, tmpdir); err != nil {
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot create the sandbox's private TMPDIR", where, "check that $TMPDIR is writable")
	}
	if err := os.Symlink(p.Self, filepath.Join(bin, "git-agent")); err != nil {
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot link git-agent into the sandbox's PATH", where, "check that $TMPDIR is writable")
	}
	plan, err := LandlockPlanFor(p, tmp, p.Backend == BackendLandlock)
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrSandbox, err, "invalid sandbox policy", where,
			"report this at the git-agent issue tracker with the command you ran")
	}
	var gitDir, workTree string
	for _, r := range plan.Redirects {
		b, err := os.ReadFile(r.Src)
		if dir, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: "); err == nil && ok {
			gitDir, workTree = dir, filepath.Dir(r.Dst)
		}
		if orig, err := os.ReadFile(r.Dst); err == nil {
			defer restoreFile(r.Dst, orig)
		}
	}
	env := LandlockEnv(p.Env, bin, tmpdir, gitDir, workTree)
	planR, planW, err := os.Pipe()
	if err != nil {
		return -1, ioError(err, where)
	}
	defer planR.Close()
	go func() {
		json.NewEncoder(planW).Encode(plan)
		planW.Close()
	}()
	argv := append([]string{p.Self, LandlockInitCommand, "--"}, p.Argv...)
	return supervise(ctx, p.Self, argv, env, p.Dir, planR, stdin, stdout, stderr, where)
}

// restoreFile puts back a file the sandboxed command may have replaced
// (by a directory or a symlink too), never following a symlink.
func restoreFile(path string, content []byte) {
	if b, err := os.ReadFile(path); err == nil {
		if fi, err := os.Lstat(path); err == nil && fi.Mode().IsRegular() && string(b) == string(content) {
			return
		}
	}
	os.RemoveAll(path)
	os.WriteFile(path, content, 0o644)
}

func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}
