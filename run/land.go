package run

import (
	"context"
	"fmt"
	"io"
	"path"
	"strings"
	"time"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
)

// LandOptions is what "git agent land" was asked to do.
type LandOptions struct {
	// Into is the target branch (default: the branch the run started from).
	Into string
	// Force lands without a passing outcome on the tip.
	Force bool
	// Stderr receives notes for the user.
	Stderr io.Writer
}

// Land merges the tip of run rec's branch into the target branch: a
// fast-forward when possible, else a merge commit built with merge-tree
// and commit-tree. It never switches a checkout; when the target is checked
// out somewhere, that checkout is updated only if none of the paths the
// merge changes has uncommitted work there. It requires a passing outcome
// of this run on exactly the tip, with the base its ancestor (DESIGN.md
// invariant 5), unless opts.Force. It returns the landed commit. Refusals
// (ERR_NOT_VERIFIED, ERR_CONFLICT, ERR_DIRTY, ERR_LAND_TARGET) exit 2 and
// change nothing.
func Land(ctx context.Context, repo *gitx.Repo, rec *refs.Record, opts LandOptions) (string, error) {
	where := "landing run " + rec.ID
	if Liveness(rec) == refs.StateRunning || Liveness(rec) == refs.StateVerifying || Liveness(rec) == refs.StateCreated {
		return "", errfmt.New(errfmt.ErrRunLive, "run "+rec.ID+" is still running", where, "wait for it to finish (git agent ls), then land")
	}
	tip, err := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", rec.Branch+"^{commit}")
	if err != nil || tip == "" {
		return "", errfmt.New(errfmt.ErrLandTarget, "the run's branch "+rec.Branch+" does not exist", where, "git agent show "+rec.ID+" names its result")
	}
	target := opts.Into
	if target == "" {
		target = rec.BaseRef
	} else if !strings.HasPrefix(target, "refs/") {
		target = "refs/heads/" + target
	}
	if target == "" {
		return "", errfmt.New(errfmt.ErrLandTarget, "run "+rec.ID+" started from a detached HEAD", where, "name the branch: git agent land "+rec.ID+" --into <branch>")
	}
	into, err := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", target+"^{commit}")
	if err != nil || into == "" {
		return "", errfmt.New(errfmt.ErrLandTarget, "branch "+target+" does not exist", where, "name an existing branch with --into")
	}
	if err := checkVerified(ctx, repo, rec, tip, opts); err != nil {
		return "", err
	}
	landed, how, err := mergeCommit(ctx, repo, rec, target, into, tip)
	if err != nil {
		return "", err
	}
	if landed == into {
		fmt.Fprintf(opts.Stderr, "git-agent: %s already contains run %s\n", target, rec.ID)
	} else if err := updateTarget(ctx, repo, target, into, landed); err != nil {
		return "", err
	}
	// Notes come after the refusals: a refusal is only its 4-line error.
	if o := LastOutcome(ctx, repo, rec.ID, tip); o != nil && o.Passed && len(o.Checks) == 0 {
		fmt.Fprintf(opts.Stderr, "git-agent: note: run %s has no checks: nothing was verified but the agent's exit status\n", rec.ID)
	}
	flagCheckFiles(ctx, repo, rec.Base, tip, opts.Stderr)
	_ = notes.AppendJSON(ctx, repo.Git(), notes.DecisionsRef, tip, notes.Decision{Time: now(), Run: rec.ID, Source: "host",
		Attempt: rec.Attempts, Decision: "landed into " + target + " as " + landed + " (" + how + ")"})
	rec.Landed, rec.LandedInto = landed, target
	rec.SetState(refs.StateLanded, time.Now())
	if err := Store(repo).Save(ctx, rec, nil, "landed into "+target); err != nil {
		fmt.Fprintln(opts.Stderr, "git-agent: warning: cannot save the record: "+err.Error())
	}
	return landed, nil
}

