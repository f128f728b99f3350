package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/run"
	"github.com/git-agent/git-agent/sandbox"
)

func cmdExec(ctx context.Context, e env) (int, error) {
	fs := flags("exec", e)
	fs.SetInterspersed(false)
	network := fs.String("network", "on", "on or off")
	backend := fs.String("sandbox", "auto", "sandbox backend: auto, bwrap, landlock or none")
	if err := parse(fs, "exec", e); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, usageErr("exec", "no command given")
	}
	if *network != "on" && *network != "off" {
		return 0, usageErr("exec", "--network must be on or off")
	}
	self, err := os.Executable()
	if err != nil {
		return 0, errfmt.Wrap(errfmt.ErrIO, err, "cannot find git-agent's own binary", "starting git agent exec", "run git-agent from an installed path")
	}
	return run.Exec(ctx, run.ExecOptions{Argv: fs.Args(), Network: *network, Sandbox: *backend, Self: self, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
}

func cmdDoctor(ctx context.Context, e env) (int, error) {
	fs := flags("doctor", e)
	if err := parse(fs, "doctor", e); err != nil {
		return 0, err
	}
	bad := 0
	say := func(ok bool, what, detail string) {
		mark := "ok  "
		if !ok {
			mark = "FAIL"
			bad++
		}
		fmt.Fprintf(e.stdout, "%s %-10s %s\n", mark, what, detail)
	}
	v, verr := (gitx.Runner{}).Run(ctx, "version")
	if verr == nil {
		verr = gitx.CheckVersion(ctx)
	}
	say(verr == nil, "git", firstLine(v, verr))
	bw, _ := exec.LookPath("bwrap")
	perr := sandbox.Probe(ctx)
	say(perr == nil, "bwrap", firstLine(bw, perr))
	if perr != nil {
		fmt.Fprint(e.stdout, indentErr(perr))
	}
	if repo, err := gitx.Discover(ctx, ""); err == nil {
		say(true, "repo", repo.CommonDir)
		lay := run.NewLayout(repo, "<id>", "")
		fmt.Fprintf(e.stdout, "     worktrees  %s\n     caches     %s\n     runtime    %s\n", lay.Worktree, lay.AgentCache, lay.Runtime)
		fmt.Fprintf(e.stdout, "     visible    system dirs read-only; /home /root /run /tmp /var/tmp /mnt /media empty; the run's worktree, scratch repository, HOME and caches; object dirs %s read-only\n", strings.Join(repo.ObjectDirs(), " "))
	} else {
		say(true, "repo", "not in a repository (run doctor inside one to see a run's layout)")
	}
	if bad > 0 {
		return errfmt.ExitFatal, nil
	}
	return 0, nil
}

func firstLine(s string, err error) string {
	if err != nil {
		return errfmt.As(err).What
	}
	return s
}

func indentErr(err error) string {
	return "     " + strings.ReplaceAll(strings.TrimRight(errfmt.As(err).Format(), "\n"), "\n", "\n     ") + "\n"
}
