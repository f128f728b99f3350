package sandbox

import (
	"golang.org/x/sys/unix"
)

// takeTerminal is the init shim's terminal step (DESIGN.md invariant 9).
// bwrap runs the shim in a new session with no controlling terminal; when
// its stdin is a terminal (git-agent's pty slave, see RunTerminal), the
// shim starts its own session (setsid) and makes the terminal that
// session's controlling terminal (TIOCSCTTY, which needs
// no capability for a terminal no other session holds) so that the line
// discipline turns Ctrl-C into SIGINT for the foreground process group and
// window changes into SIGWINCH; the command exec'd next inherits the
// session, its process group and the terminal. When stdout is the same
// terminal, stderr (bwrap's stderr, a pipe git-agent reads for bwrap's own
// complaints) is pointed at it too, so the command sees one terminal on
// fds 0, 1 and 2. It reports whether the terminal was taken; failure
// leaves the command without job control but otherwise running.
func takeTerminal() bool {
	if _, err := unix.IoctlGetTermios(0, unix.TCGETS); err != nil {
		return false
	}
	// bwrap's --new-session makes its own pid 1 the session leader; the
	// shim starts a session of its own to be able to take a terminal.
	if _, err := unix.Setsid(); err != nil {
		return false
	}
	if err := unix.IoctlSetInt(0, unix.TIOCSCTTY, 0); err != nil {
		return false
	}
	var in, out unix.Stat_t
	if unix.Fstat(0, &in) == nil && unix.Fstat(1, &out) == nil && in.Rdev == out.Rdev && in.Mode&unix.S_IFMT == unix.S_IFCHR {
		if _, err := unix.IoctlGetTermios(1, unix.TCGETS); err == nil {
			unix.Dup2(1, 2)
		}
	}
	return true
}
