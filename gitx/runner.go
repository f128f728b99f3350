// Package gitx is git-agent's only access to git. It discovers the user's
// repository, runs the git CLI through one hardened runner (hooks off,
// fsmonitor off, no optional locks, no prompts, C locale), makes and removes
// the run's worktrees and scratch repositories, imports the agent's pack and
// builds commits, refs and merges without touching any checkout.
//
// The git CLI does every write (DESIGN.md "git CLI or go-git"); reads of
// objects also go through it (cat-file) so that repositories with
// extensions (worktreeConfig, partialClone, objectFormat) work unchanged.
package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// hardening is prepended to every git invocation on the host: nothing the
// repository (or an agent that wrote into it) configured runs on the host.
var hardening = []string{
	"-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false",
	"-c", "core.untrackedCache=false",
	"-c", "core.pager=cat",
	"-c", "gc.auto=0",
	"-c", "maintenance.auto=false",
	"-c", "protocol.file.allow=never",
}

// Runner runs the git CLI for one repository. GitDir, when set, is passed as
// --git-dir; WorkTree as --work-tree; Dir is the working directory (default:
// the process's). Env adds KEY=VALUE entries after the hardened base
// environment. The zero Runner runs plain "git" in the current directory.
type Runner struct {
	GitDir   string
	WorkTree string
	Dir      string
	Env      []string
}

// Cmd describes one git invocation for Runner.Exec: Args after "git" and the
// hardening flags; Stdin (may be nil: /dev/null); Stdout (nil: captured and
// returned by Exec); Env added after the Runner's.
type Cmd struct {
	Args   []string
	Stdin  io.Reader
	Stdout io.Writer
	Env    []string
}

// baseEnv returns the process environment without the GIT_* variables that
// would redirect git elsewhere (GIT_DIR, GIT_INDEX_FILE, GIT_WORK_TREE, …),
// keeping the user's -c parameters, and with optional locks, prompts and
// localisation off.
func baseEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "GIT_") && !keepGitVar(k) {
			continue
		}
		if k == "LC_ALL" || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0", "LC_ALL=C",
		"GIT_NO_REPLACE_OBJECTS=1", "GIT_ASKPASS=true", "GIT_EDITOR=false")
}

func keepGitVar(k string) bool {
	switch k {
	case "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_EXEC_PATH",
		"GIT_CONFIG_NOSYSTEM", "GIT_CONFIG_SYSTEM", "GIT_CONFIG_GLOBAL",
		"GIT_TRACE", "GIT_TRACE2", "GIT_TRACE_PERFORMANCE":
		return true
	}
	return strings.HasPrefix(k, "GIT_CONFIG_KEY_") || strings.HasPrefix(k, "GIT_CONFIG_VALUE_") ||
		strings.HasPrefix(k, "GIT_AUTHOR_") || strings.HasPrefix(k, "GIT_COMMITTER_")
}

// Exec runs git with c's arguments. It returns stdout (when c.Stdout is nil)
// and, on a non-zero exit, an *errfmt.Error with code ERR_GIT whose What
// holds git's last stderr line and whose Err is a *GitError.
func (r Runner) Exec(ctx context.Context, c Cmd) ([]byte, error) {
	args := append([]string{}, hardening...)
	if r.GitDir != "" {
		args = append(args, "--git-dir="+r.GitDir)
	}
	if r.WorkTree != "" {
		args = append(args, "--work-tree="+r.WorkTree)
	}
	args = append(args, c.Args...)
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = r.Dir
	cmd.Env = append(append(baseEnv(), r.Env...), c.Env...)
	cmd.Stdin = c.Stdin
	var out, errb bytes.Buffer
	if c.Stdout != nil {
		cmd.Stdout = c.Stdout
	} else {
		cmd.Stdout = &out
	}
	cmd.Stderr = &errb
	err := cmd.Run()
	if err != nil {
		ge := &GitError{Args: c.Args, Stderr: errb.String(), Err: err}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			ge.ExitCode = ee.ExitCode()
		} else {
			ge.ExitCode = -1
		}
		return out.Bytes(), errfmt.Wrap(errfmt.ErrGit, ge, "git failed",
			"running git "+strings.Join(c.Args, " "),
			"run the same git command by hand to see why, then retry")
	}
	return out.Bytes(), nil
}

// Run runs git with args and returns its stdout with the trailing newline
// removed. Errors as Exec.
func (r Runner) Run(ctx context.Context, args ...string) (string, error) {
	out, err := r.Exec(ctx, Cmd{Args: args})
	return strings.TrimRight(string(out), "\n"), err
}

// Lines runs git with args and returns its stdout split into lines (no
// empty trailing line). Errors as Exec.
func (r Runner) Lines(ctx context.Context, args ...string) ([]string, error) {
	s, err := r.Run(ctx, args...)
	if err != nil || s == "" {
		return nil, err
	}
	return strings.Split(s, "\n"), nil
}

// GitError is the cause inside an ERR_GIT error: the arguments, git's exit
// code (-1 when git did not start) and its whole stderr.
type GitError struct {
	Args     []string
	ExitCode int
	Stderr   string
	Err      error
}

// Error returns git's last non-empty stderr line, or the start error.
func (e *GitError) Error() string {
	lines := strings.Split(strings.TrimSpace(e.Stderr), "\n")
	if last := strings.TrimSpace(lines[len(lines)-1]); last != "" {
		return last
	}
	return fmt.Sprintf("git %s: %v", strings.Join(e.Args, " "), e.Err)
}

// Unwrap returns the exec error.
func (e *GitError) Unwrap() error { return e.Err }

// ExitCodeOf returns git's exit code when err came from Exec, else -1.
func ExitCodeOf(err error) int {
	var ge *GitError
	if errors.As(err, &ge) {
		return ge.ExitCode
	}
	return -1
}
