package run

import (
	"context"
	"os"
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
