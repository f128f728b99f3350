package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

// worktreeEntry returns the porcelain lines of "git worktree list" for path.
func worktreeEntry(t *testing.T, dir, path string) []string {
	t.Helper()
	out := git(t, dir, "worktree", "list", "--porcelain")
	for _, block := range strings.Split(out, "\n\n") {
		lines := strings.Split(block, "\n")
		if lines[0] == "worktree "+path {
			return lines
		}
	}
	return nil
}

func TestWorktreeAddRemove(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	head := git(t, top, "rev-parse", "HEAD")
	path := filepath.Join(realDir(t, t.TempDir()), "not", "yet", "run1")

	admin, err := r.WorktreeAdd(ctx, path, head, "git-agent run run1")
	if err != nil {
		t.Fatalf("WorktreeAdd: %v", err)
	}
	if want := filepath.Join(r.CommonDir, "worktrees", "run1"); admin != want {
		t.Fatalf("WorktreeAdd admin dir = %q, want %q", admin, want)
	}
	entry := worktreeEntry(t, top, path)
	if entry == nil {
		t.Fatalf("worktree %s is not registered", path)
	}
	has := func(line string) bool {
		for _, l := range entry {
			if l == line {
				return true
			}
		}
		return false
	}
	for _, want := range []string{"HEAD " + head, "detached", "locked git-agent run run1"} {
		if !has(want) {
			t.Errorf("worktree entry %q lacks %q", entry, want)
		}
	}
	if got := git(t, path, "status", "--porcelain"); got != "" {
		t.Errorf("new worktree is not clean: %q", got)
	}
	if b, err := os.ReadFile(filepath.Join(path, "a.txt")); err != nil || string(b) != "a\n" {
		t.Errorf("worktree a.txt = %q, %v", b, err)
	}

	t.Run("bad commit", func(t *testing.T) {
		p := filepath.Join(filepath.Dir(path), "bad")
		_, err := r.WorktreeAdd(ctx, p, strings.Repeat("1", 40), "x")
		if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrWorktree {
			t.Fatalf("WorktreeAdd(bad commit) = %v, want ERR_WORKTREE", err)
		}
		if exists(p) || worktreeEntry(t, top, p) != nil {
			t.Fatalf("a failed WorktreeAdd left %s behind", p)
		}
	})
	t.Run("existing path", func(t *testing.T) {
		p := filepath.Join(filepath.Dir(path), "busy")
		writeFile(t, filepath.Join(p, "keep"), "x")
		_, err := r.WorktreeAdd(ctx, p, head, "x")
		if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrWorktree {
			t.Fatalf("WorktreeAdd(non-empty dir) = %v, want ERR_WORKTREE", err)
		}
	})

	// An admin dir outside $GIT_COMMON_DIR/worktrees is never deleted.
	outside := filepath.Join(realDir(t, t.TempDir()), "admin")
	writeFile(t, filepath.Join(outside, "HEAD"), "x")
	other := filepath.Join(filepath.Dir(path), "other")
	if err := os.MkdirAll(other, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := r.WorktreeRemove(ctx, other, outside); err != nil {
		t.Fatalf("WorktreeRemove(outside admin): %v", err)
	}
	if !exists(filepath.Join(outside, "HEAD")) {
		t.Fatalf("WorktreeRemove deleted an admin dir outside the repository: %s", outside)
	}

	// A locked worktree is still removed, with read-only directories inside.
	if err := os.MkdirAll(filepath.Join(path, "ro", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Join(path, "ro"), 0o500); err != nil {
		t.Fatal(err)
	}
	if err := r.WorktreeRemove(ctx, path, admin); err != nil {
		t.Fatalf("WorktreeRemove: %v", err)
	}
	if exists(path) || exists(admin) {
		t.Fatalf("WorktreeRemove left %s (%v) or %s (%v)", path, exists(path), admin, exists(admin))
	}
	if e := worktreeEntry(t, top, path); e != nil {
		t.Fatalf("worktree still registered: %q", e)
	}
	if err := r.WorktreeRemove(ctx, path, admin); err != nil {
		t.Fatalf("WorktreeRemove twice: %v", err)
	}
}

func TestPointWorktree(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	c1 := git(t, top, "rev-parse", "HEAD")
	c2 := commitFile(t, top, "a.txt", "changed\n", "second")
	path := filepath.Join(realDir(t, t.TempDir()), "wt")
	admin, err := r.WorktreeAdd(ctx, path, c1, "test")
	if err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(filepath.Join(path, "a.txt"))
	if err := r.PointWorktree(ctx, admin, c2); err != nil {
		t.Fatalf("PointWorktree: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(admin, "HEAD")); string(b) != c2+"\n" {
		t.Errorf("admin HEAD = %q, want %q", b, c2+"\n")
	}
	if got := git(t, path, "rev-parse", "HEAD"); got != c2 {
		t.Errorf("worktree HEAD = %s, want %s", got, c2)
	}
	if got, err := gitErr(path, nil, "symbolic-ref", "-q", "--short", "HEAD"); err == nil {
		t.Errorf("worktree HEAD is on %q, want detached", got)
	}
	if got, want := git(t, path, "rev-parse", ":a.txt"), git(t, top, "rev-parse", c2+":a.txt"); got != want {
		t.Errorf("index a.txt = %s, want %s (of %s)", got, want, c2)
	}
	if b, _ := os.ReadFile(filepath.Join(path, "a.txt")); string(b) != "a\n" {
		t.Errorf("PointWorktree touched a.txt: %q", b)
	}
	if fi2, _ := os.Stat(filepath.Join(path, "a.txt")); fi == nil || fi2 == nil || !fi2.ModTime().Equal(fi.ModTime()) {
		t.Errorf("PointWorktree changed a.txt's mtime")
	}
	if got := git(t, path, "status", "--porcelain"); got != " M a.txt" {
		t.Errorf("status after PointWorktree = %q, want \" M a.txt\"", got)
	}
	ents, _ := os.ReadDir(admin)
	for _, e := range ents {
		if strings.Contains(e.Name(), "tmp") {
			t.Errorf("PointWorktree left %s in %s", e.Name(), admin)
		}
	}
}
