package t

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// These tests drive git-agent on a real pty (DESIGN.md invariant 9): the
// test is the user's terminal. guard bounds every wait so that a broken
// build fails instead of hanging; it is not a speed assertion.
const guard = 60 * time.Second

// term is git-agent running on a pty the test holds as the user's terminal.
type term struct {
	t    *testing.T
	cmd  *exec.Cmd
	ptmx *os.File
	mu   sync.Mutex
	out  bytes.Buffer
	seen int // how much of out expect has consumed
	done chan struct{}
}

// ptyEnv returns a private environment for git-agent: HOME, XDG dirs and a
// git identity under dir.
func ptyEnv(t *testing.T, dir string) []string {
	t.Helper()
	home := filepath.Join(dir, "home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = T\n\temail = t@example.com\n[init]\n\tdefaultBranch = main\n"), 0o644)
	return []string{"HOME=" + home, "PATH=" + binDir + ":" + os.Getenv("PATH"), "TERM=xterm", "LANG=C.UTF-8",
		"XDG_DATA_HOME=" + filepath.Join(home, ".local/share"), "XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "GIT_CONFIG_NOSYSTEM=1"}
}

// startTerm runs git-agent args in dir on a new 24x80 pty.
func startTerm(t *testing.T, dir string, env []string, args ...string) *term {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-agent"), args...)
	cmd.Dir, cmd.Env = dir, env
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 24, Cols: 80})
	if err != nil {
		t.Fatal(err)
	}
	tm := &term{t: t, cmd: cmd, ptmx: ptmx, done: make(chan struct{})}
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := ptmx.Read(buf)
			tm.mu.Lock()
			tm.out.Write(buf[:n])
			tm.mu.Unlock()
			if err != nil {
				close(tm.done)
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		ptmx.Close()
	})
	return tm
}

// expect waits until the output after what earlier expects consumed
// matches re, and returns the match.
func (tm *term) expect(re string) []string {
	tm.t.Helper()
	rx := regexp.MustCompile(re)
	deadline := time.Now().Add(guard)
	for time.Now().Before(deadline) {
		tm.mu.Lock()
		rest := tm.out.String()[tm.seen:]
		if loc := rx.FindStringSubmatchIndex(rest); loc != nil {
			m := rx.FindStringSubmatch(rest)
			tm.seen += loc[1]
			tm.mu.Unlock()
			return m
		}
		tm.mu.Unlock()
		select {
		case <-tm.done:
			tm.mu.Lock()
			rest = tm.out.String()[tm.seen:]
			tm.mu.Unlock()
			if rx.MatchString(rest) {
				continue
			}
			tm.t.Fatalf("git-agent ended before %q; output:\n%s", re, tm.all())
		case <-time.After(20 * time.Millisecond):
		}
	}
	tm.t.Fatalf("no %q within %s; output:\n%s", re, guard, tm.all())
	return nil
}

func (tm *term) all() string {
	tm.mu.Lock()
	defer tm.mu.Unlock()
	return tm.out.String()
}

func (tm *term) send(s string) {
	tm.t.Helper()
	if _, err := tm.ptmx.Write([]byte(s)); err != nil {
		tm.t.Fatal(err)
	}
}

// wait returns git-agent's exit status.
func (tm *term) wait() int {
	tm.t.Helper()
	errc := make(chan error, 1)
	go func() { errc <- tm.cmd.Wait() }()
	select {
	case <-errc:
	case <-time.After(guard):
		tm.t.Fatalf("git-agent did not exit; output:\n%s", tm.all())
	}
	return tm.cmd.ProcessState.ExitCode()
}

