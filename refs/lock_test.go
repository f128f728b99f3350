package refs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func TestLock(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, LockFile)
	if IsLocked(path) {
		t.Error("missing file reported locked")
	}
	f, err := Lock(path)
	if err != nil {
		t.Fatal(err)
	}
	if !IsLocked(path) {
		t.Error("held lock not reported")
	}
	data, _ := os.ReadFile(path)
	if strings.TrimSpace(string(data)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("lock file holds %q", data)
	}
	if _, err := Lock(path); errfmt.As(err).Code != errfmt.ErrRunLive {
		t.Errorf("second Lock = %v, want ERR_RUN_LIVE", err)
	}
	f.Close()
	if IsLocked(path) {
		t.Error("released lock still reported")
	}
	f2, err := Lock(path)
	if err != nil {
		t.Fatalf("relock: %v", err)
	}
	f2.Close()
	// Never through a symlink.
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(link); errfmt.As(err).Code != errfmt.ErrIO {
		t.Errorf("Lock(symlink) = %v, want ERR_IO", err)
	}
}
