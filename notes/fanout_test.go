package notes

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/gitx"
)

// exec runs git args with stdin in and returns its trimmed output.
func (tr testRunner) exec(t *testing.T, in string, args ...string) string {
	t.Helper()
	out, err := tr.git.Exec(context.Background(), gitx.Cmd{Args: args, Stdin: strings.NewReader(in)})
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(out))
}

type testRunner struct{ git gitx.Runner }

func TestFanoutWrittenByGit(t *testing.T) {
	ctx := context.Background()
	const n = 300 // more than 256 notes: git fans the tree out
	git, commits := newRepo(t, n)
	var b strings.Builder
	b.WriteString("commit refs/notes/agent/decisions\ncommitter t <t@example.com> 1700000000 +0000\ndata 3\nn0\n")
	for i, c := range commits {
		line := fmt.Sprintf("note %d\n", i)
		fmt.Fprintf(&b, "N inline %s\ndata %d\n%s", c, len(line), line)
	}
	fastImport(t, git, b.String())
	// One more note through "git notes add", which keeps the fanout.
	extra, _ := git.Run(ctx, "rev-parse", "main^{tree}")
	if _, err := git.Run(ctx, "notes", "--ref=agent/decisions", "add", "-m", "on a tree", extra); err != nil {
		t.Fatal(err)
	}
	c := commits[42]
	paths := notePaths(t, git, DecisionsRef, c)
	if len(paths) != 1 || !strings.Contains(paths[0], "/") {
		t.Fatalf("git did not fan out: %v", paths)
	}
	lines, err := Read(ctx, git, DecisionsRef, c)
	if err != nil || joinLines(lines) != "note 42" {
		t.Errorf("Read = %q, %v", joinLines(lines), err)
	}
	if err := Append(ctx, git, DecisionsRef, c, [][]byte{[]byte("more")}); err != nil {
		t.Fatal(err)
	}
	if p := notePaths(t, git, DecisionsRef, c); len(p) != 1 || p[0] != paths[0] {
		t.Errorf("after Append: paths %v, want [%s]", p, paths[0])
	}
	if shown, _ := git.Run(ctx, "notes", "--ref=agent/decisions", "show", c); shown != "note 42\nmore" {
		t.Errorf("git notes show = %q", shown)
	}
	objs, err := Objects(ctx, git, DecisionsRef)
	if err != nil || len(objs) != n+1 {
		t.Errorf("Objects: %d, %v; want %d", len(objs), err, n+1)
	}
	// A new note in a fanned-out tree joins the fanout.
	// (A blob whose two-digit prefix directory exists.)
	prefixes := map[string]bool{}
	for _, c := range commits {
		prefixes[c[:2]] = true
	}
	blob := ""
	for i := 0; blob == "" || !prefixes[blob[:2]]; i++ {
		blob = testRunner{git}.exec(t, fmt.Sprint("data ", i), "hash-object", "-w", "--stdin")
	}
	if err := Append(ctx, git, DecisionsRef, blob, [][]byte{[]byte("on a blob")}); err != nil {
		t.Fatal(err)
	}
	if p := notePaths(t, git, DecisionsRef, blob); len(p) != 1 || p[0] != blob[:2]+"/"+blob[2:] {
		t.Errorf("new note at %v", p)
	}
	if shown, _ := git.Run(ctx, "notes", "--ref=agent/decisions", "show", blob); shown != "on a blob" {
		t.Errorf("git notes show new = %q", shown)
	}
}

func TestCraftedFanouts(t *testing.T) {
	ctx := context.Background()
	git, commits := newRepo(t, 3)
	tr := testRunner{git}
	blob := func(s string) string { return tr.exec(t, s, "hash-object", "-w", "--stdin") }
	a, b, c := commits[0], commits[1], commits[2]
	// a at 2/2/36, b at 2/38 and also flat (a bad merge), c absent.
	inner := tr.exec(t, "100644 blob "+blob("deep\n")+"\t"+a[4:]+"\n", "mktree")
	mid := tr.exec(t, "040000 tree "+inner+"\t"+a[2:4]+"\n", "mktree")
	bdir := tr.exec(t, "100644 blob "+blob("two\n")+"\t"+b[2:]+"\n", "mktree")
	var root strings.Builder
	fmt.Fprintf(&root, "040000 tree %s\t%s\n", mid, a[:2])
	if a[:2] != b[:2] {
		fmt.Fprintf(&root, "040000 tree %s\t%s\n", bdir, b[:2])
	}
	fmt.Fprintf(&root, "100644 blob %s\t%s\n", blob("flat\n"), b)
	tree := tr.exec(t, root.String(), "mktree")
	commit := tr.exec(t, "", "commit-tree", tree, "-m", "crafted")
	tr.exec(t, "", "update-ref", OutcomeRef, commit)

	tests := []struct {
		obj, want string
	}{
		{a, "deep"},
		{c, ""},
	}
	if a[:2] != b[:2] {
		tests = append(tests, struct{ obj, want string }{b, "flat|two"})
	}
	for _, tt := range tests {
		lines, err := Read(ctx, git, OutcomeRef, tt.obj)
		if err != nil || joinLines(lines) != tt.want {
			t.Errorf("Read(%s) = %q, %v; want %q", tt.obj, joinLines(lines), err, tt.want)
		}
	}
	if err := Append(ctx, git, OutcomeRef, a, [][]byte{[]byte("x")}); err != nil {
		t.Fatal(err)
	}
	if p := notePaths(t, git, OutcomeRef, a); len(p) != 1 || p[0] != a[:2]+"/"+a[2:4]+"/"+a[4:] {
		t.Errorf("a at %v", p)
	}
	if a[:2] != b[:2] {
		if err := Append(ctx, git, OutcomeRef, b, [][]byte{[]byte("y")}); err != nil {
			t.Fatal(err)
		}
		if p := notePaths(t, git, OutcomeRef, b); len(p) != 1 || p[0] != b {
			t.Errorf("b at %v, want merged into the flat path", p)
		}
		if lines, _ := Read(ctx, git, OutcomeRef, b); joinLines(lines) != "flat|two|y" {
			t.Errorf("b = %q", joinLines(lines))
		}
	}
}

func TestFanoutPaths(t *testing.T) {
	h := "0123456789abcdef0123456789abcdef01234567"
	p := fanoutPaths(h)
	if len(p) != 20 || p[0] != h || p[1] != "01/23456789abcdef0123456789abcdef01234567" ||
		p[2] != "01/23/456789abcdef0123456789abcdef01234567" || p[19] != "01/23/45/67/89/ab/cd/ef/01/23/45/67/89/ab/cd/ef/01/23/45/67" {
		t.Errorf("fanoutPaths = %q", p)
	}
	if d := fanoutDirs(h); len(d) != 19 || d[0] != "01" || d[1] != "01/23" {
		t.Errorf("fanoutDirs = %q", d)
	}
}
