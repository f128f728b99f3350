package run

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/git-agent/git-agent/agents"
	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/jsonl"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/git-agent/git-agent/verify"
)

// maxAttempts is --max-attempts, else [verify] max_attempts, else the
// default (3), never more than config.MaxAttemptsLimit.
func (j *job) maxAttempts() int {
	n := j.opts.MaxAttempts
	if n <= 0 {
		n = j.cfg.Verify.MaxAttempts
	}
	if n <= 0 {
		n = config.DefaultMaxAttempts
	}
	return min(n, config.MaxAttemptsLimit)
}

// loop runs the agent, snapshots and verifies its work, and after a failed
// verification invokes it again with a repair prompt, at most maxAttempts
// times in all (DESIGN.md "Run lifecycle"). It stops early, halted, when an
// attempt's tree repeats an earlier attempt's (verify.Repeats). It returns
// the final record; err is as for Run.
func (j *job) loop(ctx context.Context) (*refs.Record, error) {
	max := j.maxAttempts()
	// The work is imported even when the agent failed or was canceled: it
	// must never be lost. A fresh context lets that finish after Ctrl-C.
	finishCtx := context.WithoutCancel(ctx)
	var trees []string
	var outcomes [][]verify.CheckResult
	for n := 1; ; n++ {
		exit, agentErr := j.attempt(ctx, n)
		if agentErr != nil && errfmt.As(agentErr).Code != errfmt.ErrCanceled {
			j.fail(finishCtx, refs.StateFailed, agentErr.Error())
			return j.rec, agentErr
		}
		result, err := j.snapshot(finishCtx, n, exit)
		if err != nil {
			j.fail(finishCtx, refs.StateFailed, err.Error())
			return j.rec, err
		}
		if ctx.Err() != nil {
			j.finish(finishCtx, refs.StateCanceled, "canceled while the agent ran")
			return j.rec, errfmt.New(errfmt.ErrCanceled, "run "+j.rec.ID+" was canceled",
				"running the agent", "its work so far is on "+j.rec.Branch+"; git agent show "+j.rec.ID)
		}
		tree, _ := j.repo.Git().Run(finishCtx, "rev-parse", "--verify", result+"^{tree}")
		if at, ok := verify.Repeats(tree, trees); ok {
			reason := fmt.Sprintf("no progress: attempt %d produced the same tree as attempt %d", n, at)
			if at == n-1 {
				reason += " (it changed nothing)"
			} else {
				reason += " (it went back to work already rejected)"
			}
			j.halt(finishCtx, n, result, reason, outcomes[at-1])
			return j.rec, nil
		}
		trees = append(trees, tree)
		j.lastResults = nil
		verdict, reason := j.verify(finishCtx, n, result, exit)
		outcomes = append(outcomes, j.lastResults)
		if verdict == refs.StatePassed || j.lastResults == nil || ctx.Err() != nil {
			j.finish(finishCtx, verdict, reason)
			return j.rec, nil
		}
		if n >= max {
			j.finish(finishCtx, verdict, fmt.Sprintf("%s after %d of %d attempts", reason, n, max))
			return j.rec, nil
		}
		if err := j.prepareRepair(finishCtx, n, max, result, exit); err != nil {
			j.fail(finishCtx, refs.StateFailed, err.Error())
			return j.rec, err
		}
	}
}

// halt records attempt n as a repeat: an outcome on its result with the
// checks of the attempt it repeats (same tree, same checks) and Halted set,
// a host decision, and the state halted.
func (j *job) halt(ctx context.Context, n int, result, reason string, checks []verify.CheckResult) {
	if checks == nil {
		checks = []verify.CheckResult{}
	}
	o := verify.Outcome{Time: now(), Run: j.rec.ID, Attempt: n, Commit: result, Base: j.rec.Base,
		Config: j.cfg.ChecksDigest(), Passed: false, Halted: reason, Checks: checks}
	if err := notes.AppendJSON(ctx, j.repo.Git(), notes.OutcomeRef, result, o); err != nil {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: cannot write the outcome: "+err.Error())
	}
	j.hostDecision(fmt.Sprintf("halt after attempt %d", n), reason, n)
	j.flushDecisions(ctx, result)
	j.finish(ctx, refs.StateHalted, reason)
}

