package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/git-agent/git-agent/errfmt"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// DoubleInterrupt is the window in which a second Ctrl-C cancels the
// sandbox instead of only reaching the command.
const DoubleInterrupt = 2 * time.Second

// Terminal is the user's terminal, which RunTerminal relays to a pty it owns.
type Terminal struct {
	In  *os.File  // the terminal git-agent reads keys from (its stdin)
	Out *os.File  // the terminal git-agent writes to (its stdout)
	Log io.Writer // receives a copy of everything the command writes; nil for none
	// OnCancel, when set, is called after a second interrupt character
	// within DoubleInterrupt, once RunTerminal has canceled the sandbox.
	OnCancel func()
}

// TerminalOf returns the Terminal for stdin and stdout when both are
// *os.File terminals, else ok is false (use pipes and Run).
func TerminalOf(stdin io.Reader, stdout io.Writer) (t Terminal, ok bool) {
	in, ok1 := stdin.(*os.File)
	out, ok2 := stdout.(*os.File)
	if !ok1 || !ok2 || in == nil || out == nil || !term.IsTerminal(int(in.Fd())) || !term.IsTerminal(int(out.Fd())) {
		return Terminal{}, false
	}
	return Terminal{In: in, Out: out}, true
}

// RunTerminal is Run with a terminal (DESIGN.md invariant 9): it opens a
// pty, gives its slave to the sandbox as stdin and stdout (the init shim
// makes it the controlling terminal, see takeTerminal), puts t.In into raw
// mode for the duration, relays keys to the pty and the pty's output to
// t.Out and t.Log, and copies t.In's window size to the pty at the start and
// on every SIGWINCH. The pty's line discipline turns Ctrl-C into SIGINT
// inside; a second interrupt character within DoubleInterrupt (while the
// command's terminal has ISIG set) cancels the sandbox as ctx would, and
// Run's ERR_CANCELED comes back. stderr receives bwrap's own messages, as
// in Run. Results and errors are Run's; an ERR_IO error when the pty or raw
// mode cannot be set up.
func RunTerminal(ctx context.Context, p Policy, t Terminal, stderr io.Writer) (int, error) {
	where := "starting " + argv0(p) + " on a terminal"
	master, slave, err := pty.Open()
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot open a pty", where, "check that /dev/ptmx exists and /dev/pts is mounted")
	}
	defer master.Close()
	_ = pty.InheritSize(t.In, master)
	in, err := dupNonblock(t.In)
	if err != nil {
		slave.Close()
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot read the terminal", where, "run git-agent with stdin on a terminal or redirected from a file")
	}
	saved, err := term.MakeRaw(int(t.In.Fd()))
	if err != nil {
		slave.Close()
		in.Close()
		return -1, errfmt.Wrap(errfmt.ErrIO, err, "cannot put the terminal into raw mode", where, "run git-agent in the foreground of an ordinary terminal")
	}
	defer term.Restore(int(t.In.Fd()), saved)

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	winch := make(chan os.Signal, 1)
	signal.Notify(winch, syscall.SIGWINCH)
	stopWinch := make(chan struct{})
	wg.Add(3)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-winch:
				_ = pty.InheritSize(t.In, master)
			case <-stopWinch:
				return
			}
		}
	}()
	go func() {
		defer wg.Done()
		relayKeys(in, master, func() {
			cancel()
			if t.OnCancel != nil {
				t.OnCancel()
			}
		})
	}()
	go func() {
		defer wg.Done()
		out := io.Writer(t.Out)
		if t.Log != nil {
			out = io.MultiWriter(t.Out, t.Log)
		}
		io.Copy(out, master) // ends with EIO once every slave is closed
	}()

	code, err := Run(ctx, p, slave, slave, stderr)
	// The sandbox is gone: closing the last slave lets the output drain and
	// end; a deadline wakes the key relay.
	slave.Close()
	signal.Stop(winch)
	close(stopWinch)
	in.SetReadDeadline(time.Now())
	wg.Wait()
	in.Fd() // back to blocking mode: the descriptor is shared with the shell
	in.Close()
	return code, err
}

// dupNonblock returns a non-blocking duplicate of f that Go's poller
// manages, so a pending Read can be woken by a deadline.
func dupNonblock(f *os.File) (*os.File, error) {
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		return nil, err
	}
	unix.CloseOnExec(fd)
	if err := unix.SetNonblock(fd, true); err != nil {
		unix.Close(fd)
		return nil, err
	}
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// relayKeys copies keys from in to the pty master until in fails (its
// deadline passed) or the pty is gone, calling cancel at the second
// interrupt character within DoubleInterrupt.
func relayKeys(in, master *os.File, cancel func()) {
	var ir interrupts
	buf := make([]byte, 4096)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			if intr, ok := interruptChar(master); ok {
				for _, b := range buf[:n] {
					if b == intr && ir.press(time.Now()) {
						cancel()
					}
				}
			}
			if _, werr := master.Write(buf[:n]); werr != nil {
				return
			}
		}
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// interruptChar returns the pty's interrupt character (VINTR) when its
// line discipline turns it into SIGINT (ISIG); a program that reads raw
// keys (an editor) gets Ctrl-C as a key and it never cancels. TCGETS on a
// pty master reports the slave's settings.
func interruptChar(master *os.File) (byte, bool) {
	var tio *unix.Termios
	var err error
	rc, cerr := master.SyscallConn()
	if cerr != nil {
		return 0, false
	}
	rc.Control(func(fd uintptr) { tio, err = unix.IoctlGetTermios(int(fd), unix.TCGETS) })
	if err != nil || tio.Lflag&unix.ISIG == 0 || tio.Cc[unix.VINTR] == 0 {
		return 0, false
	}
	return tio.Cc[unix.VINTR], true
}

// interrupts tells a double interrupt: press reports whether the press at
// now comes within DoubleInterrupt of the previous one.
type interrupts struct{ last time.Time }

func (ir *interrupts) press(now time.Time) bool {
	double := !ir.last.IsZero() && now.Sub(ir.last) <= DoubleInterrupt
	ir.last = now
	return double
}
