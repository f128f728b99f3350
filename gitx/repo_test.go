package gitx

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func TestReadGitFile(t *testing.T) {
	dir := realDir(t, t.TempDir())
	sub := filepath.Join(dir, "wt")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		content string
		want    string // "" means an error is expected
	}{
		{"absolute", "gitdir: /repo/.git/worktrees/x\n", "/repo/.git/worktrees/x"},
		{"absolute unclean", "gitdir: /repo/.git/worktrees/../worktrees/x/\n", "/repo/.git/worktrees/x"},
		{"relative", "gitdir: ../.git/worktrees/wt\n", filepath.Join(dir, ".git", "worktrees", "wt")},
		{"relative dot", "gitdir: ./mod\n", filepath.Join(sub, "mod")},
		{"no newline", "gitdir: /a/b", "/a/b"},
		{"crlf", "gitdir: /a/b\r\n", "/a/b"},
		{"missing prefix", "/repo/.git\n", ""},
		{"other prefix", "gitfile: /repo/.git\n", ""},
		{"prefix no space", "gitdir:/repo/.git\n", ""},
		{"empty path", "gitdir: \n", ""},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := filepath.Join(sub, ".git")
			writeFile(t, f, tt.content)
			got, err := ReadGitFile(f)
			if tt.want == "" {
				if err == nil {
					t.Fatalf("ReadGitFile(%q) = %q, want an error", tt.content, got)
				}
				return
			}
			if err != nil || got != tt.want {
				t.Fatalf("ReadGitFile(%q) = %q, %v; want %q", tt.content, got, err, tt.want)
			}
		})
	}

	t.Run("symlink", func(t *testing.T) {
		target := filepath.Join(dir, "target")
		writeFile(t, target, "gitdir: /repo/.git\n")
		link := filepath.Join(dir, "link")
		if err := os.Symlink(target, link); err != nil {
			t.Fatal(err)
		}
		if got, err := ReadGitFile(link); err == nil {
			t.Fatalf("ReadGitFile(symlink) = %q, want an error", got)
		}
	})
	t.Run("directory", func(t *testing.T) {
		if got, err := ReadGitFile(sub); err == nil {
			t.Fatalf("ReadGitFile(dir) = %q, want an error", got)
		}
	})
	t.Run("4KiB boundary", func(t *testing.T) {
		f := filepath.Join(dir, "big")
		p := "/" + strings.Repeat("a", 4096-len("gitdir: /\n"))
		writeFile(t, f, "gitdir: "+p+"\n")
		if got, err := ReadGitFile(f); err != nil || got != p {
			t.Fatalf("ReadGitFile(4096 bytes) = %.20q…, %v; want the path", got, err)
		}
		writeFile(t, f, "gitdir: "+p+"a\n")
		if got, err := ReadGitFile(f); err == nil {
			t.Fatalf("ReadGitFile(4097 bytes) = %.20q…, want an error", got)
		}
	})
	t.Run("missing", func(t *testing.T) {
		if _, err := ReadGitFile(filepath.Join(dir, "nope")); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("ReadGitFile(missing) error = %v, want not-exist", err)
		}
	})
}

func TestDiscover(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	if err := os.MkdirAll(filepath.Join(top, "sub", "deeper"), 0o755); err != nil {
		t.Fatal(err)
	}
	wt := filepath.Join(realDir(t, t.TempDir()), "linked")
	git(t, top, "worktree", "add", "-q", "--detach", wt)
	bare := filepath.Join(realDir(t, t.TempDir()), "bare.git")
	git(t, top, "clone", "-q", "--bare", top, bare)

	tests := []struct {
		name string
		dir  string
		want Repo
	}{
		{"top", top, Repo{Top: top, GitDir: filepath.Join(top, ".git"), CommonDir: filepath.Join(top, ".git")}},
		{"subdirectory", filepath.Join(top, "sub", "deeper"), Repo{Top: top, GitDir: filepath.Join(top, ".git"), CommonDir: filepath.Join(top, ".git")}},
		{"linked worktree", wt, Repo{Top: wt, GitDir: filepath.Join(top, ".git", "worktrees", "linked"), CommonDir: filepath.Join(top, ".git")}},
		{"bare", bare, Repo{Top: "", GitDir: bare, CommonDir: bare}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Discover(ctx, tt.dir)
			if err != nil {
				t.Fatalf("Discover(%s): %v", tt.dir, err)
			}
			if *got != tt.want {
				t.Fatalf("Discover(%s) = %+v, want %+v", tt.dir, *got, tt.want)
			}
		})
	}
	if r := discover(t, wt); r.GitDir == r.CommonDir {
		t.Fatalf("linked worktree: GitDir == CommonDir (%s)", r.GitDir)
	}

	t.Run("not a repository", func(t *testing.T) {
		dir := realDir(t, t.TempDir())
		r, err := Discover(ctx, dir)
		if err == nil {
			t.Fatalf("Discover(%s) = %+v, want ERR_NOT_A_REPO", dir, r)
		}
		if e := errfmt.As(err); e.Code != errfmt.ErrNotARepo || !strings.Contains(e.What, dir) {
			t.Fatalf("Discover(non-repo) = %v (%s), want ERR_NOT_A_REPO naming %s", err, e.Code, dir)
		}
	})
}

