package notes

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/gitx"
)

// TestMain isolates git from the user's and the system's configuration and
// gives "git notes" and fast-import an identity.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "notes-test-home-")
	if err != nil {
		panic(err)
	}
	for k, v := range map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": filepath.Join(home, "gitconfig"),
		"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
		"GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com",
	} {
		os.Setenv(k, v)
	}
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// newRepo makes a repository with n commits on refs/heads/main (made with
// fast-import) and returns a Runner for it and the commits, oldest first.
func newRepo(t *testing.T, n int) (gitx.Runner, []string) {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	if _, err := (gitx.Runner{}).Run(ctx, "init", "-q", dir); err != nil {
		t.Fatal(err)
	}
	git := gitx.Runner{GitDir: filepath.Join(dir, ".git")}
	fastImport(t, git, commitsStream(n))
	commits, err := git.Lines(ctx, "rev-list", "--reverse", "refs/heads/main")
	if err != nil {
		t.Fatal(err)
	}
	return git, commits
}

// commitsStream is a fast-import stream of n commits on refs/heads/main,
// marked :1 … :n.
func commitsStream(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		msg := fmt.Sprintf("c%d\n", i)
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\ncommitter t <t@example.com> %d +0000\ndata %d\n%s",
			i, 1700000000+i, len(msg), msg)
	}
	return b.String()
}

func fastImport(t *testing.T, git gitx.Runner, stream string) {
	t.Helper()
	if _, err := git.Exec(context.Background(), gitx.Cmd{Args: []string{"fast-import", "--quiet"},
		Stdin: strings.NewReader(stream)}); err != nil {
		t.Fatal(err)
	}
}

// notePaths returns the paths in ref's tree that hold a note for oid.
func notePaths(t *testing.T, git gitx.Runner, ref, oid string) []string {
	t.Helper()
	all, err := git.Lines(context.Background(), "ls-tree", "-r", "--name-only", ref)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, p := range all {
		if strings.ReplaceAll(p, "/", "") == oid {
			out = append(out, p)
		}
	}
	return out
}

func joinLines(lines [][]byte) string {
	s := make([]string, len(lines))
	for i, l := range lines {
		s[i] = string(l)
	}
	return strings.Join(s, "|")
}
