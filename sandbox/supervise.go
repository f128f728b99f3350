package sandbox

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

// supervise runs the init shim path with argv (a process group of its own,
// killed when the forking thread dies), gives it plan on PlanFD and a
// report pipe on ReportFD, and waits. When ctx is done the process group
// gets SIGTERM and, after Grace, SIGKILL. The result is classified like
// Run's: the command's status, or an ERR_SANDBOX / ERR_COMMAND_NOT_FOUND /
// ERR_CANCELED error.
func supervise(ctx context.Context, path string, argv, env []string, dir string, plan *os.File,
	stdin io.Reader, stdout, stderr io.Writer, where string) (int, error) {
	reportR, reportW, err := os.Pipe()
	if err != nil {
		return -1, ioError(err, where)
	}
	defer reportR.Close()
	g := &gate{out: stderr}
	cmd := &exec.Cmd{
		Path: path, Args: argv, Env: env, Dir: dir,
		Stdin: stdin, Stdout: stdout, Stderr: g,
		ExtraFiles:  []*os.File{plan, reportW}, // fds 3 (PlanFD) and 4 (ReportFD)
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
		WaitDelay:   Grace,
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	reportW.Close()
	plan.Close()
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrSandbox, err, "cannot start the sandbox's init", where,
			"run `git agent doctor`; it shows what does not work here and the exact fix")
	}
	st := &status{}
	var readers sync.WaitGroup
	readers.Add(1)
	go func() { defer readers.Done(); st.readReport(reportR, g) }()

	done := make(chan struct{})
	var mu sync.Mutex
	canceled := false
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		mu.Lock()
		canceled = true
		mu.Unlock()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(Grace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
	}()
	werr := cmd.Wait()
	close(done)
	readers.Wait()
	g.decide(false)
	mu.Lock()
	wasCanceled := canceled
	mu.Unlock()
	code := exitStatus(cmd.ProcessState)
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return code, errfmt.Wrap(errfmt.ErrIO, werr, "lost the sandbox's output", where,
			"check that the terminal or file receiving the output is writable, then retry")
	}
	return classify(st, g, code, wasCanceled, ctx.Err(), where)
}