// repoDir returns a new repository with one commit, and its environment.
func repoDir(t *testing.T) (string, []string) {
	t.Helper()
	dir := t.TempDir()
	env := ptyEnv(t, dir)
	repo := filepath.Join(dir, "repo")
	for _, args := range [][]string{{"init", "-q", repo}, {"-C", repo, "commit", "-q", "--allow-empty", "-m", "base"}} {
		cmd := exec.Command("git", args...)
		cmd.Env = env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	return repo, env
}

// gitAgent runs git-agent without a terminal and returns its stdout.
func gitAgent(t *testing.T, dir string, env []string, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(filepath.Join(binDir, "git-agent"), args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	cmd.Run()
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}

// state returns run id's state as git agent show --json reports it.
func state(t *testing.T, dir string, env []string, id string) string {
	t.Helper()
	out, errs, _ := gitAgent(t, dir, env, "show", id, "--json")
	var show struct {
		Record struct {
			State string `json:"state"`
		} `json:"record"`
	}
	if err := json.Unmarshal([]byte(out), &show); err != nil {
		t.Fatalf("show %s: %v\n%s%s", id, err, out, errs)
	}
	return show.Record.State
}

// sleepArg returns an argument for sleep that is unique to this test
// process (n.<pid>), so that alive does not see another suite's sleep when
// several run on one machine.
func sleepArg(n int) string { return fmt.Sprintf("%d.%d", n, os.Getpid()) }

// alive reports whether a process whose command line is exactly argv runs.
func alive(argv ...string) bool {
	want := strings.Join(argv, "\x00") + "\x00"
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		if _, err := strconv.Atoi(e.Name()); err != nil {
			continue
		}
		if b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline"); err == nil && string(b) == want {
			return true
		}
	}
	return false
}

// gone reports whether no process whose command line is exactly argv runs,
// waiting up to guard for one that was sent SIGKILL to be reaped (git-agent
// returns when bwrap is gone; the namespace's last processes may lag on a
// loaded machine).
func gone(argv ...string) bool {
	deadline := time.Now().Add(guard)
	for alive(argv...) {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(50 * time.Millisecond)
	}
	return true
}

func needSandbox(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		t.Skip("bwrap is not installed")
	}
}

func TestTerminalREPL(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, ptyEnv(t, dir), "exec", "--", "python3", "-q")
	tm.expect(">>> ")
	tm.send("import os; print(os.isatty(0), os.isatty(1), os.isatty(2), 6*7)\r")
	tm.expect(`True True True 42`)
	tm.send("exit()\r")
	if code := tm.wait(); code != 0 {
		t.Errorf("exit status %d, want 0", code)
	}
}

func TestTerminalResize(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, ptyEnv(t, dir), "exec", "--", "sh", "-c",
		`stty size; trap 'stty size' WINCH; echo ready; while :; do sleep 0.1; done`)
	tm.expect(`24 80\r?\n`)
	tm.expect("ready")
	if err := pty.Setsize(tm.ptmx, &pty.Winsize{Rows: 40, Cols: 120}); err != nil {
		t.Fatal(err)
	}
	tm.expect(`40 120`)
	tm.send("\x03")
	tm.wait()
}

func TestTerminalCtrlC(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, ptyEnv(t, dir), "exec", "--", "sh", "-c", "echo ready; sleep "+sleepArg(1001)+"; echo after")
	tm.expect("ready")
	tm.send("\x03")
	if code := tm.wait(); code != 130 {
		t.Errorf("exit status %d, want 130 (SIGINT)\n%s", code, tm.all())
	}
	if strings.Contains(tm.all(), "after") {
		t.Error("the shell went on after Ctrl-C")
	}
	if !gone("sleep", sleepArg(1001)) {
		t.Error("sleep 1001 outlived the sandbox")
	}
}

