package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/git-agent/git-agent/verify"
)

// agentView returns what the agent sees: its worktree (rw) with .git bound
// to the scratch repository, HOME, caches, the decision file, the user's
// object directories (ro), and the tool's own installation, PATH
// toolchains and configured mounts (ro unless configured rw).
func (j *job) agentView() (v view, argv, warnings []string, err error) {
	home, _ := os.UserHomeDir()
	argv = promptArgv(j.tool, j.opts.Tool, j.opts.Args, j.opts.Message)
	hostPath, cmdBinds, err := sandbox.ResolveCommand(argv[0], os.Getenv("PATH"), home)
	if err != nil {
		return view{}, nil, nil, err
	}
	argv[0] = hostPath
	// PATH entries that do not exist (an unused ~/go/bin) are skipped
	// silently: nobody asked for them to be mounted.
	pathBinds, _ := sandbox.PathBinds(os.Getenv("PATH"), home)
	mounts, w := mountBinds(j.tool, j.lay.Worktree)
	warnings = append(warnings, w...)
	masks, excludes, w := hideMasks(j.tool, j.lay.Worktree)
	warnings = append(warnings, w...)
	env := agentEnv(j.tool, os.Environ())
	env = setEnv(env, j.stateEnv()...)
	env = setEnv(env, "GIT_AGENT_RUN="+j.rec.ID, "GIT_AGENT_DECISIONS="+j.lay.Decisions,
		"GIT_AGENT_WORKTREE="+j.lay.Worktree)
	if j.opts.Message != "" {
		env = setEnv(env, "GIT_AGENT_PROMPT="+j.opts.Message)
	}
	v = view{
		work: j.lay.Worktree, gitFile: j.lay.GitFile, gitDir: j.lay.Scratch,
		home: j.lay.Home, cache: j.lay.AgentCache, objectDirs: j.repo.ObjectDirs(),
		extra: append(append(pathBinds, cmdBinds...), mounts...),
		files: []string{j.lay.Decisions}, env: env, network: sandboxNetwork(j.tool.Network), backend: j.rec.Backend,
		masks: masks, excludes: excludes,
	}
	v, argv = j.withRepair(v, argv)
	return v, argv, warnings, nil
}

// attempt runs the agent once in its sandbox and returns its exit status.
// err is a sandbox failure (the agent did not run as asked).
func (j *job) attempt(ctx context.Context, n int) (int, error) {
	if n == 1 {
		if err := j.seedState(); err != nil {
			return 0, err
		}
	}
	v, argv, warnings, err := j.agentView()
	if err != nil {
		return 0, err
	}
	for _, w := range warnings {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: "+w)
	}
	v.env = setEnv(v.env, fmt.Sprintf("GIT_AGENT_ATTEMPT=%d", n))
	np, err := startProxy(ctx, j.lay.Runtime, hostList(j.tool.Network))
	if err != nil {
		return 0, err
	}
	if np != nil {
		v.proxy = np.sock
	}
	p := v.policy(j.opts.Self, j.lay.Worktree, argv)
	j.rec.Argv = argv
	j.rec.Attempts = n
	j.rec.ExitCode = -1 // until the agent exits (canceled, interrupted: stays -1)
	j.rec.Policy = policyDigest(p)
	j.rec.SetState(refs.StateRunning, time.Now())
	if err := j.store.Save(ctx, j.rec, nil, fmt.Sprintf("attempt %d running", n)); err != nil {
		return 0, err
	}
	// The decision names the command; the rationale holds the whole argv
	// (a script given with sh -c can be long) and the policy.
	j.hostDecision(fmt.Sprintf("start attempt %d: %s", n, ellipsize(strings.Join(argv, " "), 100)),
		fmt.Sprintf("tool %s, base %s, network %s, policy %s\nargv: %s", j.rec.Tool, j.rec.Base, j.rec.Network, j.rec.Policy, verify.ShellJoin(argv)), n)
	stdout := io.MultiWriter(j.opts.Stdout, j.output)
	stderr := io.MultiWriter(j.opts.Stderr, j.output)
	code, err := j.runSandbox(ctx, p, stdout, stderr)
	if line := np.stop(); line != "" {
		j.hostDecision(fmt.Sprintf("attempt %d %s", n, line), "log: "+filepath.Join(j.lay.Runtime, NetworkLogName), n)
		j.rec.NetworkDenied = mergeCounts(j.rec.NetworkDenied, np.denied())
	}
	if err != nil {
		return 0, err
	}
	j.rec.ExitCode = code
	j.hostDecision(fmt.Sprintf("attempt %d: agent exited %d", n, code), "", n)
	return code, nil
}

// hostDecision queues a decision with source "host"; queued decisions are
// written as a note on the attempt's result when it exists.
func (j *job) hostDecision(decision, rationale string, attempt int) {
	j.pending = append(j.pending, notes.Decision{Time: now(), Run: j.rec.ID, Source: "host",
		Attempt: attempt, Decision: decision, Rationale: rationale})
}
