package gitx

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// WorktreeAdd registers a linked worktree at path, detached at commit and
// locked with reason, with hooks off (post-checkout never runs). It returns
// the admin directory git made for it, read from the new worktree's .git
// file: after a crash git may have named it "<name>1" rather than the
// directory's base name. Failure is ERR_WORKTREE; nothing is left
// registered.
func (r *Repo) WorktreeAdd(ctx context.Context, path, commit, reason string) (adminDir string, err error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", errfmt.Wrap(errfmt.ErrWorktree, err, "cannot create the worktrees directory",
			"creating "+filepath.Dir(path), "check the permissions of that directory or set worktrees in the config")
	}
	_, err = r.Git().Exec(ctx, Cmd{Args: []string{"worktree", "add", "--detach", "--lock",
		"--reason", reason, "--", path, commit}})
	if err != nil {
		_ = os.RemoveAll(path)
		_, _ = r.Git().Run(ctx, "worktree", "prune")
		return "", errfmt.Wrap(errfmt.ErrWorktree, err, "cannot create the run's worktree",
			"git worktree add "+path, "see git's message above; git worktree list shows what is registered")
	}
	admin, err := ReadGitFile(filepath.Join(path, ".git"))
	if err != nil {
		return "", errfmt.Wrap(errfmt.ErrWorktree, err, "cannot read the new worktree's .git file",
			"reading "+filepath.Join(path, ".git"), "run git worktree prune, then retry")
	}
	return admin, nil
}

// ReadGitFile reads a "gitdir: <path>" file (as git writes for linked
// worktrees and submodules) and returns the absolute, cleaned path it
// names. It refuses symlinks and files over 4 KiB.
func ReadGitFile(file string) (string, error) {
	fi, err := os.Lstat(file)
	if err != nil {
		return "", err
	}
	if !fi.Mode().IsRegular() || fi.Size() > 4096 {
		return "", fmt.Errorf("%s is not a regular gitdir file", file)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		return "", err
	}
	s, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
	if !ok || s == "" {
		return "", fmt.Errorf("%s does not start with gitdir:", file)
	}
	if !filepath.IsAbs(s) {
		s = filepath.Join(filepath.Dir(file), s)
	}
	return filepath.Clean(s), nil
}

// WorktreeRemove unregisters the worktree whose admin directory is
// adminDir and deletes its directory path. It never runs git inside the
// worktree: the directory is removed by git-agent, then the registration
// is pruned. Missing pieces are not an error.
func (r *Repo) WorktreeRemove(ctx context.Context, path, adminDir string) error {
	if err := removeAll(path); err != nil {
		return errfmt.Wrap(errfmt.ErrWorktree, err, "cannot remove the run's worktree",
			"removing "+path, "remove the directory by hand, then run git worktree prune")
	}
	if adminDir != "" && strings.HasPrefix(filepath.Clean(adminDir), filepath.Join(r.CommonDir, "worktrees")+string(filepath.Separator)) {
		_ = os.RemoveAll(adminDir)
	}
	_, _ = r.Git().Run(ctx, "worktree", "prune")
	return nil
}

// removeAll deletes path even where the agent left directories without
// write permission.
func removeAll(path string) error {
	if err := os.RemoveAll(path); err == nil {
		return nil
	}
	_ = filepath.Walk(path, func(p string, fi os.FileInfo, err error) error {
		if err == nil && fi.IsDir() {
			_ = os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(path)
}

// PointWorktree makes the registered worktree (adminDir) show commit: its
// HEAD (detached) and its index are set to commit, and no file in the
// worktree is touched, so that plain "git -C <worktree> log" reviews the
// result. The index is written into a temporary file and renamed.
func (r *Repo) PointWorktree(ctx context.Context, adminDir, commit string) error {
	if err := writeFileAtomic(filepath.Join(adminDir, "HEAD"), []byte(commit+"\n")); err != nil {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot update the worktree's HEAD", "writing "+adminDir, "run git worktree prune and retry")
	}
	tmp := filepath.Join(adminDir, "index.git-agent.tmp")
	_ = os.Remove(tmp)
	if _, err := r.Git().Exec(ctx, Cmd{Args: []string{"read-tree", commit}, Env: []string{"GIT_INDEX_FILE=" + tmp}}); err != nil {
		return err
	}
	return os.Rename(tmp, filepath.Join(adminDir, "index"))
}

// writeFileAtomic writes data to a temporary file beside name and renames
// it into place.
func writeFileAtomic(name string, data []byte) error {
	tmp := name + ".git-agent.tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
