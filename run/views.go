package run

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/verify"
)

// WriteList prints runs as a table: id, tool, state, verdict, base, age.
func WriteList(w io.Writer, recs []*refs.Record, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tTOOL\tSTATE\tVERDICT\tBASE\tAGE")
	for _, r := range recs {
		verdict := r.Verdict
		if verdict == "" {
			verdict = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, clean(r.Tool), Liveness(r), verdict, shortID(r.Base), age(r.Created, now))
	}
	tw.Flush()
}

// age renders the time since t (a notes-format time) as "42s", "5m", "3h", "2d".
func age(t string, now time.Time) string {
	at, err := time.Parse("2006-01-02T15:04:05.000000000Z", t)
	if err != nil {
		return "-"
	}
	d := now.Sub(at)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

// WriteShow prints a run's record, its last outcome and the diffstat.
func WriteShow(w io.Writer, r *refs.Record, o *verify.Outcome, diffstat string) {
	fmt.Fprintf(w, "run      %s\n", r.ID)
	fmt.Fprintf(w, "tool     %s\n", clean(strings.Join(r.Argv, " ")))
	if r.Message != "" {
		fmt.Fprintf(w, "task     %s\n", clean(r.Message))
	}
	fmt.Fprintf(w, "state    %s\n", Liveness(r))
	if r.Verdict != "" {
		fmt.Fprintf(w, "verdict  %s (%s)\n", r.Verdict, clean(r.Reason))
	}
	fmt.Fprintf(w, "base     %s %s\n", r.Base, r.BaseRef)
	fmt.Fprintf(w, "result   %s\n", r.Result)
	fmt.Fprintf(w, "branch   %s\n", r.Branch)
	fmt.Fprintf(w, "worktree %s\n", r.Worktree)
	fmt.Fprintf(w, "attempts %d, agent exit %d, network %s\n", r.Attempts, r.ExitCode, r.Network)
	if r.Landed != "" {
		fmt.Fprintf(w, "landed   %s into %s\n", r.Landed, r.LandedInto)
	}
	if o != nil {
		fmt.Fprintln(w)
		writeOutcome(w, o)
	}
	if diffstat != "" {
		fmt.Fprintf(w, "\n%s\n", clean(diffstat))
	}
}

// writeOutcome prints an outcome as a table of checks with ✓/✗, durations
// and, for failures, the output tail.
func writeOutcome(w io.Writer, o *verify.Outcome) {
	verdict := "failed"
	if o.Passed {
		verdict = "passed"
	}
	fmt.Fprintf(w, "outcome of attempt %d on %s: %s (%d ms, checks %s)\n", o.Attempt, shortID(o.Commit), verdict, o.DurationMS, shortDigest(o.Config))
	if len(o.Checks) == 0 {
		fmt.Fprintln(w, "  no checks ran: nothing was verified")
	}
	for _, c := range o.Checks {
		mark := "✓"
		switch {
		case c.Skipped:
			mark = "-"
		case c.TimedOut || c.ExitCode != 0:
			mark = "✗"
		}
		extra := ""
		if c.TimedOut {
			extra = " (timed out)"
		} else if c.ExitCode != 0 && !c.Skipped {
			extra = fmt.Sprintf(" (exit %d)", c.ExitCode)
		} else if c.Skipped {
			extra = " (skipped)"
		}
		fmt.Fprintf(w, "  %s %-16s %7d ms  %s%s\n", mark, clean(c.Name), c.DurationMS, clean(c.Command), extra)
		if mark == "✗" && c.OutputTail != "" {
			fmt.Fprintln(w, indent(lastLines(clean(c.OutputTail), 20), "      | "))
		}
	}
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// WriteStory prints entries grouped by attempt: decisions in time order
// (time, source, tool, decision, rationale indented), then outcomes.
func WriteStory(w io.Writer, entries []Entry) {
	attempt := -1
	run := ""
	for _, e := range entries {
		a, r := 0, ""
		if e.Decision != nil {
			a, r = e.Decision.Attempt, e.Decision.Run
		} else {
			a, r = e.Outcome.Attempt, e.Outcome.Run
		}
		if a != attempt || r != run {
			fmt.Fprintf(w, "\nrun %s, attempt %d\n", clean(r), a)
			attempt, run = a, r
		}
		if d := e.Decision; d != nil {
			who := d.Source
			if d.Tool != "" {
				who += "/" + d.Tool
			}
			// One line each: an agent's decision or tool must not print
			// lines that look like the host's.
			fmt.Fprintf(w, "  %s  %-6s %s\n", oneLine(shortTime(d.Time)), oneLine(who), oneLine(d.Decision))
			if d.Rationale != "" {
				fmt.Fprintln(w, indent(clean(d.Rationale), "                                "))
			}
			continue
		}
		writeOutcome(w, e.Outcome)
	}
}

// shortTime returns a notes-format time to the second; a note written by
// hand may hold any string.
func shortTime(t string) string {
	if len(t) > 19 {
		return t[:19]
	}
	return t
}

// oneLine is clean with newlines and tabs turned into spaces.
func oneLine(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' {
			return ' '
		}
		return r
	}, clean(s))
}

// shortDigest returns "sha256:" and the first 12 hex digits of a digest.
func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19]
	}
	return d
}
