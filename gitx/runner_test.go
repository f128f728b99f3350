package gitx

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

// hostileRepo returns a repository whose config runs hooks (from
// core.hooksPath) and an fsmonitor script, each of which creates a file in
// markers when git runs it.
func hostileRepo(t *testing.T) (top, markers string) {
	t.Helper()
	top = newRepo(t)
	markers = realDir(t, t.TempDir())
	hooks := filepath.Join(realDir(t, t.TempDir()), "hooks")
	for _, h := range []string{"reference-transaction", "post-index-change", "pre-commit", "commit-msg",
		"post-commit", "post-checkout", "pre-auto-gc", "post-rewrite"} {
		writeFile(t, filepath.Join(hooks, h), "#!/bin/sh\ntouch '"+filepath.Join(markers, h)+"'\nexit 0\n")
		if err := os.Chmod(filepath.Join(hooks, h), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	fsmon := filepath.Join(hooks, "fsmonitor")
	writeFile(t, fsmon, "#!/bin/sh\ntouch '"+filepath.Join(markers, "fsmonitor")+"'\nexit 1\n")
	if err := os.Chmod(fsmon, 0o755); err != nil {
		t.Fatal(err)
	}
	git(t, top, "config", "core.hooksPath", hooks)
	git(t, top, "config", "core.fsmonitor", fsmon)
	return top, markers
}

func markersIn(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, e := range ents {
		out = append(out, e.Name())
	}
	return out
}

func TestRunnerHardening(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()

	// Control: plain git runs the hooks and the fsmonitor of this
	// repository, so the markers below prove something.
	top, markers := hostileRepo(t)
	git(t, top, "status", "--porcelain")
	git(t, top, "update-ref", "refs/heads/control", "HEAD")
	got := strings.Join(markersIn(markers), " ")
	if !strings.Contains(got, "fsmonitor") || !strings.Contains(got, "reference-transaction") {
		t.Fatalf("control: plain git created markers %q; want fsmonitor and reference-transaction", got)
	}

	top, markers = hostileRepo(t)
	r := discover(t, top)
	writeFile(t, filepath.Join(top, "untracked.txt"), "u\n")
	steps := []struct {
		name string
		run  func() error
	}{
		{"Runner.Run status in the work tree", func() error {
			out, err := (Runner{Dir: top}).Run(ctx, "status", "--porcelain")
			if err == nil && out != "?? untracked.txt" {
				t.Errorf("status = %q", out)
			}
			return err
		}},
		{"Runner.Run status with --git-dir and --work-tree", func() error {
			_, err := (Runner{GitDir: r.GitDir, WorkTree: top}).Run(ctx, "status")
			return err
		}},
		{"CommitTree", func() error {
			head, _, err := r.Head(ctx)
			if err != nil {
				return err
			}
			tree, err := r.TreeOf(ctx, head)
			if err != nil {
				return err
			}
			c, err := r.CommitTree(ctx, tree, []string{head}, "msg")
			if err != nil {
				return err
			}
			return r.UpdateRefs(ctx, "hardening", RefUpdate{Ref: "refs/heads/agent/h", New: c},
				RefUpdate{Ref: "refs/heads/main", New: c, Old: head})
		}},
		{"UpdateRefs delete", func() error {
			c, _ := (Runner{GitDir: r.GitDir}).Run(ctx, "rev-parse", "refs/heads/agent/h")
			return r.UpdateRefs(ctx, "delete", RefUpdate{Ref: "refs/heads/agent/h", Old: c})
		}},
		{"Runner.Run read-tree into the index", func() error {
			_, err := (Runner{Dir: top}).Run(ctx, "read-tree", "HEAD")
			return err
		}},
	}
	for _, s := range steps {
		if err := s.run(); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if m := markersIn(markers); len(m) != 0 {
			t.Fatalf("%s ran repository-configured programs: %q", s.name, m)
		}
	}
}

func TestRunnerScrubsGitEnv(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	other := newRepo(t)
	// A GIT_DIR or GIT_INDEX_FILE inherited from the caller (e.g. a hook)
	// must not redirect a Runner that names its repository.
	t.Setenv("GIT_DIR", filepath.Join(other, ".git"))
	t.Setenv("GIT_INDEX_FILE", filepath.Join(other, "nope"))
	r := &Repo{GitDir: filepath.Join(top, ".git"), CommonDir: filepath.Join(top, ".git"), Top: top}
	got, err := r.Git().Run(ctx, "rev-parse", "--absolute-git-dir")
	if err != nil || got != filepath.Join(top, ".git") {
		t.Fatalf("rev-parse --absolute-git-dir = %q, %v", got, err)
	}
	if got, err := (Runner{Dir: top}).Run(ctx, "ls-files"); err != nil || got != "a.txt" {
		t.Fatalf("ls-files = %q, %v", got, err)
	}
}

func TestRunnerErrors(t *testing.T) {
	gitTestEnv(t)
	ctx := context.Background()
	top := newRepo(t)
	_, err := (Runner{Dir: top}).Run(ctx, "rev-parse", "--verify", "no-such-ref")
	e := errfmt.As(err)
	if err == nil || e.Code != errfmt.ErrGit {
		t.Fatalf("Run(bad) = %v, want ERR_GIT", err)
	}
	if ExitCodeOf(err) != 128 {
		t.Errorf("ExitCodeOf = %d, want 128", ExitCodeOf(err))
	}
	if !strings.Contains(e.What, "Needed a single revision") || strings.Contains(e.What, "\n") {
		t.Errorf("What = %q, want git's last stderr line", e.What)
	}
	if e.Context != "running git rev-parse --verify no-such-ref" {
		t.Errorf("Context = %q", e.Context)
	}
	if ExitCodeOf(os.ErrNotExist) != -1 {
		t.Errorf("ExitCodeOf(non-git error) != -1")
	}
	lines, err := (Runner{Dir: top}).Lines(ctx, "ls-files")
	if err != nil || len(lines) != 1 || lines[0] != "a.txt" {
		t.Errorf("Lines(ls-files) = %q, %v", lines, err)
	}
	lines, err = (Runner{Dir: top}).Lines(ctx, "ls-files", "nothing-here")
	if err != nil || lines != nil {
		t.Errorf("Lines(empty output) = %q, %v; want nil", lines, err)
	}
}
