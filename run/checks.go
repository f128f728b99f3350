package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/git-agent/git-agent/verify"
	"golang.org/x/sys/unix"
)

// checkout is a clean checkout of one result for its checks (DESIGN.md
// invariant 6): a directory the agent never wrote, with its own scratch
// repository, HOME and git-agent's check caches.
type checkout struct {
	dir, gitDir, gitFile, home string
}

// newCheckout makes a clean checkout of commit: a fresh scratch repository
// whose index is read from commit on the host (no filter runs for that),
// then "git checkout-index -a" inside the sandbox writes the files.
func (j *job) newCheckout(ctx context.Context, commit string) (checkout, error) {
	c := checkout{
		dir:     j.lay.Worktree + ".check",
		gitDir:  filepath.Join(j.lay.Runtime, "check", "scratch"),
		gitFile: filepath.Join(j.lay.Runtime, "check", "gitfile"),
		home:    filepath.Join(j.lay.Runtime, "check", "home"),
	}
	j.removeCheckout(c)
	if err := mkdirs(c.dir, c.home); err != nil {
		return c, err
	}
	if err := mkdirs(cacheDirs(j.lay.CheckCache)...); err != nil {
		return c, err
	}
	if err := gitx.NewScratch(ctx, gitx.Scratch{Dir: c.gitDir, Branch: "refs/heads/check"}, j.repo.ObjectDirs(), commit, "", [2]string{"git-agent check", "check@git-agent.localhost"}); err != nil {
		return c, err
	}
	if err := os.WriteFile(c.gitFile, gitx.GitFileContent(c.gitDir), 0o644); err != nil {
		return c, err
	}
	if err := os.WriteFile(filepath.Join(c.dir, ".git"), gitx.GitFileContent(c.gitDir), 0o644); err != nil {
		return c, err
	}
	p := j.checkView(c, nil).policy(j.opts.Self, c.dir, []string{"git", "checkout-index", "--all", "--force"})
	code, err := sandbox.Run(ctx, p, nil, j.output, j.output)
	if err == nil && code != 0 {
		err = fmt.Errorf("git checkout-index exited %d in %s", code, c.dir)
	}
	return c, err
}

// removeCheckout deletes a check checkout and its scratch repository.
func (j *job) removeCheckout(c checkout) {
	_ = os.RemoveAll(c.dir)
	_ = os.RemoveAll(filepath.Dir(c.gitDir))
}

// checkView is the sandbox view of a check: the checkout (rw), its scratch
// repository, a fresh HOME, the check caches, PATH toolchains, the network
// off and a minimal environment without the agent's credentials.
func (j *job) checkView(c checkout, env []string) view {
	home, _ := os.UserHomeDir()
	pathBinds, _ := sandbox.PathBinds(os.Getenv("PATH"), home)
	return view{backend: j.rec.Backend, work: c.dir, gitFile: c.gitFile, gitDir: c.gitDir, home: c.home,
		cache: j.lay.CheckCache, objectDirs: j.repo.ObjectDirs(), extra: pathBinds,
		env: checkEnv(os.Environ(), env), network: "off"}
}

