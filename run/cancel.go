package run

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"golang.org/x/sys/unix"
)

// Cancel stops the live run rec the way Ctrl-C twice on its terminal
// would: it reads the pid that refs.Lock wrote into the run's lock file,
// checks in /proc/locks that this very process holds the flock on that
// file (so a stale or forged pid is never signaled), sends it SIGTERM —
// git-agent then stops the sandbox (SIGTERM, SIGKILL after
// sandbox.Grace), snapshots the work and records "canceled" — and waits
// until the lock is released. It returns the record as it is then.
//
// Errors: ERR_RUN_NOT_LIVE when the run has finished or nobody holds its
// lock (an interrupted run: git agent gc); ERR_CANCELED when ctx ends
// while waiting; ERR_IO when the lock file cannot be read or no holder
// matches its pid.
func Cancel(ctx context.Context, repo *gitx.Repo, rec *refs.Record) (*refs.Record, error) {
	where := "canceling run " + rec.ID
	lock := filepath.Join(rec.RuntimeDir, refs.LockFile)
	if !rec.Live() || !refs.IsLocked(lock) {
		return nil, errfmt.New(errfmt.ErrRunNotLive, fmt.Sprintf("run %s is not running (state %s)", rec.ID, Liveness(rec)),
			where, "nothing to cancel; see git agent show "+rec.ID)
	}
	pid, err := lockHolder(lock, "/proc/locks")
	if err != nil {
		return nil, errfmt.Wrap(errfmt.ErrIO, err, "cannot tell which process runs "+rec.ID, where,
			"if the run is stuck, stop its git-agent process yourself, then git agent gc")
	}
	if err := syscall.Kill(pid, syscall.SIGTERM); err != nil && err != syscall.ESRCH {
		return nil, errfmt.Wrap(errfmt.ErrIO, err, fmt.Sprintf("cannot signal git-agent process %d", pid), where,
			"run git agent cancel as the user who started the run")
	}
	if err := waitUnlocked(ctx, lock); err != nil {
		return nil, errfmt.Wrap(errfmt.ErrCanceled, err, "stopped waiting for run "+rec.ID+" to end", where,
			"it is still stopping; see git agent show "+rec.ID)
	}
	return Find(context.WithoutCancel(ctx), repo, rec.ID)
}

// lockHolder returns the pid written in the lock file at path after
// checking, in locks (the format of /proc/locks: "N: FLOCK ADVISORY WRITE
// PID MAJ:MIN:INODE START END", device numbers in hex), that this pid holds
// a write flock on that very file.
func lockHolder(path, locks string) (int, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	var st syscall.Stat_t
	if err := syscall.Fstat(int(f.Fd()), &st); err != nil {
		return 0, err
	}
	var b [32]byte
	n, _ := f.Read(b[:])
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 1 {
		return 0, fmt.Errorf("%s holds no pid (%q)", path, b[:n])
	}
	want := fmt.Sprintf("%02x:%02x:%d", unix.Major(st.Dev), unix.Minor(st.Dev), st.Ino)
	lf, err := os.Open(locks)
	if err != nil {
		return 0, err
	}
	defer lf.Close()
	sc := bufio.NewScanner(lf)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 6 || fields[1] == "->" || fields[1] != "FLOCK" || fields[3] != "WRITE" {
			continue
		}
		if fields[4] == strconv.Itoa(pid) && fields[5] == want {
			return pid, nil
		}
	}
	return 0, fmt.Errorf("process %d named in %s does not hold its lock", pid, path)
}

// waitUnlocked blocks until nobody holds the flock on path (a shared lock
// can be taken), or ctx ends.
func waitUnlocked(ctx context.Context, path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW, 0)
	if err != nil {
		return nil // gone: nobody holds it
	}
	done := make(chan error, 1)
	go func() {
		defer f.Close()
		for {
			err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH)
			if err != syscall.EINTR {
				done <- err
				return
			}
		}
	}()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
		return ctx.Err()
	}
}
