package refs

import (
	"time"

	"github.com/git-agent/git-agent/jsonl"
)

// RecordVersion is the schema version Save writes into run.json.
const RecordVersion = 1

// Run states (DESIGN.md "Run lifecycle"). A record's State is one of these.
const (
	StateCreated     = "created"
	StateRunning     = "running"
	StateVerifying   = "verifying"
	StateRepairing   = "repairing"
	StatePassed      = "passed"
	StateFailed      = "failed"
	StateHalted      = "halted"
	StateCanceled    = "canceled"
	StateInterrupted = "interrupted"
	StateLanded      = "landed"
	StateDiscarded   = "discarded"
)

// Record is a run's metadata, stored as run.json in the tip of the run's
// record chain. JSON keys are snake_case in the order of the fields below;
// every key is always written (empty values included) so that the file's
// shape is stable. Times are jsonl.TimeString strings (fixed-width UTC).
type Record struct {
	// Version is the run.json schema version (RecordVersion; set by Save).
	Version int `json:"version"`
	// ID is the run id (see NewID).
	ID string `json:"id"`
	// Tool is the tool name (the command's basename, which picks its config).
	Tool string `json:"tool"`
	// Argv is the tool's command line as given after the tool name.
	Argv []string `json:"argv"`
	// Message is the task (-m).
	Message string `json:"message"`
	// Repo is the user's repository's common directory ($GIT_COMMON_DIR).
	Repo string `json:"repo"`
	// Base is the full hex id of the base commit.
	Base string `json:"base"`
	// BaseRef is the branch base was named through, e.g. refs/heads/main,
	// or "" when HEAD was detached or base was given as a commit.
	BaseRef string `json:"base_ref"`
	// Branch is the run's branch as a full ref (see BranchRef).
	Branch string `json:"branch"`
	// Worktree is the absolute path of the run's linked worktree.
	Worktree string `json:"worktree"`
	// AdminDir is the worktree's registered admin dir, as git made it.
	AdminDir string `json:"admin_dir"`
	// RuntimeDir is $GIT_COMMON_DIR/agent/runs/<id>.
	RuntimeDir string `json:"runtime_dir"`
	// State is the current state (one of the State* constants).
	State string `json:"state"`
	// States is every state the run entered, oldest first.
	States []StateChange `json:"states"`
	// Attempts is the number of agent invocations so far.
	Attempts int `json:"attempts"`
	// Results is the result commit of each attempt, attempt 1 first.
	Results []string `json:"results"`
	// Result is the last result commit (the branch tip), or "".
	Result string `json:"result"`
	// ExitCode is the agent's last exit status (-1 when killed by a signal
	// or not started).
	ExitCode int `json:"exit_code"`
	// Verdict is "passed", "failed", "halted", "canceled", "interrupted",
	// or "" while undecided.
	Verdict string `json:"verdict"`
	// Reason says why the verdict is what it is (one line), or "".
	Reason string `json:"reason"`
	// Created is when the run was created.
	Created string `json:"created"`
	// Updated is when the record was last saved (set by Save).
	Updated string `json:"updated"`
	// Policy is the digest of the sandbox policy the agent ran under.
	Policy string `json:"policy"`
	// Config is the digest of the check definitions used (as in outcomes).
	Config string `json:"config"`
	// Network is the network setting: "on", "off" or a host list.
	Network string `json:"network"`
	// NetworkDenied lists the hosts the host-list proxy refused over all
	// attempts, "host (N)" each with N the count, sorted; the full log is
	// network.jsonl in the runtime dir.
	NetworkDenied []string `json:"network_denied,omitempty"`
	// Backend is the sandbox backend: "bwrap", "landlock" or "none".
	Backend string `json:"backend"`
	// Landed is the commit the run was landed as, or "".
	Landed string `json:"landed"`
	// LandedInto is the full ref the run was landed into, or "".
	LandedInto string `json:"landed_into"`
}

// StateChange is one entry of Record.States: the state entered and when.
type StateChange struct {
	State string `json:"state"`
	Time  string `json:"time"`
}

// SetState sets r.State to state and appends the change, at time t, to
// r.States. It does not save the record.
func (r *Record) SetState(state string, t time.Time) {
	r.State = state
	r.States = append(r.States, StateChange{State: state, Time: jsonl.TimeString(t)})
}

// Live reports whether the record's state is one a git-agent process is
// still working in (created, running, verifying, repairing). Whether that
// process still exists is IsLocked's question.
func (r *Record) Live() bool {
	switch r.State {
	case StateCreated, StateRunning, StateVerifying, StateRepairing:
		return true
	}
	return false
}
