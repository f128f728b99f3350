package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

// TestMain lets the test binary act as the init shim: bwrap runs it as
// SelfPath __sandbox-init -- argv...
func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == InitCommand {
		os.Exit(Init(os.Args[2:]))
	}
	os.Exit(m.Run())
}

// needBwrap skips the test when bwrap is absent, except under CI=true.
func needBwrap(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("bwrap is required when CI=true: %v", err)
		}
		t.Skip("bwrap (bubblewrap) is not installed: skipping sandbox integration tests")
	}
	if err := Probe(context.Background()); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("Probe: %s", errfmt.As(err).Format())
		}
		t.Skipf("bwrap cannot create a sandbox here: %s", errfmt.As(err).Format())
	}
}

// testPolicy returns a policy running argv with the test binary as shim.
func testPolicy(t *testing.T, argv ...string) Policy {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	env := ScrubEnv(os.Environ(), nil)
	return Policy{
		System:  SystemBinds(),
		Env:     append(env, "HOME=/root"),
		Dir:     "/tmp",
		Network: "off",
		Argv:    argv,
		Self:    self,
	}
}

func runSh(t *testing.T, p Policy) (int, string, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out, errb bytes.Buffer
	code, err := Run(ctx, p, nil, &out, &errb)
	return code, out.String(), errb.String(), err
}

func TestRunIntegration(t *testing.T) {
	needBwrap(t)
	t.Setenv("GITAGENT_TEST_SECRET_TOKEN", "hunter2-sandbox-leak")

	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	marker := fmt.Sprintf("git-agent-sandbox-test-%d", os.Getpid())
	t.Cleanup(func() { os.Remove(filepath.Join("/tmp", marker)) })

	tests := []struct {
		name     string
		script   string
		network  string
		wantCode int
		check    func(t *testing.T, out string)
	}{
		{"no capabilities", "grep -E '^Cap(Eff|Prm|Bnd)' /proc/self/status", "off", 0, func(t *testing.T, out string) {
			if strings.Count(out, "0000000000000000") != 3 {
				t.Errorf("capabilities held:\n%s", out)
			}
		}},
		{"remount and usr write fail", "mount -o remount,rw / 2>/dev/null && echo REMOUNTED; touch /usr/pwned 2>/dev/null && echo WROTE; umount /etc/shadow 2>/dev/null && echo UNMASKED; cat /etc/shadow 2>/dev/null | head -c1 | grep -q . && echo SHADOW; touch /tmp/ok && echo CONTROL", "off", 0, func(t *testing.T, out string) {
			if strings.TrimSpace(out) != "CONTROL" {
				t.Errorf("attack succeeded: %q", out)
			}
		}},
		{"pid 1 environ has no secret", "cat /proc/1/environ | tr '\\0' '\\n'; env", "off", 0, func(t *testing.T, out string) {
			if strings.Contains(out, "hunter2") || strings.Contains(out, "SECRET_TOKEN") {
				t.Errorf("secret visible inside:\n%s", out)
			}
			if !strings.Contains(out, "PATH="+InitDir+":") {
				t.Errorf("PATH does not start with %s:\n%s", InitDir, out)
			}
		}},
		{"network off blocks host loopback", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED; exit 0", port), "off", 0, func(t *testing.T, out string) {
			if strings.Contains(out, "CONNECTED") {
				t.Errorf("connected to the host's loopback with network off")
			}
		}},
		{"network on reaches host loopback", fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo CONNECTED; exit 0", port), "on", 0, func(t *testing.T, out string) {
			if !strings.Contains(out, "CONNECTED") {
				t.Errorf("cannot reach the host's loopback with network on: %q", out)
			}
		}},
		{"exit status passes through", "exit 7", "off", 7, nil},
		{"exit 125 is the agent's", "exit 125", "off", 125, nil},
		{"signal status", "kill -TERM $$", "off", 128 + 15, nil},
		{"tmp and home are private", "echo x > /tmp/" + marker + " && ls -A /root /home | tr -d '\\n'; ls -A /run | grep -v '^git-agent$'; exit 0", "off", 0, func(t *testing.T, out string) {
			if strings.Contains(out, ".") || strings.TrimSpace(strings.ReplaceAll(strings.ReplaceAll(out, "/root:", ""), "/home:", "")) != "" {
				t.Errorf("hidden dirs not empty inside: %q", out)
			}
			if _, err := os.Stat(filepath.Join("/tmp", marker)); err == nil {
				t.Errorf("write to /tmp inside reached the host")
			}
		}},
		{"git-agent is on PATH", "command -v git-agent", "off", 0, func(t *testing.T, out string) {
			if strings.TrimSpace(out) != SelfPath {
				t.Errorf("git-agent resolves to %q", out)
			}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := testPolicy(t, "bash", "-c", tc.script)
			p.Network = tc.network
			code, out, errs, err := runSh(t, p)
			if err != nil {
				t.Fatalf("Run: %v\n%s\nstderr: %s", err, errfmt.As(err).Format(), errs)
			}
			if code != tc.wantCode {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", code, tc.wantCode, out, errs)
			}
			t.Logf("stdout %q stderr %q", out, errs)
			if tc.check != nil {
				tc.check(t, out)
			}
		})
	}
}