func TestTerminalDoubleCtrlCCancelsRun(t *testing.T) {
	needSandbox(t)
	repo, env := repoDir(t)
	tm := startTerm(t, repo, env, "run", "--no-verify", "sh", "-c",
		`trap "" INT; echo work > work.txt; echo ready; sleep `+sleepArg(1002))
	id := tm.expect(`(?m)^([0-9a-z]+)\r?$`)[1]
	tm.expect("ready")
	tm.send("\x03\x03")
	if code := tm.wait(); code != 130 {
		t.Errorf("exit status %d, want 130\n%s", code, tm.all())
	}
	if s := state(t, repo, env, id); s != "canceled" {
		t.Errorf("state %q, want canceled", s)
	}
	if !gone("sleep", sleepArg(1002)) {
		t.Error("sleep 1002 outlived the run")
	}
	out, _, _ := gitAgent(t, repo, env, "logs", id)
	if !strings.Contains(out, "ready") {
		t.Errorf("output.log lacks the terminal output: %q", out)
	}
	show := exec.Command("git", "-C", repo, "show", "agent/"+id+":work.txt")
	show.Env = env
	if b, err := show.Output(); err != nil || string(b) != "work\n" {
		t.Errorf("the work was not snapshotted: %q %v", b, err)
	}
}

func TestTerminalCancelCommand(t *testing.T) {
	needSandbox(t)
	repo, env := repoDir(t)
	tm := startTerm(t, repo, env, "run", "--no-verify", "sh", "-c", "echo work > work.txt; echo ready; sleep "+sleepArg(1003))
	id := tm.expect(`(?m)^([0-9a-z]+)\r?$`)[1]
	tm.expect("ready")
	_, errs, code := gitAgent(t, repo, env, "cancel", id)
	if code != 0 || !strings.Contains(errs, "run "+id+" canceled") {
		t.Errorf("cancel: exit %d\n%s", code, errs)
	}
	if code := tm.wait(); code != 130 {
		t.Errorf("run's exit status %d, want 130\n%s", code, tm.all())
	}
	if s := state(t, repo, env, id); s != "canceled" {
		t.Errorf("state %q, want canceled", s)
	}
	// The agent never exited: the record says -1 (refs.Record.ExitCode), not 0.
	if out, _, _ := gitAgent(t, repo, env, "show", id); !strings.Contains(out, "agent exit -1,") {
		t.Errorf("show of a canceled run:\n%s", out)
	}
	if !gone("sleep", sleepArg(1003)) {
		t.Error("sleep 1003 outlived the run")
	}
	_, errs, code = gitAgent(t, repo, env, "cancel", id)
	if code != 128 || !strings.Contains(errs, "code: ERR_RUN_NOT_LIVE") || strings.Count(errs, "\n") != 4 {
		t.Errorf("cancel of a finished run: exit %d\n%s", code, errs)
	}
}

func TestTerminalInjectionRefused(t *testing.T) {
	needSandbox(t)
	dir := t.TempDir()
	tm := startTerm(t, dir, ptyEnv(t, dir), "exec", "--", "python3", "-c", `
import fcntl, termios
for name in ("TIOCSTI", "TIOCLINUX"):
    try:
        fcntl.ioctl(0, getattr(termios, name, 0x541C), b"x")
        print(name, "ALLOWED")
    except OSError as e:
        print(name, "errno", e.errno)
`)
	tm.expect(`TIOCSTI errno 1\b`)
	tm.expect(`TIOCLINUX errno 1\b`)
	if code := tm.wait(); code != 0 {
		t.Errorf("exit status %d", code)
	}
}

func TestTerminalHostSignalRefused(t *testing.T) {
	needSandbox(t)
	host := exec.Command("sleep", sleepArg(1004))
	if err := host.Start(); err != nil {
		t.Fatal(err)
	}
	defer host.Process.Kill()
	dir := t.TempDir()
	pid := host.Process.Pid
	tm := startTerm(t, dir, ptyEnv(t, dir), "exec", "--", "sh", "-c",
		fmt.Sprintf("kill -9 %d 2>/dev/null && echo KILLED || echo refused; kill -9 -1; echo still", pid))
	tm.expect("refused")
	tm.wait()
	if err := host.Process.Signal(syscall.Signal(0)); err != nil {
		t.Fatalf("host process %d died: %v", pid, err)
	}
	if !alive("sleep", sleepArg(1004)) {
		t.Error("the host's sleep 1004 is gone")
	}
}
