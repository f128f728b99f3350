// Package verify runs a project's checks against one result and describes
// the verdict as an outcome (DESIGN.md "Where things live": outcome shape).
//
// It knows nothing about sandboxes: the caller supplies an Exec that runs
// one command, sandboxed, in a clean checkout of the result commit
// (invariant 6). A failing check is a result, never an error.
package verify

// TailBytes is how much of a check's output is kept as OutputTail.
const TailBytes = 4096

// CheckResult is one check's verdict, as stored in an outcome note.
type CheckResult struct {
	// Name is the check's configured name.
	Name string `json:"name"`
	// Command is the argv joined with shell quoting, for display.
	Command string `json:"command"`
	// ExitCode is the command's exit status; -1 when the sandbox failed or
	// the check was skipped.
	ExitCode int `json:"exit_code"`
	// Signal names the signal that killed the command ("SIGKILL"), if any.
	Signal string `json:"signal,omitempty"`
	// TimedOut is true when the check's timeout ended it.
	TimedOut bool `json:"timed_out"`
	// DurationMS is the wall time in milliseconds (0 when skipped).
	DurationMS int64 `json:"duration_ms"`
	// Skipped is true when the check did not run because an earlier one
	// failed (fail-fast) or the run was canceled first.
	Skipped bool `json:"skipped"`
	// OutputTail is the last TailBytes of combined output, cut at a UTF-8
	// boundary, raw (use StripControl before showing it).
	OutputTail string `json:"output_tail"`
}

// OK reports whether r ran and succeeded: not skipped, exit 0, no signal,
// not timed out.
func (r CheckResult) OK() bool {
	return !r.Skipped && r.ExitCode == 0 && r.Signal == "" && !r.TimedOut
}

// Outcome is the verdict of one verification of one result, one JSON line
// in refs/notes/agent/outcome. The field order is the note's key order and
// must not change: time (jsonl.TimeString, first so notes merge in time
// order), run, attempt, commit, base, config (config.Config.ChecksDigest),
// passed, halted, duration_ms, checks.
type Outcome struct {
	Time    string `json:"time"`
	Run     string `json:"run"`
	Attempt int    `json:"attempt"`
	Commit  string `json:"commit"`
	Base    string `json:"base"`
	Config  string `json:"config"`
	Passed  bool   `json:"passed"`
	// Halted is the reason the repair loop stopped early, if it did.
	Halted string `json:"halted,omitempty"`
	// DurationMS is the whole verification's wall time in milliseconds.
	DurationMS int64         `json:"duration_ms"`
	Checks     []CheckResult `json:"checks"`
}

// Passed reports whether every check ran and succeeded (CheckResult.OK).
// An empty or nil list passes: with no checks configured nothing failed,
// and the caller decides by the agent's exit status (DESIGN.md: a run with
// no checks passes only if the agent exited 0) and says nothing was
// verified.
func Passed(results []CheckResult) bool {
	for _, r := range results {
		if !r.OK() {
			return false
		}
	}
	return true
}

// FirstFailure returns the first result that is not OK and not skipped
// (the one a repair prompt should describe), and false when there is none.
func FirstFailure(results []CheckResult) (CheckResult, bool) {
	for _, r := range results {
		if !r.OK() && !r.Skipped {
			return r, true
		}
	}
	return CheckResult{}, false
}
