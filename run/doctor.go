package run

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/sandbox"
)

// Doctor writes "git agent doctor"'s report to w: git; each backend's probe
// (bwrap: installed, version, user namespaces, network namespace;
// landlock: the kernel's ABI and what it covers); the backend auto picks
// and which invariants hold under it; inside a repository, the effective
// view of a run of "sh" here (read-only, read-write, hidden, from
// PreviewPolicy); and, when bwrap cannot work, every fix. Lines start with
// "ok  ", "FAIL", "fix " or spaces. It returns 0 when auto can run agents
// here, else errfmt.ExitFatal.
func Doctor(ctx context.Context, w io.Writer, self string) int {
	say := func(ok bool, what, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "%s %-9s %s\n", mark, what, detail)
	}
	detail := func(s string, err error) string {
		if err != nil {
			return errfmt.As(err).What
		}
		return s
	}
	v, verr := (gitx.Runner{}).Run(ctx, "version")
	if verr == nil {
		verr = gitx.CheckVersion(ctx)
	}
	say(verr == nil, "git", detail(v, verr))

	bw, _ := exec.LookPath("bwrap")
	perr := sandbox.Probe(ctx)
	if perr == nil {
		say(true, "bwrap", bw+" ("+sandbox.BwrapVersion(ctx)+"): user namespaces, PID namespace, /proc, no capabilities")
		if nerr := sandbox.ProbeNetNS(ctx); nerr != nil {
			say(false, "netns", "own network namespace (network off): "+nerr.Error())
		} else {
			say(true, "netns", "own network namespace with loopback (network off)")
		}
	} else {
		say(false, "bwrap", strings.TrimSpace(bw+" "+sandbox.BwrapVersion(ctx))+": "+errfmt.As(perr).What)
		fmt.Fprint(w, "     "+strings.ReplaceAll(strings.TrimRight(errfmt.As(perr).Format(), "\n"), "\n", "\n     ")+"\n")
	}
	abi := sandbox.LandlockABI()
	say(abi >= 1, "landlock", landlockDetail(abi))
	if sandbox.ScopesAvailable() {
		say(true, "scope", "network on under bwrap: abstract unix sockets and signals to host processes scoped (Landlock ABI 6+)")
	} else {
		say(false, "scope", "network on under bwrap: abstract unix sockets and signals to host processes NOT scoped (Landlock ABI < 6; needs Linux 6.12+)")
	}

	choice, cerr := sandbox.Choose(ctx, sandbox.BackendAuto)
	if cerr != nil {
		say(false, "backend", "auto finds no sandbox: "+errfmt.As(cerr).What)
	} else if s := choice.Summary(); s != "" {
		say(true, "backend", "auto uses "+s)
	} else {
		say(true, "backend", "auto uses bwrap: every invariant of DESIGN.md holds")
	}
	if perr != nil {
		for _, f := range sandbox.UsernsFixes() {
			fmt.Fprintln(w, "fix  "+f)
		}
	}
	if repo, err := gitx.Discover(ctx, ""); err != nil {
		say(true, "repo", "not in a repository (run doctor inside one to see a run's view)")
	} else {
		say(true, "repo", repo.CommonDir)
		writeView(ctx, w, repo, self, choice.Backend)
	}
	if cerr != nil || verr != nil {
		return errfmt.ExitFatal
	}
	return 0
}

func landlockDetail(abi int) string {
	if abi < 1 {
		return "not available in this kernel (needs 5.13+ with landlock in lsm=)"
	}
	parts := []string{fmt.Sprintf("ABI %d: filesystem allowlist", abi)}
	if abi >= 4 {
		parts = append(parts, "TCP bind/connect (network off)")
	}
	if abi >= 6 {
		parts = append(parts, "scoped signals and abstract unix sockets")
	}
	return strings.Join(parts, ", ")
}

// writeView prints the view of a run of "sh" here under backend.
func writeView(ctx context.Context, w io.Writer, repo *gitx.Repo, self, backend string) {
	p, warnings, err := PreviewPolicy(ctx, repo, "sh", self)
	if err != nil {
		fmt.Fprintf(w, "FAIL %-9s %s\n", "view", errfmt.As(err).What)
		return
	}
	v := sandbox.DescribeView(p)
	hidden := "hidden"
	if backend == sandbox.BackendLandlock {
		hidden = "denied"
	}
	fmt.Fprintf(w, "     view of a run here (tool sh, network %s, backend %s):\n", p.Network, backendName(backend))
	for _, row := range []struct {
		name  string
		paths []string
	}{{"read-only", v.ReadOnly}, {"read-write", v.ReadWrite}, {hidden, v.Hidden}} {
		fmt.Fprintf(w, "     %-10s %s\n", row.name, strings.Join(row.paths, " "))
	}
	if backend == sandbox.BackendLandlock {
		fmt.Fprintln(w, "     everything else is denied; paths inside a read-only tree cannot be hidden except at start")
	} else {
		fmt.Fprintln(w, "     everything else is absent")
	}
	for _, s := range warnings {
		fmt.Fprintln(w, "     warning: "+s)
	}
}

func backendName(b string) string {
	if b == "" {
		return "none available"
	}
	return b
}
