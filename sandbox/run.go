package sandbox

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

// Grace is how long Run waits after SIGTERM before it SIGKILLs the sandbox.
const Grace = 5 * time.Second

// statusFD is the descriptor given to bwrap's --json-status-fd; seccompFD
// the one given to --seccomp (TerminalFilter, read and closed by bwrap).
const (
	statusFD  = 3
	seccompFD = 5
)

// Run executes p.Argv in a bwrap sandbox built by BwrapArgs(p) and waits for
// it. The environment is PrependPath(p.Env), given as bwrap's own
// environment (never in argv); stdin is /dev/null when nil; stdout and
// stderr receive the command's output (nil discards). bwrap starts in a new
// session with no terminal; it dies with the OS thread that forked it
// (Pdeathsig, the thread stays locked), and the sandbox dies with bwrap.
//
// It returns the command's exit status (128+N when killed by signal N) and a
// nil error when the command ran. When the sandbox itself failed — bwrap
// could not set it up (its stderr reason is in the error and is not copied
// to stderr), or the init shim's self-test refused — it returns -1 and an
// *errfmt.Error with code ERR_SANDBOX; when the command is not found inside,
// ERR_COMMAND_NOT_FOUND. Both are told apart from the command's own status
// through bwrap's --json-status-fd and the shim's report (ReportFD), never
// through the number.
//
// When ctx is done, every process in the sandbox's PID namespace gets
// SIGTERM, and after Grace bwrap's process group gets SIGKILL (which tears
// the namespace down); Run then returns the status and an ERR_CANCELED
// error.
//
// With p.Backend "landlock" or "none", RunLandlock runs it instead.
func Run(ctx context.Context, p Policy, stdin io.Reader, stdout, stderr io.Writer) (int, error) {
	if p.Backend == BackendLandlock || p.Backend == BackendNone {
		return RunLandlock(ctx, p, stdin, stdout, stderr)
	}
	where := "starting " + argv0(p) + " in the bwrap sandbox"
	args, err := BwrapArgs(p)
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrSandbox, err, "invalid sandbox policy", where,
			"report this at the git-agent issue tracker with the command you ran")
	}
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return -1, missingError(where)
	}
	statusR, statusW, err := os.Pipe()
	if err != nil {
		return -1, ioError(err, where)
	}
	defer statusR.Close()
	reportR, reportW, err := os.Pipe()
	if err != nil {
		statusW.Close()
		return -1, ioError(err, where)
	}
	defer reportR.Close()
	filterR, err := filterPipe()
	if err != nil {
		statusW.Close()
		reportW.Close()
		return -1, errfmt.Wrap(errfmt.ErrSandbox, err, "cannot prepare the seccomp filter", where,
			"report this at the git-agent issue tracker with `uname -m`")
	}
	defer filterR.Close()

	gate := &gate{out: stderr}
	cmd := &exec.Cmd{
		Path:        bwrap,
		Args:        append([]string{"bwrap", "--json-status-fd", fmt.Sprint(statusFD), "--seccomp", fmt.Sprint(seccompFD)}, args...),
		Env:         PrependPath(p.Env),
		Stdin:       stdin,
		Stdout:      stdout,
		Stderr:      gate,
		ExtraFiles:  []*os.File{statusW, reportW, filterR}, // fds 3, 4 (ReportFD), 5
		SysProcAttr: &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGKILL},
		WaitDelay:   Grace,
	}

	// Pdeathsig fires when the forking OS thread exits: keep it locked to
	// this goroutine until bwrap has been waited for.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	err = cmd.Start()
	statusW.Close()
	reportW.Close()
	if err != nil {
		return -1, errfmt.Wrap(errfmt.ErrSandbox, err, "cannot start bwrap", where,
			"run `git agent doctor`; it shows what does not work here and the exact fix")
	}

	st := &status{}
	var readers sync.WaitGroup
	readers.Add(2)
	go func() { defer readers.Done(); st.readJSON(statusR) }()
	go func() { defer readers.Done(); st.readReport(reportR, gate) }()

	done := make(chan struct{})
	var canceled bool
	var cancelMu sync.Mutex
	go func() {
		select {
		case <-done:
			return
		case <-ctx.Done():
		}
		cancelMu.Lock()
		canceled = true
		cancelMu.Unlock()
		ns := st.namespace()
		if ns != 0 {
			signalNamespace(ns, syscall.SIGTERM)
		} else {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		select {
		case <-done:
		case <-time.After(Grace):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			if ns != 0 {
				signalNamespace(ns, syscall.SIGKILL)
			}
		}
	}()
	werr := cmd.Wait()
	close(done)
	readers.Wait()
	gate.decide(false) // nothing more is coming; keep what was held

	cancelMu.Lock()
	wasCanceled := canceled
	cancelMu.Unlock()
	code := exitStatus(cmd.ProcessState)
	if c, ok := st.exit(); ok {
		code = c
	}
	var ee *exec.ExitError
	if werr != nil && !errors.As(werr, &ee) {
		return code, errfmt.Wrap(errfmt.ErrIO, werr, "lost the sandbox's output", where,
			"check that the terminal or file receiving the output is writable, then retry")
	}
	return classify(st, gate, code, wasCanceled, ctx.Err(), where)
}

