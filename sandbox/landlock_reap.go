package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// innerFlag makes LandlockInit the confining shim (see runInner).
const innerFlag = "--inner"

// runInner is the Landlock init shim's outer half (DESIGN.md invariant 9
// as far as Landlock goes: nothing outlives the run). Landlock gives no
// PID namespace, so a command exec'd in place could leave a daemon behind
// (setsid and a double fork leave the process group that cancel kills)
// that keeps writing in the worktree after the host has restored its .git
// file — and a rewritten .git makes the user's own git in the worktree
// obey the scratch repository's config (core.fsmonitor, a pager): code on
// the host. So this unconfined shim makes itself a child subreaper
// (PR_SET_CHILD_SUBREAPER: orphans below it are re-parented to it, whatever
// session or group they moved to), runs "git-agent __landlock-init --inner
// -- args" as its child (fds 0-2, plan on PlanFD, its ReportFD passed on;
// same session and process group; SIGKILL when the shim dies), which
// confines itself and execs args, and once that child has exited SIGKILLs
// and reaps every process left below it. Staying outside the Landlock
// domain, it cannot be signalled or traced by the agent (scoped from ABI
// 6). SIGTERM, SIGINT, SIGHUP and SIGQUIT are forwarded to the child when
// it left the shim's process group (else the group got them already); on
// SIGTERM the child gets Grace/2 before it is killed, so the sweep ends
// before the host's SIGKILL. It returns the child's exit status (128+N for
// signal N).
func runInner(plan LandlockPlan, args []string) (int, error) {
	self, err := os.Executable()
	if err != nil {
		return 0, err
	}
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return 0, fmt.Errorf("cannot become a child subreaper: %v", err)
	}
	planR, planW, err := os.Pipe()
	if err != nil {
		return 0, err
	}
	defer planR.Close()
	go func() {
		_ = json.NewEncoder(planW).Encode(plan)
		planW.Close()
	}()
	report := ^uintptr(0) // closed in the child
	var st syscall.Stat_t
	if syscall.Fstat(ReportFD, &st) == nil {
		report = ReportFD
	}
	sigs := make(chan os.Signal, 8)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT)
	defer signal.Stop(sigs)
	argv := append([]string{self, LandlockInitCommand, innerFlag, "--"}, args...)
	pid, err := syscall.ForkExec(self, argv, &syscall.ProcAttr{Env: os.Environ(),
		Files: []uintptr{0, 1, 2, planR.Fd(), report},
		Sys:   &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}})
	if err != nil {
		return 0, fmt.Errorf("cannot start the confined shim: %v", err)
	}
	if report == ReportFD {
		syscall.Close(ReportFD) // the host reads the child's report to its end
	}
	go forward(pid, sigs)
	code := 128
	for {
		var ws syscall.WaitStatus
		wpid, err := syscall.Wait4(-1, &ws, 0, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			break
		}
		if wpid != pid {
			continue // an orphan re-parented here
		}
		code = ws.ExitStatus()
		if ws.Signaled() {
			code = 128 + int(ws.Signal())
		}
		break
	}
	sweep()
	return code, nil
}

// forward relays the signals of sigs to pid when pid is no longer in the
// shim's process group; on SIGTERM it SIGKILLs pid after Grace/2.
func forward(pid int, sigs <-chan os.Signal) {
	for s := range sigs {
		sig := s.(syscall.Signal)
		if pg, err := syscall.Getpgid(pid); err == nil && pg != syscall.Getpgrp() {
			_ = syscall.Kill(pid, sig)
		}
		if sig == syscall.SIGTERM {
			time.AfterFunc(Grace/2, func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		}
	}
}

// sweep SIGKILLs and reaps every process below the calling process (a
// child subreaper) until none is left: each round kills the children it
// finds and reaps at least one, and the children of a killed process are
// re-parented here for the next round.
func sweep() {
	self := os.Getpid()
	for {
		kids := childrenOf(self)
		for _, k := range kids {
			_ = syscall.Kill(k, syscall.SIGKILL)
		}
		flags := 0
		if len(kids) == 0 {
			flags = syscall.WNOHANG
		}
		wpid, err := syscall.Wait4(-1, nil, flags, nil)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return // ECHILD: nothing is left
		}
		_ = wpid
	}
}

// childrenOf lists the processes whose parent is pid, from /proc/<n>/stat
// (the fourth field, after the command name in parentheses).
func childrenOf(pid int) []int {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) > 1 && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}