func TestRunSandboxFailure(t *testing.T) {
	needBwrap(t)
	p := testPolicy(t, "true")
	p.Binds = []Bind{{Src: "/nonexistent/git-agent-test", Dst: "/mnt/x", Mode: RO}}
	code, _, errs, err := runSh(t, p)
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrSandbox {
		t.Fatalf("got code %d err %v, want ERR_SANDBOX", code, err)
	}
	if !strings.Contains(e.What, "/nonexistent/git-agent-test") {
		t.Errorf("error does not carry bwrap's reason: %s", e.Format())
	}
	if errs != "" {
		t.Errorf("bwrap's complaint leaked to stderr: %q", errs)
	}
	if _, perr := errfmt.Parse(e.Format()); perr != nil {
		t.Errorf("not a 4-line error: %v", perr)
	}
}

func TestRunCommandNotFound(t *testing.T) {
	needBwrap(t)
	_, _, _, err := runSh(t, testPolicy(t, "no-such-command-git-agent"))
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrCommandNotFound {
		t.Fatalf("got %v, want ERR_COMMAND_NOT_FOUND", err)
	}
}

func TestRunCancel(t *testing.T) {
	needBwrap(t)
	ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
	defer cancel()
	// The marker is unique to this test process: a concurrent run of the
	// same test elsewhere on the machine is not this run's leftover.
	marker := fmt.Sprintf("61.%07d", os.Getpid()) // fixed width: no marker is a prefix of another
	p := testPolicy(t, "sh", "-c", "sleep "+marker+" & sleep "+marker+"; wait")
	code, err := Run(ctx, p, nil, nil, nil)
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrCanceled {
		t.Fatalf("got code %d err %v, want ERR_CANCELED", code, err)
	}
	// Counted from the cancel, not the start (bwrap's setup under load is
	// not the subject): Grace or more means SIGKILL had to escalate.
	canceledAt, _ := ctx.Deadline()
	if d := time.Since(canceledAt); d >= Grace {
		t.Errorf("cancel took %v after the cancel (SIGTERM should have been enough)", d)
	}
	for _, p := range survivors(marker) {
		t.Errorf("process outlived the run: %s", p)
	}
}

func TestInitRefusesCapabilities(t *testing.T) {
	status := filepath.Join(t.TempDir(), "status")
	os.WriteFile(status, []byte("Name:\tx\nCapPrm:\t0000000000000000\nCapEff:\t000001ffffffffff\nCapBnd:\t0000000000000000\n"), 0o644)
	if err := selfTest(status); err == nil || !strings.Contains(err.Error(), "CapEff") {
		t.Errorf("selfTest accepted capabilities: %v", err)
	}
	os.WriteFile(status, []byte("CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\n"), 0o644)
	if err := selfTest(status); err == nil {
		t.Errorf("selfTest accepted a status without CapBnd")
	}
	os.WriteFile(status, []byte("CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nCapBnd:\t0000000000000000\n"), 0o644)
	if err := selfTest(status); err != nil {
		t.Errorf("selfTest: %v", err)
	}
}

func TestRunCancelIgnoringTERM(t *testing.T) {
	needBwrap(t)
	if testing.Short() {
		t.Skip("waits for the grace period")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	marker := fmt.Sprintf("62.%07d", os.Getpid()) // unique, as in TestRunCancel
	p := testPolicy(t, "sh", "-c", "trap '' TERM; sleep "+marker+" & while :; do sleep 0.1; done")
	_, err := Run(ctx, p, nil, nil, nil)
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrCanceled {
		t.Fatalf("got %v, want ERR_CANCELED", err)
	}
	// Counted from the cancel: the SIGKILL comes at Grace (without it the
	// loop would run until the test's own timeout).
	canceledAt, _ := ctx.Deadline()
	if d := time.Since(canceledAt); d > Grace+10*time.Second {
		t.Errorf("SIGKILL came after %v", d)
	}
	for _, p := range survivors(marker) {
		t.Errorf("process outlived the run: %s", p)
	}
}

func TestRunStdin(t *testing.T) {
	needBwrap(t)
	var out bytes.Buffer
	code, err := Run(context.Background(), testPolicy(t, "cat"), strings.NewReader("hello\n"), &out, nil)
	if err != nil || code != 0 || out.String() != "hello\n" {
		t.Errorf("cat: code %d err %v out %q", code, err, out.String())
	}
	code, err = Run(context.Background(), testPolicy(t, "cat"), nil, &out, nil)
	if err != nil || code != 0 {
		t.Errorf("cat </dev/null: code %d err %v", code, err)
	}
}

// survivors returns the processes whose command line contains marker once
// none is left, or those still there after a bound of 30s. Run returns when
// bwrap has been waited for; the namespace's other processes, already sent
// SIGKILL, may take a moment to be reaped on a loaded machine, while one
// that outlived the run stays.
func survivors(marker string) []string {
	deadline := time.Now().Add(30 * time.Second)
	for {
		var found []string
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			b, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
			if strings.Contains(string(b), marker) {
				found = append(found, fmt.Sprintf("%s %q", e.Name(), b))
			}
		}
		if len(found) == 0 || time.Now().After(deadline) {
			return found
		}
		time.Sleep(50 * time.Millisecond)
	}
}