// checkVerified requires a passing outcome of rec on exactly tip whose
// base is an ancestor of tip, unless opts.Force.
func checkVerified(ctx context.Context, repo *gitx.Repo, rec *refs.Record, tip string, opts LandOptions) error {
	o := LastOutcome(ctx, repo, rec.ID, tip)
	ok := o != nil && o.Passed
	if ok {
		if anc, _ := repo.IsAncestor(ctx, o.Base, tip); !anc {
			ok = false
		}
	}
	if !ok {
		if opts.Force {
			fmt.Fprintf(opts.Stderr, "git-agent: warning: landing %s without a passing outcome on %s (--force)\n", rec.ID, shortID(tip))
			return nil
		}
		why := "no outcome of run " + rec.ID + " on its tip " + shortID(tip)
		if o != nil {
			why = "the outcome of run " + rec.ID + " on " + shortID(tip) + " is failed"
		} else if rec.Result != "" && rec.Result != tip {
			why = "the branch tip " + shortID(tip) + " is not the verified result " + shortID(rec.Result) + " (its outcome is stale)"
		}
		return errfmt.New(errfmt.ErrNotVerified, why, "landing run "+rec.ID,
			"check the tip again (git agent verify "+rec.ID+"), or review it (git agent diff "+rec.ID+") and land with --force")
	}
	return nil
}

// mergeCommit returns the commit to set target to: tip when target can
// fast-forward, else a merge commit of into and tip.
func mergeCommit(ctx context.Context, repo *gitx.Repo, rec *refs.Record, target, into, tip string) (string, string, error) {
	if anc, err := repo.IsAncestor(ctx, tip, into); err == nil && anc {
		return into, "already merged", nil
	}
	if anc, err := repo.IsAncestor(ctx, into, tip); err != nil {
		return "", "", err
	} else if anc {
		return tip, "fast-forward", nil
	}
	tree, conflicts, err := repo.MergeTree(ctx, into, tip)
	if err != nil {
		return "", "", err
	}
	if len(conflicts) > 0 {
		return "", "", errfmt.New(errfmt.ErrConflict, "run "+rec.ID+" conflicts with "+target+" in "+strings.Join(conflicts, ", "),
			"merging "+shortID(tip)+" into "+target, "merge by hand: git merge "+rec.Branch)
	}
	branch := strings.TrimPrefix(target, "refs/heads/")
	msg := fmt.Sprintf("Merge agent run %s into %s\n\n%s\n\nAgent-Run: %s\n", rec.ID, branch, strings.TrimSpace(rec.Message), rec.ID)
	msg = strings.Replace(msg, "\n\n\n\n", "\n\n", 1)
	var identity []string
	if _, err := repo.Git().Run(ctx, "var", "GIT_COMMITTER_IDENT"); err != nil {
		identity = gitx.IdentityEnv()
	}
	out, err := repo.Git().Exec(ctx, gitx.Cmd{Args: []string{"commit-tree", tree, "-p", into, "-p", tip}, Stdin: strings.NewReader(msg), Env: identity})
	if err != nil {
		return "", "", err
	}
	return strings.TrimSpace(string(out)), "merge", nil
}

// checkDefining are path patterns of files that define checks: a result
// that changes them may have changed what "passing" means.
var checkDefining = []string{".git-agent/*", ".agent-run/*", "Makefile", "*.mk", "go.mod", "package.json",
	"pyproject.toml", "setup.cfg", "tox.ini", "pytest.ini", "conftest.py", "Cargo.toml", ".github/*", ".gitlab-ci.yml",
	"*_test.go", "test_*.py", "*_test.py", "*.test.js", "*.test.ts", "*.spec.js", "*.spec.ts"}

// flagCheckFiles tells the user which check-defining files base..tip changes.
func flagCheckFiles(ctx context.Context, repo *gitx.Repo, base, tip string, w io.Writer) {
	files, _ := repo.Git().Lines(ctx, "diff", "--name-only", "--no-renames", "--no-ext-diff", base, tip, "--")
	var hit []string
	for _, f := range files {
		for _, p := range checkDefining {
			if m, _ := path.Match(p, f); m || matchBase(p, f) {
				hit = append(hit, f)
				break
			}
		}
	}
	if len(hit) > 0 {
		fmt.Fprintf(w, "git-agent: note: the result changes check-defining files: %s\n", clean(strings.Join(hit, ", ")))
	}
}

func matchBase(pattern, file string) bool {
	if strings.Contains(pattern, "/") {
		dir, _, _ := strings.Cut(pattern, "/")
		return strings.HasPrefix(file, dir+"/")
	}
	m, _ := path.Match(pattern, path.Base(file))
	return m
}
