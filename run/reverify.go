package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/verify"
)

// VerifyOptions is what "git agent verify" was asked to do.
type VerifyOptions struct {
	// Run names the run: an id, a unique prefix, or "last".
	Run string
	// Self is the host path of the git-agent binary (the sandbox's shim).
	Self string
	// Stdout receives the outcome table; Stderr the checks' live output
	// and progress.
	Stdout, Stderr io.Writer
}

// Verify performs "git agent verify": it runs the checks again, with the
// base's check definitions and on a clean checkout, on the current tip of
// the run's branch (which the user may have amended), appends an outcome
// note there (attempt = the record's attempts, commit = the tip) with host
// decisions, and prints the outcome table. It returns the outcome; a
// failing check is not an error. Errors: ERR_NO_RUN, ERR_RUN_LIVE (the
// run's git-agent is still working), configuration and sandbox errors.
func Verify(ctx context.Context, repo *gitx.Repo, opts VerifyOptions) (*verify.Outcome, error) {
	rec, err := Find(ctx, repo, opts.Run)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(ctx, repo, rec.Base, "")
	if err != nil {
		return nil, err
	}
	lay := NewLayout(repo, rec.ID, cfg.Worktrees)
	if rec.Worktree != "" {
		lay.Worktree = rec.Worktree
	}
	tip, _ := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", rec.Branch+"^{commit}")
	if !gitx.IsHex(tip) {
		return nil, errfmt.New(errfmt.ErrNoRun, "run "+rec.ID+" has no branch "+rec.Branch, "verifying run "+rec.ID,
			"restore the branch (git branch "+strings.TrimPrefix(rec.Branch, "refs/heads/")+" <commit>) or start a new run")
	}
	if err := os.MkdirAll(lay.Runtime, 0o700); err != nil {
		return nil, errfmt.Wrap(errfmt.ErrIO, err, "cannot create the runtime directory", "verifying run "+rec.ID, "check that "+lay.Runtime+" is writable")
	}
	if rec.Live() && refs.IsLocked(lay.Lock) {
		return nil, errfmt.New(errfmt.ErrRunLive, "run "+rec.ID+" is still "+rec.State, "verifying run "+rec.ID,
			"wait for it to finish (git agent ls), then run git agent verify again")
	}
	lock, err := refs.Lock(lay.Lock)
	if err != nil {
		return nil, errfmt.Wrap(errfmt.ErrIO, err, "cannot take the run's lock", "verifying run "+rec.ID, "check that "+lay.Runtime+" is writable")
	}
	out, err := os.OpenFile(lay.Output, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		lock.Close()
		return nil, errfmt.Wrap(errfmt.ErrIO, err, "cannot open output.log", "verifying run "+rec.ID, "check that "+lay.Runtime+" is writable")
	}
	j := &job{repo: repo, store: Store(repo), rec: rec, lay: lay, cfg: cfg, lock: lock, output: out,
		opts: Options{Self: opts.Self, Stdout: opts.Stderr, Stderr: opts.Stderr}}
	defer j.close()
	n := max(rec.Attempts, 1)
	why := "the branch tip is the run's last result"
	if tip != rec.Result {
		why = "the branch tip is not the run's last result " + shortID(rec.Result) + " (changed after the run)"
	}
	j.hostDecision(fmt.Sprintf("verify: checking the branch tip %s again", shortID(tip)), why, n)
	// The state is the record's own; verify does not pass through
	// "verifying" in the record, and restores it after the checks.
	state, states := rec.State, len(rec.States)
	j.verify(ctx, n, tip, 0)
	rec.State, rec.States = state, rec.States[:states]
	o := LastOutcome(ctx, repo, rec.ID, tip)
	verdict := "failed"
	if o != nil && o.Passed {
		verdict = "passed"
	}
	if err := j.store.Save(ctx, rec, nil, "verify "+shortID(tip)+": "+verdict); err != nil {
		fmt.Fprintln(opts.Stderr, "git-agent: warning: cannot save the record: "+err.Error())
	}
	if o == nil {
		return nil, errfmt.New(errfmt.ErrGit, "the outcome of "+shortID(tip)+" was not written", "verifying run "+rec.ID,
			"check that the repository is writable and run git agent verify again")
	}
	writeOutcome(opts.Stdout, o)
	return o, nil
}
