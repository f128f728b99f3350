package sandbox

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
)

// ReportFD is the file descriptor on which Run gives the init shim a pipe
// for its report (bwrap passes it through; --json-status-fd is fd 3 and
// bwrap keeps that one to itself). The shim marks it close-on-exec, so the
// agent never holds it and cannot forge a report.
//
// The report is a sequence of lines:
//
//	fail <reason>   the self-test failed; the command was not started
//	exec <reason>   the command could not be found or executed
//	ok              the self-test passed; the command is being exec'd
const ReportFD = 4

// Exit statuses of the init shim when it does not exec the command. Run
// tells them from the command's own statuses through the report on
// ReportFD, not through the number.
const (
	InitExitRefused  = 125 // the self-test failed (a capability is held)
	InitExitNoExec   = 126 // the command was found but could not be executed
	InitExitNotFound = 127 // the command is not on PATH inside the sandbox
)

// Init is the in-sandbox init shim, run by bwrap as
// "git-agent __sandbox-init [--net-bridge] -- argv...": args is what
// follows InitCommand (os.Args[2:]), with or without the leading "--".
// With --net-bridge (Policy.Proxy set), after the self-test it starts the
// network bridge (startBridge) before the command; failing that, it
// reports "fail" and returns InitExitRefused.
//
// It reads /proc/self/status and refuses to start anything unless CapEff,
// CapPrm and CapBnd are all zero (DESIGN.md invariant 1): it prints the
// reason to stderr, writes "fail <reason>" on ReportFD and returns
// InitExitRefused. Otherwise it takes a terminal on stdin as its
// controlling terminal (takeTerminal), with "--scope-ipc" scopes abstract
// unix sockets and signals with Landlock (scopeIPC), looks argv[0] up on PATH, writes "ok" on
// ReportFD and replaces itself with the command (syscall.Exec, the current
// environment). It only returns when that fails, with InitExitNotFound or
// InitExitNoExec after writing "exec <reason>".
func Init(args []string) int {
	bridge := len(args) > 0 && args[0] == bridgeFlag
	if bridge {
		args = args[1:]
	}
	scope := len(args) > 0 && args[0] == scopeFlag
	if scope {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	report := reportFile()
	say := sayer(report)
	if len(args) == 0 {
		msg := "no command given to " + InitCommand
		fmt.Fprintln(os.Stderr, "git-agent: "+msg)
		say("exec", msg)
		return InitExitNotFound
	}
	if err := selfTest("/proc/self/status"); err != nil {
		fmt.Fprintln(os.Stderr, "git-agent: sandbox self-test failed: "+err.Error())
		say("fail", err.Error())
		return InitExitRefused
	}
	takeTerminal()
	if report != nil {
		syscall.CloseOnExec(ReportFD) // neither the bridge nor the command holds it
	}
	if bridge {
		self, err := os.Executable()
		if err == nil {
			err = startBridge(self)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "git-agent: "+err.Error())
			say("fail", err.Error())
			return InitExitRefused
		}
	}
	if scope {
		if err := scopeIPC(); err != nil {
			fmt.Fprintln(os.Stderr, "git-agent: "+err.Error())
			say("fail", err.Error())
			return InitExitRefused
		}
	}
	return execCommand(args, report, say)
}

// execCommand is the last step of both init shims: it looks args[0] up on
// PATH, reports "ok", closes ReportFD (when report is it) on exec, and replaces the process with
// the command (the current environment). It returns only when that fails:
// InitExitNotFound or InitExitNoExec, after printing the reason and
// reporting "exec <reason>".
func execCommand(args []string, report *os.File, say func(kind, msg string)) int {
	path, err := exec.LookPath(args[0])
	if err != nil {
		msg := fmt.Sprintf("%s: not found on PATH inside the sandbox (PATH=%s)", args[0], os.Getenv("PATH"))
		fmt.Fprintln(os.Stderr, "git-agent: "+msg)
		say("exec", msg)
		return InitExitNotFound
	}
	say("ok", "")
	if report != nil {
		syscall.CloseOnExec(ReportFD)
	}
	err = syscall.Exec(path, args, os.Environ())
	msg := fmt.Sprintf("%s: %v", path, err)
	fmt.Fprintln(os.Stderr, "git-agent: cannot run "+msg)
	say("exec", msg)
	return InitExitNoExec
}

// sayer returns the function the shims report with: one line
// "<kind> <msg>" on report (newlines in msg become spaces), nothing when
// report is nil.
func sayer(report *os.File) func(kind, msg string) {
	return func(kind, msg string) {
		if report != nil {
			fmt.Fprintf(report, "%s %s\n", kind, strings.ReplaceAll(msg, "\n", " "))
		}
	}
}

// reportFile returns ReportFD as a file when it is an open pipe, else nil
// (the shim was started by hand).
func reportFile() *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(ReportFD, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFIFO {
		return nil
	}
	return os.NewFile(ReportFD, "git-agent-report")
}

// selfTest returns an error unless the capability sets CapEff, CapPrm and
// CapBnd in the status file (the format of proc(5): "Name:\tHEX") are
// present and all zero.
func selfTest(status string) error {
	f, err := os.Open(status)
	if err != nil {
		return fmt.Errorf("cannot read capabilities: %v", err)
	}
	defer f.Close()
	want := map[string]bool{"CapEff": false, "CapPrm": false, "CapBnd": false}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if _, asked := want[k]; !ok || !asked {
			continue
		}
		v = strings.TrimSpace(v)
		n, err := strconv.ParseUint(v, 16, 64)
		if err != nil {
			return fmt.Errorf("%s: unreadable value %q", k, v)
		}
		if n != 0 {
			return fmt.Errorf("%s is %s, want 0000000000000000: the sandbox holds capabilities", k, v)
		}
		want[k] = true
	}
	for k, seen := range want {
		if !seen {
			return fmt.Errorf("%s missing from %s", k, status)
		}
	}
	return nil
}
