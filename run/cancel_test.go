package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-agent/git-agent/refs"
	"golang.org/x/sys/unix"
)

func TestLockHolder(t *testing.T) {
	dir := t.TempDir()
	lock := filepath.Join(dir, refs.LockFile)
	f, err := refs.Lock(lock)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Stat(lock, &st); err != nil {
		t.Fatal(err)
	}
	dev := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	me := os.Getpid()
	n := 0
	write := func(lines ...string) string {
		n++
		p := filepath.Join(dir, fmt.Sprintf("locks%d", n))
		os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644)
		return p
	}
	tests := []struct {
		name  string
		locks string
		ok    bool
	}{
		{"real /proc/locks", "/proc/locks", true},
		{"holder listed", write("1: POSIX  ADVISORY  WRITE 7 00:01:2 0 EOF", fmt.Sprintf("2: FLOCK  ADVISORY  WRITE %d %s 0 EOF", me, dev)), true},
		{"other pid holds it", write(fmt.Sprintf("1: FLOCK  ADVISORY  WRITE %d %s 0 EOF", me+1, dev)), false},
		{"other file", write(fmt.Sprintf("1: FLOCK  ADVISORY  WRITE %d 00:01:%d 0 EOF", me, st.Ino+1)), false},
		{"only waiting", write(fmt.Sprintf("1: -> FLOCK  ADVISORY  WRITE %d %s 0 EOF", me, dev)), false},
		{"read lock", write(fmt.Sprintf("1: FLOCK  ADVISORY  READ %d %s 0 EOF", me, dev)), false},
		{"no locks", write(""), false},
	}
	for _, tc := range tests {
		pid, err := lockHolder(lock, tc.locks)
		if tc.ok && (err != nil || pid != me) {
			t.Errorf("%s: got %d, %v; want %d", tc.name, pid, err, me)
		}
		if !tc.ok && err == nil {
			t.Errorf("%s: got %d, want an error", tc.name, pid)
		}
	}
	// A lock file whose pid was rewritten names nobody who holds it.
	os.WriteFile(lock, []byte("1\n"), 0o600)
	if _, err := lockHolder(lock, "/proc/locks"); err == nil {
		t.Error("pid 1 in the lock file accepted")
	}
}
