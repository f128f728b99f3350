package refs

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/git-agent/git-agent/gitx"
)

// TestMain isolates git from the user's and the system's configuration.
func TestMain(m *testing.M) {
	home, err := os.MkdirTemp("", "refs-test-home-")
	if err != nil {
		panic(err)
	}
	os.Setenv("HOME", home)
	os.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	os.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	os.Setenv("GIT_CONFIG_GLOBAL", filepath.Join(home, "gitconfig"))
	code := m.Run()
	os.RemoveAll(home)
	os.Exit(code)
}

// newRepo makes an empty repository in a temp dir and returns a Runner for it.
func newRepo(t *testing.T) gitx.Runner {
	t.Helper()
	dir := t.TempDir()
	if _, err := (gitx.Runner{}).Run(context.Background(), "init", "-q", dir); err != nil {
		t.Fatal(err)
	}
	return gitx.Runner{GitDir: filepath.Join(dir, ".git")}
}
