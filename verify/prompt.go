package verify

import (
	"fmt"
	"strings"
)

// MaxPromptBytes bounds a repair prompt (bytes, UTF-8): an agent's command
// line and its context window are both finite.
const MaxPromptBytes = 8192

// PromptTailLines is how many of the failing check's last output lines a
// repair prompt quotes.
const PromptTailLines = 40

// RepairPrompt returns the prompt for attempt next (>= 2) of at most max
// after results failed: the failing check (the first that is not OK and not
// skipped), its command, exit code (or signal, or timeout) and the last
// PromptTailLines lines of its output, control characters stripped. The
// whole prompt is at most MaxPromptBytes bytes; the output is what gets
// cut, from the front, so its last lines survive. With no failing check
// (the checks passed but the agent exited non-zero) it says so.
func RepairPrompt(next, max int, results []CheckResult, agentExit int) string {
	var head strings.Builder
	fmt.Fprintf(&head, "git-agent: repair attempt %d of %d.\n", next, max)
	f, ok := FirstFailure(results)
	if !ok {
		fmt.Fprintf(&head, "The checks passed, but your previous attempt exited with status %d. Finish the task and exit 0.\n", agentExit)
		return Tail([]byte(head.String()), MaxPromptBytes)
	}
	fmt.Fprintf(&head, "The check %q failed on your previous attempt.\n", Clip(StripControl(f.Name), 256))
	fmt.Fprintf(&head, "command: %s\n", Clip(StripControl(f.Command), 1024))
	switch {
	case f.TimedOut:
		fmt.Fprintf(&head, "result: timed out after %d ms and was killed\n", f.DurationMS)
	case f.Signal != "":
		fmt.Fprintf(&head, "result: killed by %s (exit code %d)\n", f.Signal, f.ExitCode)
	default:
		fmt.Fprintf(&head, "exit code: %d\n", f.ExitCode)
	}
	foot := "\nFix the cause so that the check passes; do not change or skip the check. The checks run again when you exit.\n"
	out := lastLines(StripControl(f.OutputTail), PromptTailLines)
	label := fmt.Sprintf("last %d lines of its output:\n", PromptTailLines)
	if out == "" {
		label, out = "it printed nothing.\n", ""
	}
	room := MaxPromptBytes - head.Len() - len(label) - len(foot)
	if room < 0 {
		return Tail([]byte(head.String()+foot), MaxPromptBytes)
	}
	return head.String() + label + Tail([]byte(out), room) + foot
}

// lastLines returns the last n lines of s (without a trailing newline).
func lastLines(s string, n int) string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Repeats reports whether tree equals one of earlier (the result trees of
// the attempts before, attempt 1 first) and, if so, which attempt (1-based)
// it repeats. This is the no-progress rule (DESIGN.md "Run lifecycle"): an
// attempt that produced the tree of an earlier attempt did nothing, or went
// back to something already rejected. The base's tree is not an attempt:
// an attempt 1 that changed nothing is judged by the checks alone.
func Repeats(tree string, earlier []string) (int, bool) {
	for i, t := range earlier {
		if t == tree {
			return i + 1, true
		}
	}
	return 0, false
}