// classify turns what Run observed into its result.
func classify(st *status, g *gate, code int, canceled bool, cerr error, where string) (int, error) {
	st.mu.Lock()
	ok, fail, execErr := st.ok, st.fail, st.execErr
	st.mu.Unlock()
	switch {
	case fail != "":
		return -1, errfmt.New(errfmt.ErrSandbox, "sandbox self-test failed: "+fail, where,
			"run `git agent doctor`; do not run agents without the sandbox's capability drop")
	case execErr != "":
		return -1, errfmt.New(errfmt.ErrCommandNotFound, "cannot run inside the sandbox: "+execErr, where,
			"make the command's directory visible inside (config `ro` entry) or put it on PATH")
	case canceled:
		return code, errfmt.Wrap(errfmt.ErrCanceled, cerr, "the sandboxed command was stopped", where,
			"look at the run's output, then start it again if needed")
	case !ok:
		reason := bwrapReason(g.held(), code)
		return -1, errfmt.New(errfmt.ErrSandbox, reason, where, bwrapRemedy(reason))
	}
	return code, nil
}

// status collects bwrap's JSON status documents and the shim's report.
type status struct {
	mu       sync.Mutex
	pidNS    uint64
	exitCode *int
	ok       bool
	fail     string
	execErr  string
}

// readJSON decodes bwrap's --json-status-fd stream: a sequence of JSON
// objects ({"child-pid": N, "pid-namespace": N, …} then {"exit-code": N}).
func (s *status) readJSON(r io.Reader) {
	dec := json.NewDecoder(r)
	for {
		var doc struct {
			PidNS    uint64 `json:"pid-namespace"`
			ExitCode *int   `json:"exit-code"`
		}
		if err := dec.Decode(&doc); err != nil {
			io.Copy(io.Discard, r)
			return
		}
		s.mu.Lock()
		if doc.PidNS != 0 {
			s.pidNS = doc.PidNS
		}
		if doc.ExitCode != nil {
			s.exitCode = doc.ExitCode
		}
		s.mu.Unlock()
	}
}

// readReport reads the init shim's report lines (see ReportFD) and opens the
// stderr gate once the shim says "ok".
func (s *status) readReport(r io.Reader, g *gate) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		kind, msg, _ := strings.Cut(sc.Text(), " ")
		s.mu.Lock()
		switch kind {
		case "ok":
			s.ok = true
		case "fail":
			s.fail = msg
		case "exec":
			s.execErr = msg
		}
		s.mu.Unlock()
		if kind == "ok" {
			g.decide(true)
		}
	}
	io.Copy(io.Discard, r)
}

func (s *status) namespace() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pidNS
}

func (s *status) exit() (int, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exitCode == nil {
		return 0, false
	}
	return *s.exitCode, true
}

// gate holds stderr until the init shim has reported: bwrap's own
// complaints become the error's text instead of raw lines on the terminal.
type gate struct {
	mu      sync.Mutex
	out     io.Writer
	open    bool
	decided bool
	buf     []byte
}

// maxHeld bounds what the gate keeps (the tail) while closed.
const maxHeld = 64 << 10

// Write forwards b when the gate is open, else keeps its tail.
func (g *gate) Write(b []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.open {
		if g.out == nil {
			return len(b), nil
		}
		return g.out.Write(b)
	}
	g.buf = append(g.buf, b...)
	if len(g.buf) > maxHeld {
		g.buf = append([]byte(nil), g.buf[len(g.buf)-maxHeld:]...)
	}
	return len(b), nil
}

// decide opens the gate (flushing what was held) or keeps it closed for
// good; only the first call counts.
func (g *gate) decide(open bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.decided {
		return
	}
	g.decided, g.open = true, open
	if open && g.out != nil && len(g.buf) > 0 {
		g.out.Write(g.buf)
		g.buf = nil
	}
}

func (g *gate) held() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return string(g.buf)
}

// exitStatus returns ps's exit code, 128+N for a signal N.
func exitStatus(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

// signalNamespace sends sig to every process whose PID namespace is ns (the
// inode bwrap reports as "pid-namespace"), found through /proc/N/ns/pid.
func signalNamespace(ns uint64, sig syscall.Signal) {
	want := fmt.Sprintf("pid:[%d]", ns)
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	for _, e := range ents {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid <= 1 {
			continue
		}
		if l, err := os.Readlink("/proc/" + e.Name() + "/ns/pid"); err == nil && l == want {
			syscall.Kill(pid, sig)
		}
	}
}

func argv0(p Policy) string {
	if len(p.Argv) == 0 {
		return "(nothing)"
	}
	return p.Argv[0]
}

func ioError(err error, where string) error {
	return errfmt.Wrap(errfmt.ErrIO, err, "cannot create a pipe for bwrap", where,
		"check the process's open-file limit (ulimit -n), then retry")
}