func TestHead(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()

	t.Run("empty repository", func(t *testing.T) {
		dir := realDir(t, t.TempDir())
		git(t, dir, "init", "-q", "-b", "main")
		r := discover(t, dir)
		c, b, err := r.Head(ctx)
		if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrEmptyRepo {
			t.Fatalf("Head(empty) = %q, %q, %v; want ERR_EMPTY_REPO", c, b, err)
		}
	})
	t.Run("on a branch", func(t *testing.T) {
		dir := newRepo(t)
		r := discover(t, dir)
		c, b, err := r.Head(ctx)
		if err != nil || c != git(t, dir, "rev-parse", "HEAD") || b != "refs/heads/main" {
			t.Fatalf("Head() = %q, %q, %v", c, b, err)
		}
	})
	t.Run("detached", func(t *testing.T) {
		dir := newRepo(t)
		git(t, dir, "checkout", "-q", "--detach")
		c, b, err := discover(t, dir).Head(ctx)
		if err != nil || !IsHex(c) || b != "" {
			t.Fatalf("Head(detached) = %q, %q, %v; want a commit and no branch", c, b, err)
		}
	})
}

func TestResolveCommit(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	dir := newRepo(t)
	r := discover(t, dir)
	head := git(t, dir, "rev-parse", "HEAD")
	tree := git(t, dir, "rev-parse", "HEAD^{tree}")
	tests := []struct {
		rev, want string
	}{
		{"HEAD", head}, {"main", head}, {head[:10], head},
		{tree, ""}, {"nope", ""}, {"--all", ""}, {"-h", ""},
	}
	for _, tt := range tests {
		got, err := r.ResolveCommit(ctx, tt.rev)
		if tt.want == "" {
			if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrBadRevision {
				t.Errorf("ResolveCommit(%q) = %q, %v; want ERR_BAD_REVISION", tt.rev, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("ResolveCommit(%q) = %q, %v; want %q", tt.rev, got, err, tt.want)
		}
	}
}

func TestObjectDirs(t *testing.T) {
	gitTestEnv(t)
	root := realDir(t, t.TempDir())
	mk := func(name string) string {
		d := filepath.Join(root, name)
		git(t, root, "init", "-q", "--bare", d)
		return filepath.Join(d, "objects")
	}
	setAlt := func(objects string, lines ...string) {
		writeFile(t, filepath.Join(objects, "info", "alternates"), strings.Join(lines, "\n")+"\n")
	}
	main := mk("main.git")
	a, b, c, d := mk("a.git"), mk("b.git"), mk("c.git"), mk("d.git")
	// main -> a (relative), b (absolute), a again (duplicate), a comment
	// a -> c (absolute, recursive), b (duplicate through a)
	// c -> d (relative), main (a cycle)
	setAlt(main, "../../a.git/objects", b, "# a comment", "", a)
	setAlt(a, c, "../../b.git/objects/")
	setAlt(c, "../../d.git/objects", main)

	r := &Repo{GitDir: filepath.Dir(main), CommonDir: filepath.Dir(main)}
	got := r.ObjectDirs()
	want := []string{main, a, c, d, b}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ObjectDirs() =\n%q\nwant\n%q", got, want)
	}

	t.Run("no alternates", func(t *testing.T) {
		e := mk("e.git")
		r := &Repo{CommonDir: filepath.Dir(e)}
		if got := r.ObjectDirs(); !reflect.DeepEqual(got, []string{e}) {
			t.Fatalf("ObjectDirs() = %q, want [%s]", got, e)
		}
	})
	t.Run("symlinked alternate deduplicated", func(t *testing.T) {
		f := mk("f.git")
		link := filepath.Join(root, "f-link")
		if err := os.Symlink(f, link); err != nil {
			t.Fatal(err)
		}
		g := mk("g.git")
		setAlt(g, f, link)
		r := &Repo{CommonDir: filepath.Dir(g)}
		if got := r.ObjectDirs(); !reflect.DeepEqual(got, []string{g, f}) {
			t.Fatalf("ObjectDirs() = %q, want [%s %s]", got, g, f)
		}
	})
	t.Run("git agrees", func(t *testing.T) {
		// An object only in d is readable from main through the chain.
		oid, err := gitErr(filepath.Dir(d), []byte("only in d\n"), "hash-object", "-w", "--stdin")
		if err != nil {
			t.Fatal(err)
		}
		git(t, filepath.Dir(main), "cat-file", "-e", oid)
	})
}
