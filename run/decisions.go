package run

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"github.com/git-agent/git-agent/verify"
	"io"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/git-agent/git-agent/jsonl"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
)

// maxDecisionBytes bounds what is read of the agent's decision file per
// attempt (bytes), and maxField each imported field (bytes).
const (
	maxDecisionBytes = 1 << 20
	maxField         = 4096
)

// now returns the current time in the notes' fixed-width format.
func now() string { return jsonl.TimeString(time.Now()) }

// agentLine is what "git agent decide" writes inside the sandbox. Only
// decision, rationale and tool are taken from it; time, run, attempt and
// source are the host's (DESIGN.md invariant 5).
type agentLine struct {
	Time      string `json:"time"`
	Decision  string `json:"decision"`
	Rationale string `json:"rationale"`
	Tool      string `json:"tool"`
}

// importAgentDecisions reads the lines the agent appended to its decision
// file since the last import and queues them stamped source "agent". The
// file is opened without following symlinks and must be a regular file.
func (j *job) importAgentDecisions(attempt int) {
	f, err := os.OpenFile(j.lay.Decisions, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return
	}
	if _, err := f.Seek(j.decOffset, io.SeekStart); err != nil {
		return
	}
	// The agent's time is kept only within this attempt (from its start to
	// now): a forged one would move its lines anywhere in the story.
	start, end := "", now()
	for _, s := range j.rec.States {
		if s.State == refs.StateRunning {
			start = s.Time
		}
	}
	r := bufio.NewReader(io.LimitReader(f, maxDecisionBytes))
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			j.decOffset += int64(len(line))
			var a agentLine
			if json.Unmarshal(line, &a) == nil && strings.TrimSpace(a.Decision) != "" {
				t := a.Time
				if _, perr := time.Parse("2006-01-02T15:04:05.000000000Z", t); perr != nil || len(t) != 30 || t < start || t > end {
					t = now()
				}
				j.pending = append(j.pending, notes.Decision{Time: t, Run: j.rec.ID, Source: "agent",
					Attempt: attempt, Decision: clip(a.Decision), Rationale: clip(a.Rationale), Tool: clip(a.Tool)})
			}
		}
		if err != nil {
			return
		}
	}
}

// flushDecisions writes the queued decisions as the note of result.
func (j *job) flushDecisions(ctx context.Context, result string) {
	if len(j.pending) == 0 {
		return
	}
	vals := make([]any, len(j.pending))
	for i := range j.pending {
		vals[i] = j.pending[i]
	}
	if err := notes.AppendJSON(ctx, j.repo.Git(), notes.DecisionsRef, result, vals...); err != nil {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: cannot write the decision log: "+err.Error())
		return
	}
	j.pending = nil
}

// clip bounds an agent-written field to maxField bytes (verify.Clip).
func clip(s string) string { return verify.Clip(s, maxField) }
