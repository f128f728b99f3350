package run

import (
	"context"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
)

// checkoutOf returns the work tree where branch is checked out, or "".
// git-agent's own worktrees are always detached, so this is the user's.
func checkoutOf(ctx context.Context, repo *gitx.Repo, branch string) (string, error) {
	lines, err := repo.Git().Lines(ctx, "worktree", "list", "--porcelain")
	if err != nil {
		return "", err
	}
	var wt string
	for _, l := range lines {
		if p, ok := strings.CutPrefix(l, "worktree "); ok {
			wt = p
		} else if b, ok := strings.CutPrefix(l, "branch "); ok && b == branch {
			return wt, nil
		}
	}
	return "", nil
}

// updateTarget moves branch from old to landed (compare-and-swap). When the
// branch is checked out, that checkout's index and files follow with a
// two-tree "read-tree -m -u", which keeps staged and unstaged work on
// every path the merge does not change; if any path it changes has
// uncommitted work (staged, unstaged or untracked), nothing is changed and
// the result is ERR_DIRTY.
func updateTarget(ctx context.Context, repo *gitx.Repo, branch, old, landed string) error {
	where := "updating " + branch
	wt, err := checkoutOf(ctx, repo, branch)
	if err != nil {
		return err
	}
	if wt == "" {
		return repo.UpdateRefs(ctx, "git-agent: land", gitx.RefUpdate{Ref: branch, New: landed, Old: old})
	}
	co := gitx.Runner{Dir: wt}
	changed, err := repo.Git().Lines(ctx, "diff", "--name-only", "-z", "--no-renames", "--no-ext-diff", old, landed, "--")
	if err != nil {
		return err
	}
	status, err := co.Exec(ctx, gitx.Cmd{Args: []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--no-renames"}})
	if err != nil {
		return err
	}
	dirty := map[string]bool{}
	for _, rec := range strings.Split(string(status), "\x00") {
		if len(rec) > 3 {
			dirty[rec[3:]] = true
		}
	}
	var clash []string
	for _, line := range changed {
		for _, p := range strings.Split(line, "\x00") {
			if p != "" && dirty[p] {
				clash = append(clash, p)
			}
		}
	}
	if len(clash) > 0 {
		return errfmt.New(errfmt.ErrDirty, "uncommitted changes in "+wt+" to files the run changes: "+clean(strings.Join(clash, ", ")),
			where, "commit or stash those files in "+wt+", then land again")
	}
	if _, err := co.Run(ctx, "read-tree", "-m", "-u", "-n", old, landed); err != nil {
		return errfmt.Wrap(errfmt.ErrDirty, err, "the checkout "+wt+" cannot take the update", where, "commit or stash your changes there, then land again")
	}
	if err := repo.UpdateRefs(ctx, "git-agent: land", gitx.RefUpdate{Ref: branch, New: landed, Old: old}); err != nil {
		return err
	}
	if _, err := co.Run(ctx, "read-tree", "-m", "-u", old, landed); err != nil {
		_ = repo.UpdateRefs(ctx, "git-agent: land rolled back", gitx.RefUpdate{Ref: branch, New: old, Old: landed})
		return errfmt.Wrap(errfmt.ErrDirty, err, "the checkout "+wt+" could not be updated; the branch was left at "+shortID(old), where, "commit or stash your changes there, then land again")
	}
	return nil
}
