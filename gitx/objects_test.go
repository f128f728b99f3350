package gitx

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

// packFiles lists objects/pack and the loose object directories of the
// repository at gitDir.
func packFiles(t *testing.T, gitDir string) []string {
	t.Helper()
	var out []string
	filepath.Walk(filepath.Join(gitDir, "objects"), func(p string, fi os.FileInfo, err error) error {
		if err == nil && !fi.IsDir() {
			out = append(out, p)
		}
		return nil
	})
	sort.Strings(out)
	return out
}

func packOf(t *testing.T, dir string, revs string) []byte {
	t.Helper()
	cmd := exec.Command("git", "-C", dir, "pack-objects", "--stdout", "--revs", "-q")
	cmd.Stdin = strings.NewReader(revs)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("pack-objects: %v", err)
	}
	return out.Bytes()
}

func TestImportPack(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	base := git(t, top, "rev-parse", "HEAD")
	other := filepath.Join(realDir(t, t.TempDir()), "other")
	git(t, top, "clone", "-q", top, other)
	c := commitFile(t, other, "new.txt", "new\n", "agent work")
	c2 := commitFile(t, other, "new2.txt", "new2\n", "more agent work")

	t.Run("pack of the new objects", func(t *testing.T) {
		pack := packOf(t, other, c+"\n^"+base+"\n")
		if err := r.ImportPack(ctx, bytes.NewReader(pack)); err != nil {
			t.Fatalf("ImportPack: %v", err)
		}
		git(t, top, "cat-file", "-e", c+":new.txt")
		if _, err := gitErr(top, nil, "cat-file", "-e", c2); err == nil {
			t.Fatalf("%s imported but not in the pack", c2)
		}
	})
	t.Run("whole pack", func(t *testing.T) {
		pack := packOf(t, other, c2+"\n")
		if err := r.ImportPack(ctx, bytes.NewReader(pack)); err != nil {
			t.Fatalf("ImportPack: %v", err)
		}
		git(t, top, "cat-file", "-e", c2+":new2.txt")
	})

	before := packFiles(t, r.CommonDir)
	t.Run("empty pack", func(t *testing.T) {
		pack := packOf(t, other, "")
		if len(pack) < 12 || string(pack[:4]) != "PACK" {
			t.Fatalf("pack-objects wrote %q", pack)
		}
		if err := r.ImportPack(ctx, bytes.NewReader(pack)); err != nil {
			t.Fatalf("ImportPack(empty pack): %v", err)
		}
		if after := packFiles(t, r.CommonDir); !reflect.DeepEqual(before, after) {
			t.Fatalf("an empty pack wrote files:\nbefore %q\nafter  %q", before, after)
		}
	})

	full := packOf(t, other, c2+"\n")
	corrupt := append([]byte{}, full...)
	corrupt[len(corrupt)/2] ^= 0xff
	missingBase := func() []byte {
		o2 := filepath.Join(realDir(t, t.TempDir()), "unrelated")
		git(t, filepath.Dir(o2), "init", "-q", o2)
		writeFile(t, filepath.Join(o2, "f"), "f\n")
		git(t, o2, "add", "f")
		git(t, o2, "commit", "-q", "-m", "root")
		root := git(t, o2, "rev-parse", "HEAD")
		c := commitFile(t, o2, "g", "g\n", "child")
		return packOf(t, o2, c+"\n^"+root+"\n") // links to a parent top lacks
	}()
	bad := []struct {
		name string
		data []byte
	}{
		{"garbage", []byte("this is not a pack at all, not even close")},
		{"truncated header", []byte("PACK\x00\x00")},
		{"nothing", nil},
		{"bad header after PACK", append([]byte("PACK\x00\x00\x00\x02\x00\x00\x00\x05"), bytes.Repeat([]byte{0x42}, 64)...)},
		{"truncated pack", full[:len(full)-30]},
		{"corrupt pack", corrupt},
		{"dangling link", missingBase},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			err := r.ImportPack(ctx, bytes.NewReader(tt.data))
			if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrImport {
				t.Fatalf("ImportPack(%s) = %v, want ERR_IMPORT", tt.name, err)
			}
			if after := packFiles(t, r.CommonDir); !reflect.DeepEqual(before, after) {
				t.Fatalf("a rejected pack changed the repository:\nbefore %q\nafter  %q", before, after)
			}
			if m, _ := filepath.Glob(filepath.Join(r.CommonDir, "objects", "incoming-*")); len(m) != 0 {
				t.Fatalf("quarantine left behind: %q", m)
			}
		})
	}

	t.Run("repository borrowing objects through alternates", func(t *testing.T) {
		shared := filepath.Join(realDir(t, t.TempDir()), "shared")
		git(t, top, "clone", "-q", "--shared", top, shared)
		rs := discover(t, shared)
		if n := git(t, shared, "count-objects"); n != "0 objects, 0 kilobytes" {
			t.Fatalf("shared clone has its own objects: %s", n)
		}
		o3 := filepath.Join(realDir(t, t.TempDir()), "o3")
		git(t, top, "clone", "-q", top, o3)
		c3 := commitFile(t, o3, "c3.txt", "c3\n", "on top of the shared base")
		if err := rs.ImportPack(ctx, bytes.NewReader(packOf(t, o3, c3+"\n^"+base+"\n"))); err != nil {
			t.Fatalf("ImportPack into a shared clone: %v", err)
		}
		git(t, shared, "cat-file", "-e", c3+":c3.txt")
		if _, err := gitErr(top, nil, "cat-file", "-e", c3); err == nil {
			t.Fatalf("the pack went into the alternate, not the shared clone")
		}
	})
}

