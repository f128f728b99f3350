package gitx

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

func TestNewScratch(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	commitFile(t, top, "dir/b.txt", "b\n", "second")
	r := discover(t, top)
	head := git(t, top, "rev-parse", "HEAD")
	tmp := realDir(t, t.TempDir())

	for _, withIndex := range []bool{true, false} {
		name := map[bool]string{true: "index copied", false: "index read from the commit"}[withIndex]
		t.Run(name, func(t *testing.T) {
			wt := filepath.Join(tmp, name, "wt")
			admin, err := r.WorktreeAdd(ctx, wt, head, "test")
			if err != nil {
				t.Fatal(err)
			}
			s := Scratch{Dir: filepath.Join(tmp, name, "scratch"), Branch: "refs/heads/agent/x1"}
			idx := ""
			if withIndex {
				idx = filepath.Join(admin, "index")
			}
			if err := NewScratch(ctx, s, r.ObjectDirs(), head, idx, [2]string{"Agent", "agent@example.com"}); err != nil {
				t.Fatalf("NewScratch: %v", err)
			}
			gd, wtArg := "--git-dir="+s.Dir, "--work-tree="+wt
			if got := git(t, tmp, gd, wtArg, "status", "--porcelain"); got != "" {
				t.Errorf("status in the scratch repository = %q, want clean", got)
			}
			if got := git(t, tmp, gd, "symbolic-ref", "HEAD"); got != s.Branch {
				t.Errorf("scratch HEAD = %q, want %q", got, s.Branch)
			}
			if got := git(t, tmp, gd, "rev-parse", "HEAD"); got != head {
				t.Errorf("scratch HEAD commit = %s, want %s", got, head)
			}
			// The objects resolve through the alternates, none copied.
			git(t, tmp, gd, "cat-file", "-e", head+":dir/b.txt")
			if got := git(t, tmp, gd, "count-objects"); got != "0 objects, 0 kilobytes" {
				t.Errorf("scratch count-objects = %q, want no loose objects", got)
			}
			alt, _ := os.ReadFile(filepath.Join(s.Dir, "objects", "info", "alternates"))
			if want := filepath.Join(r.CommonDir, "objects") + "\n"; string(alt) != want {
				t.Errorf("alternates = %q, want %q", alt, want)
			}
			if got := git(t, tmp, gd, "config", "user.name"); got != "Agent" {
				t.Errorf("user.name = %q", got)
			}
			if got := git(t, tmp, gd, "config", "core.bare"); got != "false" {
				t.Errorf("core.bare = %q, want false", got)
			}
			if got := git(t, tmp, gd, "ls-files"); got != "a.txt\ndir/b.txt" {
				t.Errorf("scratch index lists %q", got)
			}
			// The user's repository did not gain the scratch branch.
			if _, err := gitErr(top, nil, "rev-parse", "--verify", "-q", s.Branch); err == nil {
				t.Errorf("the user's repository has %s", s.Branch)
			}
			if exists(filepath.Join(s.Dir, "hooks")) {
				t.Errorf("the scratch repository has a hooks directory from a template")
			}
		})
	}

	t.Run("index source must be a regular file", func(t *testing.T) {
		link := filepath.Join(tmp, "index-link")
		if err := os.Symlink(filepath.Join(r.GitDir, "index"), link); err != nil {
			t.Fatal(err)
		}
		s := Scratch{Dir: filepath.Join(tmp, "symlinked", "scratch"), Branch: "refs/heads/agent/x2"}
		if err := NewScratch(ctx, s, r.ObjectDirs(), head, link, [2]string{}); err == nil {
			t.Fatalf("NewScratch with a symlinked index source succeeded")
		}
	})
}