// prepareRepair writes the repair prompt for attempt n+1 into the runtime
// dir (bound read-only as $GIT_AGENT_FEEDBACK), notes it as a host
// decision on result n, moves the scratch repository's HEAD to result so
// the next snapshot's parent is this attempt's result, and enters state
// repairing.
func (j *job) prepareRepair(ctx context.Context, n, max int, result string, exit int) error {
	prompt := verify.RepairPrompt(n+1, max, j.lastResults, exit)
	j.feedback = filepath.Join(j.lay.Runtime, fmt.Sprintf("feedback-%d.txt", n+1))
	_ = os.Remove(j.feedback)
	if err := os.WriteFile(j.feedback, []byte(prompt), 0o444); err != nil {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot write the repair prompt", "preparing attempt "+fmt.Sprint(n+1)+" of run "+j.rec.ID,
			"check that "+j.lay.Runtime+" is writable")
	}
	j.repairPrompt = prompt
	j.hostDecision(fmt.Sprintf("repair: attempt %d of %d gets the failure of attempt %d", n+1, max, n), prompt, n)
	j.flushDecisions(ctx, result)
	v := j.stagingView()
	p := v.policy(j.opts.Self, j.lay.Worktree, []string{"git", "--git-dir=" + j.lay.Scratch, "update-ref", "HEAD", result})
	if code, err := sandbox.Run(ctx, p, nil, j.output, j.output); err != nil || code != 0 {
		fmt.Fprintf(j.opts.Stderr, "git-agent: warning: cannot move the scratch HEAD to %s (exit %d, %v); the next snapshot's parent is the agent's own HEAD\n", shortID(result), code, err)
	}
	j.rec.SetState(refs.StateRepairing, time.Now())
	fmt.Fprintf(j.opts.Stderr, "git-agent: attempt %d failed; repairing (attempt %d of %d)\n", n, n+1, max)
	return j.store.Save(ctx, j.rec, nil, fmt.Sprintf("attempt %d repairing", n+1))
}

// withRepair adapts the agent's view and argv for a repair attempt: the
// tool's repair template (after its command, like prompt) with {prompt}
// replaced by the repair prompt when the profile has one, else the same
// argv; in both cases the prompt file bound read-only and named by
// $GIT_AGENT_FEEDBACK.
func (j *job) withRepair(v view, argv []string) (view, []string) {
	if j.feedback == "" {
		return v, argv
	}
	if len(j.tool.Repair) > 0 {
		argv = repairArgv(j.tool, argv[0], j.opts.Args, j.repairPrompt)
	}
	v.extra = append(v.extra, sandbox.Bind{Src: j.feedback, Dst: j.feedback, Mode: sandbox.RO})
	v.env = setEnv(v.env, "GIT_AGENT_FEEDBACK="+j.feedback)
	return v, argv
}

// repairArgv returns the argv of a repair attempt: the profile's command
// (or cmd), the repair template with {prompt} replaced, then the user's args.
func repairArgv(tool config.Tool, cmd string, args []string, prompt string) []string {
	t := tool
	t.Prompt = tool.Repair
	return promptArgv(t, cmd, args, prompt)
}

// importTranscripts turns the tool calls the agent's own transcripts
// (agents.Import, from the run's HOME) gained during attempt n into queued
// decisions stamped source "agent". A transcript time is kept only within
// the attempt, as for the agent's decision file.
func (j *job) importTranscripts(n int) {
	start, end := "", now()
	for _, s := range j.rec.States {
		if s.State == refs.StateRunning {
			start = s.Time
		}
	}
	for _, c := range agents.Import(j.lay.Home, &j.transcripts) {
		t := now()
		if at := agents.ParseTime(c.Time); !at.IsZero() {
			if s := jsonl.TimeString(at); s >= start && s <= end {
				t = s
			}
		}
		j.pending = append(j.pending, notes.Decision{Time: t, Run: j.rec.ID, Source: "agent", Attempt: n,
			Decision: clip(c.Summary), Rationale: clip(c.Rationale), Tool: clip(c.Tool)})
	}
}