// verify runs the setup commands and checks of the base's config on a
// clean checkout of result, writes the outcome note and the host
// decisions, and returns the run's verdict and reason.
func (j *job) verify(ctx context.Context, n int, result string, exit int) (string, string) {
	checks := append(append([]config.Check{}, j.cfg.Setup...), j.cfg.Checks...)
	if j.opts.NoVerify || len(checks) == 0 {
		verdict, reason := refs.StatePassed, "no checks: the agent exited 0"
		if j.opts.NoVerify {
			reason = "--no-verify: the agent exited 0"
		}
		if exit != 0 {
			verdict, reason = refs.StateFailed, fmt.Sprintf("the agent exited %d and there are no checks", exit)
		}
		j.writeOutcome(ctx, n, result, nil, verdict == refs.StatePassed, 0)
		return verdict, reason
	}
	j.rec.SetState(refs.StateVerifying, time.Now())
	_ = j.store.Save(ctx, j.rec, nil, fmt.Sprintf("attempt %d verifying", n))
	noun := "checks"
	if len(checks) == 1 {
		noun = "check"
	}
	fmt.Fprintf(j.opts.Stderr, "git-agent: checking %s (%d %s)\n", result[:12], len(checks), noun)
	start := time.Now()
	c, err := j.newCheckout(ctx, result)
	defer j.removeCheckout(c)
	var results []verify.CheckResult
	if err != nil {
		results = []verify.CheckResult{{Name: "checkout", Command: "git checkout-index --all", ExitCode: -1, OutputTail: err.Error()}}
	} else {
		live := io.MultiWriter(j.opts.Stderr, j.output)
		exec := func(ctx context.Context, argv, env []string, out io.Writer) (int, string, error) {
			p := j.checkView(c, env).policy(j.opts.Self, c.dir, argv)
			code, err := sandbox.Run(ctx, p, nil, out, out)
			return code, signalName(code), err
		}
		if j.cfg.Verify.Parallel {
			results = verify.RunParallel(ctx, checks, exec, live)
		} else {
			results = verify.Run(ctx, checks, exec, live)
		}
	}
	passed := verify.Passed(results)
	j.lastResults = results
	for _, r := range results {
		state := "passed"
		switch {
		case r.Skipped:
			state = "skipped"
		case r.TimedOut:
			state = "timed out"
		case r.ExitCode != 0:
			state = fmt.Sprintf("failed (exit %d)", r.ExitCode)
		}
		j.hostDecision(fmt.Sprintf("check %s: %s", r.Name, state), r.Command, n)
		fmt.Fprintf(j.opts.Stderr, "git-agent: check %s: %s (%d ms)\n", r.Name, state, r.DurationMS)
	}
	// The checks judge the commit; the attempt still failed if the agent
	// did (as without checks), so its outcome does not let land take it.
	j.writeOutcome(ctx, n, result, results, passed && exit == 0, time.Since(start).Milliseconds())
	if passed && exit != 0 {
		return refs.StateFailed, fmt.Sprintf("the agent exited %d (the checks passed)", exit)
	}
	if passed {
		return refs.StatePassed, "all checks passed"
	}
	for _, r := range results {
		if !r.Skipped && (r.ExitCode != 0 || r.TimedOut) {
			return refs.StateFailed, "check " + r.Name + " failed"
		}
	}
	return refs.StateFailed, "checks failed"
}

// writeOutcome records the outcome of attempt n as a note on result, with
// the host decisions still queued.
func (j *job) writeOutcome(ctx context.Context, n int, result string, results []verify.CheckResult, passed bool, ms int64) {
	if results == nil {
		results = []verify.CheckResult{}
	}
	o := verify.Outcome{Time: now(), Run: j.rec.ID, Attempt: n, Commit: result, Base: j.rec.Base,
		Config: j.cfg.ChecksDigest(), Passed: passed, DurationMS: ms, Checks: results}
	if err := notes.AppendJSON(ctx, j.repo.Git(), notes.OutcomeRef, result, o); err != nil {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: cannot write the outcome: "+err.Error())
	}
	j.hostDecision(fmt.Sprintf("attempt %d verdict: %s", n, map[bool]string{true: "passed", false: "failed"}[passed]), "", n)
	j.flushDecisions(ctx, result)
}

// finish records the final state and reason and prints the verdict.
func (j *job) finish(ctx context.Context, state, reason string) {
	j.record(ctx, state, reason)
	fmt.Fprintf(j.opts.Stderr, "git-agent: run %s %s: %s\n", j.rec.ID, state, reason)
}

// record saves the final state and reason in the record.
func (j *job) record(ctx context.Context, state, reason string) {
	j.rec.Verdict = state
	j.rec.Reason = reason
	j.rec.SetState(state, time.Now())
	if j.rec.Result != "" {
		if paths := j.disarmNested(ctx, j.rec.Result); len(paths) > 0 {
			j.hostDecision("disarmed nested repositories in the worktree: "+strings.Join(paths, ", "),
				"their .git was renamed to "+disarmedName+" so that git in the worktree never runs their config on the host", j.rec.Attempts)
		}
		j.flushDecisions(ctx, j.rec.Result)
	}
	out, _ := os.ReadFile(j.lay.Output)
	if err := j.store.Save(ctx, j.rec, out, state+": "+reason); err != nil {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: cannot save the record: "+err.Error())
	}
}

// fail records a run that could not be carried out. It prints nothing: the
// caller reports the error in the 4-line form, which is all the user sees.
func (j *job) fail(ctx context.Context, state, reason string) {
	j.record(ctx, state, reason)
}

// signalName returns the name of the signal that an exit status of 128+N
// reports (as bwrap and shells do), or "".
func signalName(code int) string {
	if code > 128 && code < 128+65 {
		return unix.SignalName(syscall.Signal(code - 128))
	}
	return ""
}
