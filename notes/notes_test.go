package notes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func TestAppendRead(t *testing.T) {
	ctx := context.Background()
	git, commits := newRepo(t, 2)
	c := commits[0]
	if lines, err := Read(ctx, git, DecisionsRef, c); err != nil || lines != nil {
		t.Fatalf("Read with no ref = %q, %v", lines, err)
	}
	if err := Append(ctx, git, DecisionsRef, c, [][]byte{[]byte("a"), nil, []byte("b")}); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, git, DecisionsRef, "main~1", [][]byte{[]byte("c")}); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, git, DecisionsRef, c, nil); err != nil {
		t.Fatal(err)
	}
	lines, err := Read(ctx, git, DecisionsRef, c)
	if err != nil || joinLines(lines) != "a|b|c" {
		t.Errorf("Read = %q, %v", joinLines(lines), err)
	}
	if lines, err := Read(ctx, git, DecisionsRef, commits[1]); err != nil || lines != nil {
		t.Errorf("Read of unannotated = %q, %v", lines, err)
	}
	// Plain git reads what Append wrote.
	shown, err := git.Run(ctx, "notes", "--ref=agent/decisions", "show", c)
	if err != nil || shown != "a\nb\nc" {
		t.Errorf("git notes show = %q, %v", shown, err)
	}
	info, _ := git.Run(ctx, "log", "-1", "--format=%an|%ce|%s|%P", DecisionsRef)
	parts := strings.Split(info, "|")
	if parts[0] != "git-agent" || parts[1] != "git-agent@localhost" || parts[2] != "Notes added by 'git agent'" || parts[3] == "" {
		t.Errorf("notes commit %q", info)
	}
	if n, _ := git.Run(ctx, "rev-list", "--count", DecisionsRef); n != "2" {
		t.Errorf("%s commits, want 2 (an empty append writes nothing)", n)
	}
	objs, err := Objects(ctx, git, DecisionsRef)
	if err != nil || !slices.Equal(objs, []string{c}) {
		t.Errorf("Objects = %v, %v", objs, err)
	}
	if objs, err := Objects(ctx, git, OutcomeRef); err != nil || objs != nil {
		t.Errorf("Objects of missing ref = %v, %v", objs, err)
	}
	// Errors.
	if err := Append(ctx, git, DecisionsRef, c, [][]byte{[]byte("x\ny")}); errfmt.As(err).Code != errfmt.ErrInternal {
		t.Errorf("newline in line: %v", err)
	}
	for _, bad := range []string{"nope", "-x"} {
		if _, err := Read(ctx, git, DecisionsRef, bad); errfmt.As(err).Code != errfmt.ErrBadRevision {
			t.Errorf("Read(%q): %v", bad, err)
		}
	}
}

func TestAppendToGitNotes(t *testing.T) {
	ctx := context.Background()
	git, commits := newRepo(t, 1)
	c := commits[0]
	// A note written by git itself, and one with no final newline.
	if _, err := git.Run(ctx, "notes", "--ref=agent/decisions", "add", "-m", "from git", c); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, git, DecisionsRef, c, [][]byte{[]byte("from us")}); err != nil {
		t.Fatal(err)
	}
	if shown, _ := git.Run(ctx, "notes", "--ref=agent/decisions", "show", c); shown != "from git\nfrom us" {
		t.Errorf("show = %q", shown)
	}
	tr := testRunner{git}
	blob := tr.exec(t, "no newline", "hash-object", "-w", "--stdin")
	tree := tr.exec(t, "100644 blob "+blob+"\t"+c+"\n", "mktree")
	tr.exec(t, "", "update-ref", OutcomeRef, tr.exec(t, "", "commit-tree", tree, "-m", "x"))
	if err := Append(ctx, git, OutcomeRef, c, [][]byte{[]byte("next")}); err != nil {
		t.Fatal(err)
	}
	if lines, _ := Read(ctx, git, OutcomeRef, c); joinLines(lines) != "no newline|next" {
		t.Errorf("Read = %q", joinLines(lines))
	}
}

func TestConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	git, commits := newRepo(t, 1)
	c := commits[0]
	const writers, each = 8, 3
	var wg sync.WaitGroup
	errs := make(chan error, writers*each)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				errs <- AppendJSON(ctx, git, DecisionsRef, c, map[string]int{"w": w, "i": i})
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	lines, err := Read(ctx, git, DecisionsRef, c)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, l := range lines {
		got[string(l)] = true
	}
	for w := range writers {
		for i := range each {
			if l := fmt.Sprintf(`{"i":%d,"w":%d}`, i, w); !got[l] {
				t.Errorf("lost line %s", l)
			}
		}
	}
	if len(lines) != writers*each {
		t.Errorf("%d lines, want %d", len(lines), writers*each)
	}
	if p := notePaths(t, git, DecisionsRef, c); len(p) != 1 {
		t.Errorf("note paths %v", p)
	}
}
