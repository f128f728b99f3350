package gitx

import (
	"context"
	"strings"
	"testing"
)

func TestCatBatch(t *testing.T) {
	gitTestEnv(t)
	dir := newRepo(t)
	c := commitFile(t, dir, "a.txt", "alpha\n", "one")
	r := Runner{GitDir: dir + "/.git"}
	ctx := context.Background()
	objs, err := r.CatBatch(ctx, []string{c + ":a.txt", c + ":nope", c})
	if err != nil {
		t.Fatal(err)
	}
	if len(objs) != 3 {
		t.Fatalf("got %d answers, want 3", len(objs))
	}
	if objs[0].Missing || objs[0].Type != "blob" || string(objs[0].Data) != "alpha\n" {
		t.Errorf("blob answer = %+v", objs[0])
	}
	if !objs[1].Missing {
		t.Errorf("missing path answer = %+v, want Missing", objs[1])
	}
	if objs[2].Type != "commit" || objs[2].OID != c || !strings.Contains(string(objs[2].Data), "\n\none\n") {
		t.Errorf("commit answer = %+v", objs[2])
	}
	if _, err := r.CatBatch(ctx, []string{"HEAD\nHEAD"}); err == nil {
		t.Error("a name with a newline was accepted")
	}
	if objs, err := r.CatBatch(ctx, nil); err != nil || objs != nil {
		t.Errorf("no names = %v, %v", objs, err)
	}
	if tip, err := r.Tip(ctx, "refs/heads/nope"); err != nil || tip != "" {
		t.Errorf("Tip of a missing ref = %q, %v", tip, err)
	}
	if tip, err := r.Tip(ctx, "HEAD"); err != nil || tip != c {
		t.Errorf("Tip(HEAD) = %q, %v; want %s", tip, err, c)
	}
}
