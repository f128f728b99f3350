package gitx

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// Scratch describes a run's private git directory (DESIGN.md invariant 3):
// its objects fall back to the user's object directories through an
// alternates file, while its refs, config, index and hooks are its own.
type Scratch struct {
	// Dir is the scratch git directory (not bare: its work tree is the
	// directory holding the .git file that names it).
	Dir string
	// Branch is the branch HEAD points at inside, e.g. "refs/heads/agent/x".
	Branch string
}

// NewScratch creates the scratch repository s at s.Dir with HEAD on
// s.Branch at commit, alternates naming objectDirs (absolute, one per
// line), and the index copied from indexSrc (the index git wrote when it
// checked out commit into the worktree, so the agent's first git status is
// clean without re-hashing files). identity, when not empty, is written as
// the scratch config's user.name and user.email.
//
// This runs before the agent exists: nothing in s.Dir is agent-written yet.
// After the agent ran, the host never runs git with s.Dir as repository.
func NewScratch(ctx context.Context, s Scratch, objectDirs []string, commit, indexSrc string, identity [2]string) error {
	fail := func(err error) error {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot create the scratch repository", "creating "+s.Dir,
			"check that the repository's .git directory is writable")
	}
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return fail(err)
	}
	g := Runner{GitDir: s.Dir}
	if _, err := (Runner{}).Run(ctx, "init", "--quiet", "--bare", "--template=", s.Dir); err != nil {
		return err
	}
	objFmt, _ := (Runner{GitDir: s.Dir}).Run(ctx, "rev-parse", "--show-object-format")
	cfg := [][2]string{{"core.bare", "false"}, {"core.logAllRefUpdates", "true"}}
	if len(commit) == 64 && objFmt != "sha256" {
		cfg = append(cfg, [2]string{"extensions.objectFormat", "sha256"}, [2]string{"core.repositoryformatversion", "1"})
	}
	if identity[0] != "" {
		cfg = append(cfg, [2]string{"user.name", identity[0]})
	}
	if identity[1] != "" {
		cfg = append(cfg, [2]string{"user.email", identity[1]})
	}
	for _, kv := range cfg {
		if _, err := g.Run(ctx, "config", kv[0], kv[1]); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(filepath.Join(s.Dir, "objects", "info"), 0o755); err != nil {
		return fail(err)
	}
	alt := strings.Join(objectDirs, "\n") + "\n"
	if err := os.WriteFile(filepath.Join(s.Dir, "objects", "info", "alternates"), []byte(alt), 0o644); err != nil {
		return fail(err)
	}
	if _, err := g.Run(ctx, "update-ref", "--no-deref", s.Branch, commit); err != nil {
		return err
	}
	if _, err := g.Run(ctx, "symbolic-ref", "HEAD", s.Branch); err != nil {
		return err
	}
	if indexSrc != "" {
		if err := copyFile(indexSrc, filepath.Join(s.Dir, "index")); err != nil {
			return fail(err)
		}
	} else if _, err := g.Run(ctx, "read-tree", commit); err != nil {
		return err
	}
	return nil
}

// copyFile copies a regular file (not following a symlink at src).
func copyFile(src, dst string) error {
	fi, err := os.Lstat(src)
	if err != nil {
		return err
	}
	if !fi.Mode().IsRegular() {
		return &os.PathError{Op: "copy", Path: src, Err: os.ErrInvalid}
	}
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// GitFileContent returns the content of a .git file that makes a work tree
// use gitDir: "gitdir: <gitDir>\n" (git's gitfile format).
func GitFileContent(gitDir string) []byte { return []byte("gitdir: " + gitDir + "\n") }
