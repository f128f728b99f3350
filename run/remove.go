package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
)

// Remove deletes run rec's worktree, check checkout and runtime dir; the
// branch, result and record stay unless purge, which deletes those refs too
// (in one transaction). A live run is refused with ERR_RUN_LIVE.
func Remove(ctx context.Context, repo *gitx.Repo, rec *refs.Record, purge bool) error {
	if refs.IsLocked(rec.RuntimeDir + "/" + refs.LockFile) {
		return errfmt.New(errfmt.ErrRunLive, "run "+rec.ID+" is still running", "removing run "+rec.ID, "wait for it to finish, or stop it with Ctrl-C")
	}
	if _, err := os.Lstat(rec.Worktree); err == nil && !ownsWorktree(repo, rec) {
		return errfmt.New(errfmt.ErrWorktree, "run "+rec.ID+"'s record names "+rec.Worktree+", which git-agent did not make for it",
			"removing run "+rec.ID, "remove that directory by hand if it is yours, then run git worktree prune")
	}
	if err := repo.WorktreeRemove(ctx, rec.Worktree, rec.AdminDir); err != nil {
		return err
	}
	_ = os.RemoveAll(rec.Worktree + ".check")
	if rec.RuntimeDir != "" && rec.RuntimeDir == RuntimeDir(repo, rec.ID) {
		_ = os.RemoveAll(rec.RuntimeDir)
	}
	if !purge {
		if rec.State != refs.StateLanded {
			rec.SetState(refs.StateDiscarded, time.Now())
		}
		return Store(repo).Save(ctx, rec, nil, "worktree removed")
	}
	var ups []gitx.RefUpdate
	for _, r := range []string{rec.Branch, refs.ResultRef(rec.ID), refs.RecordRef(rec.ID)} {
		if old, err := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", r); err == nil && old != "" {
			ups = append(ups, gitx.RefUpdate{Ref: r, Old: old})
		}
	}
	if len(ups) == 0 {
		return nil
	}
	return repo.UpdateRefs(ctx, "git-agent: purge run "+rec.ID, ups...)
}

// ownsWorktree reports whether rec.Worktree is the directory git-agent made
// for run rec, and so may be deleted: an absolute path whose last element is
// the run id, either in the default worktrees directory or named by git's
// own admin dir for it (under $GIT_COMMON_DIR/worktrees, its gitdir file).
// A record fetched from elsewhere, or edited, cannot make rm or gc delete an
// arbitrary directory.
func ownsWorktree(repo *gitx.Repo, rec *refs.Record) bool {
	wt := filepath.Clean(rec.Worktree)
	if !filepath.IsAbs(wt) || filepath.Base(wt) != rec.ID || !refs.ValidID(rec.ID) {
		return false
	}
	if strings.HasPrefix(wt, WorktreesDir(repo, "")+string(filepath.Separator)) {
		return true
	}
	admin := filepath.Clean(rec.AdminDir)
	if !strings.HasPrefix(admin, filepath.Join(repo.CommonDir, "worktrees")+string(filepath.Separator)) {
		return false
	}
	b, err := os.ReadFile(filepath.Join(admin, "gitdir"))
	return err == nil && filepath.Clean(strings.TrimSpace(string(b))) == filepath.Join(wt, ".git")
}
