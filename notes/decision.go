package notes

import (
	"context"
	"encoding/json"

	"github.com/git-agent/git-agent/gitx"
)

// Decision sources.
const (
	SourceAgent = "agent" // the agent ran "git agent decide" in its sandbox
	SourceHost  = "host"  // git-agent itself decided
)

// Decision is one line of the decision log (DecisionsRef), in DESIGN.md's
// shape. The field order is the key order on disk and matters: "time"
// first (jsonl.TimeString, fixed width) and "run" second, so git's
// cat_sort_uniq notes merge keeps lines in time order.
type Decision struct {
	// Time is when the decision was made, jsonl.TimeString format.
	Time string `json:"time"`
	// Run is the run id.
	Run string `json:"run"`
	// Source is SourceAgent or SourceHost, always stamped by the host.
	Source string `json:"source"`
	// Attempt is the attempt the decision was made in (1 for the task).
	Attempt int `json:"attempt"`
	// Decision is what was decided, one line.
	Decision string `json:"decision"`
	// Rationale is why.
	Rationale string `json:"rationale"`
	// Tool is the tool that made it, when known.
	Tool string `json:"tool,omitempty"`
}

// ReadDecisions returns the decisions noted on object in DecisionsRef, in
// note order; lines that do not parse as JSON objects are skipped. No note
// is (nil, nil). Errors as Read.
func ReadDecisions(ctx context.Context, git gitx.Runner, object string) ([]Decision, error) {
	lines, err := Read(ctx, git, DecisionsRef, object)
	if err != nil {
		return nil, err
	}
	var out []Decision
	for _, l := range lines {
		var d Decision
		if json.Unmarshal(l, &d) == nil {
			out = append(out, d)
		}
	}
	return out, nil
}
