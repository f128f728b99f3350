package refs

import (
	"errors"
	"os"
	"strconv"
	"syscall"

	"github.com/git-agent/git-agent/errfmt"
)

// LockFile is the name of the liveness lock in a run's runtime directory.
const LockFile = "lock"

// Lock creates (mode 0600, never through a symlink) and locks path with an
// exclusive, non-blocking flock(2), then writes the process id and a
// newline into it. The lock lasts while the returned file stays open:
// keep it open for the run's lifetime (closing it, or the process ending,
// releases it). A lock already held elsewhere is ERR_RUN_LIVE; other
// failures are ERR_IO.
func Lock(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, lockIOError(path, err)
	}
	if err := flock(f, syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errfmt.New(errfmt.ErrRunLive, "the run is still running (its lock is held)",
				"locking "+path, "wait for it, or stop it with git agent cancel <run>")
		}
		return nil, lockIOError(path, err)
	}
	// Truncate only once locked: the pid of a live holder is never wiped.
	if err := f.Truncate(0); err != nil {
		f.Close()
		return nil, lockIOError(path, err)
	}
	if _, err := f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0); err != nil {
		f.Close()
		return nil, lockIOError(path, err)
	}
	return f, nil
}

// IsLocked reports whether some open file holds a flock on path: it opens
// path afresh (read-only, not through a symlink) and tries a shared,
// non-blocking flock. A missing or unreadable file is not locked. The
// answer holds for this process's own Lock too, since flock(2) locks
// belong to open file descriptions.
func IsLocked(path string) bool {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	err = flock(f, syscall.LOCK_SH|syscall.LOCK_NB)
	if err == nil {
		_ = flock(f, syscall.LOCK_UN)
		return false
	}
	return errors.Is(err, syscall.EWOULDBLOCK)
}

// flock calls flock(2) on f, retrying on EINTR.
func flock(f *os.File, how int) error {
	for {
		err := syscall.Flock(int(f.Fd()), how)
		if err != syscall.EINTR {
			return err
		}
	}
}

// lockIOError is the ERR_IO error for a lock file that cannot be used.
func lockIOError(path string, err error) error {
	return errfmt.Wrap(errfmt.ErrIO, err, "cannot lock the run's lock file",
		"locking "+path, "check that the runtime directory exists and is writable")
}