func TestUpdateRefs(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	c1 := git(t, top, "rev-parse", "HEAD")
	c2 := commitFile(t, top, "b.txt", "b\n", "second")
	ref := func(name string) string {
		out, _ := gitErr(top, nil, "rev-parse", "--verify", "-q", name)
		return out
	}

	if err := r.UpdateRefs(ctx, "create", RefUpdate{Ref: "refs/heads/agent/x", New: c1}, RefUpdate{Ref: "refs/heads/agent/y", New: c1}); err != nil {
		t.Fatalf("UpdateRefs(create): %v", err)
	}
	if ref("refs/heads/agent/x") != c1 || ref("refs/heads/agent/y") != c1 {
		t.Fatalf("refs after create: x=%q y=%q", ref("refs/heads/agent/x"), ref("refs/heads/agent/y"))
	}

	tests := []struct {
		name    string
		updates []RefUpdate
	}{
		{"one wrong old value", []RefUpdate{{Ref: "refs/heads/agent/x", New: c2, Old: c1}, {Ref: "refs/heads/agent/y", New: c2, Old: c2}}},
		{"wrong old value first", []RefUpdate{{Ref: "refs/heads/agent/y", New: c2, Old: c2}, {Ref: "refs/heads/agent/x", New: c2, Old: c1}}},
		{"create existing", []RefUpdate{{Ref: "refs/heads/agent/z", New: c2}, {Ref: "refs/heads/agent/x", New: c2}}},
		{"delete with wrong old", []RefUpdate{{Ref: "refs/heads/agent/z", New: c2}, {Ref: "refs/heads/agent/y", Old: c2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.UpdateRefs(ctx, "race", tt.updates...)
			if e := errfmt.As(err); err == nil || e.Code != errfmt.ErrRefRace {
				t.Fatalf("UpdateRefs = %v, want ERR_REF_RACE", err)
			}
			if x, y, z := ref("refs/heads/agent/x"), ref("refs/heads/agent/y"), ref("refs/heads/agent/z"); x != c1 || y != c1 || z != "" {
				t.Fatalf("a failed transaction applied updates: x=%q y=%q z=%q", x, y, z)
			}
		})
	}

	if err := r.UpdateRefs(ctx, "move", RefUpdate{Ref: "refs/heads/agent/x", New: c2, Old: c1}, RefUpdate{Ref: "refs/heads/agent/y", Old: c1}); err != nil {
		t.Fatalf("UpdateRefs(move, delete): %v", err)
	}
	if x, y := ref("refs/heads/agent/x"), ref("refs/heads/agent/y"); x != c2 || y != "" {
		t.Fatalf("after move and delete: x=%q y=%q", x, y)
	}
	if got := git(t, top, "reflog", "-1", "--format=%gs", "refs/heads/agent/x"); got != "move" {
		t.Errorf("reflog message = %q, want move", got)
	}
	if !r.RefExists(ctx, "refs/heads/agent/x") || r.RefExists(ctx, "refs/heads/agent/y") {
		t.Errorf("RefExists disagrees with git")
	}
}

func TestMergeTree(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	writeFile(t, filepath.Join(top, "c.txt"), "1\n2\n3\n")
	git(t, top, "add", "c.txt")
	git(t, top, "commit", "-q", "-m", "base")
	base := git(t, top, "rev-parse", "HEAD")
	ours := commitFile(t, top, "ours.txt", "o\n", "ours")
	git(t, top, "checkout", "-q", "-b", "theirs", base)
	theirs := commitFile(t, top, "theirs.txt", "t\n", "theirs")
	git(t, top, "checkout", "-q", "-b", "c1", base)
	conflictA := commitFile(t, top, "c.txt", "1\nA\n3\n", "A")
	git(t, top, "checkout", "-q", "-b", "c2", base)
	conflictB := commitFile(t, top, "c.txt", "1\nB\n3\n", "B")

	t.Run("clean", func(t *testing.T) {
		tree, conflicts, err := r.MergeTree(ctx, ours, theirs)
		if err != nil || conflicts != nil || !IsHex(tree) {
			t.Fatalf("MergeTree = %q, %q, %v", tree, conflicts, err)
		}
		if got := git(t, top, "ls-tree", "--name-only", tree); got != "a.txt\nc.txt\nours.txt\ntheirs.txt" {
			t.Fatalf("merged tree lists %q", got)
		}
	})
	t.Run("conflicting", func(t *testing.T) {
		tree, conflicts, err := r.MergeTree(ctx, conflictA, conflictB)
		if err != nil || !IsHex(tree) || !reflect.DeepEqual(conflicts, []string{"c.txt"}) {
			t.Fatalf("MergeTree = %q, %q, %v; want a tree and [c.txt]", tree, conflicts, err)
		}
	})
	t.Run("bad revision", func(t *testing.T) {
		if tree, _, err := r.MergeTree(ctx, ours, strings.Repeat("1", 40)); err == nil {
			t.Fatalf("MergeTree(missing) = %q, nil; want an error", tree)
		}
	})
}

func TestCommitTree(t *testing.T) {
	gitTestEnv(t)
	t.Setenv("GIT_AUTHOR_NAME", "Somebody Else")
	t.Setenv("GIT_COMMITTER_EMAIL", "else@example.com")
	ctx := context.Background()
	top := newRepo(t)
	r := discover(t, top)
	head := git(t, top, "rev-parse", "HEAD")
	tree, err := r.TreeOf(ctx, head)
	if err != nil || tree != git(t, top, "rev-parse", "HEAD^{tree}") {
		t.Fatalf("TreeOf = %q, %v", tree, err)
	}
	c, err := r.CommitTree(ctx, tree, []string{head}, "snapshot\n\nAgent-Run: x1\n")
	if err != nil || !IsHex(c) {
		t.Fatalf("CommitTree = %q, %v", c, err)
	}
	got := git(t, top, "log", "-1", "--format=%an <%ae>|%cn <%ce>|%P|%T|%B", c)
	want := "git-agent <git-agent@localhost>|git-agent <git-agent@localhost>|" + head + "|" + tree + "|snapshot\n\nAgent-Run: x1"
	if got != want {
		t.Fatalf("commit = %q, want %q", got, want)
	}
	root, err := r.CommitTree(ctx, tree, nil, "root")
	if err != nil || git(t, top, "log", "-1", "--format=%P", root) != "" {
		t.Fatalf("CommitTree without parents = %q, %v", root, err)
	}
	if ok, err := r.IsAncestor(ctx, head, c); !ok || err != nil {
		t.Errorf("IsAncestor(head, c) = %v, %v", ok, err)
	}
	if ok, err := r.IsAncestor(ctx, c, head); ok || err != nil {
		t.Errorf("IsAncestor(c, head) = %v, %v", ok, err)
	}
}

func TestReadBlob(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	commitFile(t, top, "bin.dat", "x\x00y\n\nlast", "binary")
	commitFile(t, top, "dir/empty", "", "empty")
	r := discover(t, top)
	tests := []struct {
		path string
		want string
		ok   bool
	}{
		{"a.txt", "a\n", true},
		{"bin.dat", "x\x00y\n\nlast", true},
		{"dir/empty", "", true},
		{"missing.txt", "", false},
		{"dir", "", false},
		{"dir/missing", "", false},
	}
	for _, tt := range tests {
		got, ok, err := r.ReadBlob(ctx, "HEAD", tt.path)
		if err != nil || ok != tt.ok || string(got) != tt.want {
			t.Errorf("ReadBlob(HEAD, %q) = %q, %v, %v; want %q, %v", tt.path, got, ok, err, tt.want, tt.ok)
		}
	}
	first := git(t, top, "rev-list", "--max-parents=0", "HEAD")
	if _, ok, err := r.ReadBlob(ctx, first, "bin.dat"); ok || err != nil {
		t.Errorf("ReadBlob(first, bin.dat) = %v, %v; want absent", ok, err)
	}
}
