package run

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/gitx"
)

// disarmedName is what a nested repository's .git is renamed to.
const disarmedName = ".git-disarmed-by-git-agent"

// disarmNested makes the nested repositories that result records as
// gitlinks inert in the run's worktree: their ".git" (a directory or a
// gitfile, written by the agent with its own config, hooks, fsmonitor and
// filters) is renamed to disarmedName. git recurses into a gitlink's
// repository on the user's own "git status" or "git diff" in the worktree
// (a shell prompt does that on cd) and would run that code on the host.
// The result commit is unchanged; the renamed directory stays for review.
// Paths whose parent is not a real directory inside the worktree (a
// symlink planted by the agent) are left alone. It returns the paths it
// disarmed.
func (j *job) disarmNested(ctx context.Context, result string) []string {
	out, err := j.repo.Git().Exec(ctx, gitx.Cmd{Args: []string{"ls-tree", "-r", "-z", "--full-tree", result}})
	if err != nil {
		return nil
	}
	wt := filepath.Clean(j.lay.Worktree)
	realWt, err := filepath.EvalSymlinks(wt)
	if err != nil {
		return nil
	}
	var done []string
	for _, entry := range strings.Split(string(out), "\x00") {
		meta, path, ok := strings.Cut(entry, "\t")
		if !ok || !strings.HasPrefix(meta, "160000 ") {
			continue
		}
		dir := filepath.Join(wt, filepath.FromSlash(path))
		if !strings.HasPrefix(dir, wt+"/") {
			continue
		}
		if real, err := filepath.EvalSymlinks(dir); err != nil || real != filepath.Join(realWt, filepath.FromSlash(path)) {
			continue
		}
		gitPath := filepath.Join(dir, ".git")
		if _, err := os.Lstat(gitPath); err != nil {
			continue
		}
		if os.Rename(gitPath, filepath.Join(dir, disarmedName)) == nil {
			done = append(done, path)
		}
	}
	return done
}
