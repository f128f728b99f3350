package run

import (
	"fmt"
	"io"
	"sort"
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
	fmt.Fprintf(w, "tool     %s\n", ellipsize(oneLine(strings.Join(r.Argv, " ")), 120))
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

// writeOutcome prints an outcome as a table of checks with ✓/✗ (and -
// for skipped), durations and, for failures, the last lines of the output.
func writeOutcome(w io.Writer, o *verify.Outcome) {
	verdict := "failed"
	switch {
	case o.Halted != "":
		verdict = "halted: " + clean(o.Halted)
	case o.Passed:
		verdict = "passed"
	}
	fmt.Fprintf(w, "outcome of attempt %d on %s: %s (%s, checks %s)\n", o.Attempt, shortID(o.Commit), verdict, duration(o.DurationMS), shortDigest(o.Config))
	if len(o.Checks) == 0 {
		fmt.Fprintln(w, "  no checks ran: nothing was verified")
	}
	for _, c := range o.Checks {
		mark, extra := "✓", ""
		switch {
		case c.Skipped:
			mark, extra = "-", " (skipped)"
		case c.TimedOut:
			mark, extra = "✗", " (timed out)"
		case c.Signal != "":
			mark, extra = "✗", fmt.Sprintf(" (%s, exit %d)", c.Signal, c.ExitCode)
		case c.ExitCode != 0:
			mark, extra = "✗", fmt.Sprintf(" (exit %d)", c.ExitCode)
		}
		fmt.Fprintf(w, "  %s %-16s %8s  %s%s\n", mark, clean(c.Name), duration(c.DurationMS), clean(c.Command), extra)
		if mark == "✗" && strings.TrimSpace(c.OutputTail) != "" {
			fmt.Fprintln(w, indent(lastLines(clean(c.OutputTail), 20), "      | "))
		}
	}
	if len(o.Checks) > 0 && !o.Passed && o.Halted == "" && verify.Passed(o.Checks) {
		fmt.Fprintln(w, "  every check passed; the agent's exit status failed the attempt")
	}
}

// duration renders milliseconds as "850ms", "12.3s" or "4m05s".
func duration(ms int64) string {
	switch {
	case ms < 1000:
		return fmt.Sprintf("%dms", ms)
	case ms < 60000:
		return fmt.Sprintf("%.1fs", float64(ms)/1000)
	}
	return fmt.Sprintf("%dm%02ds", ms/60000, ms/1000%60)
}

// lastLines returns the last n lines of s.
func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// firstLines returns the first n lines of s, saying how many were left out.
func firstLines(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		more := len(lines) - n
		lines = append(lines[:n], fmt.Sprintf("… (%d more lines: git agent log --json)", more))
	}
	return strings.Join(lines, "\n")
}

// WriteStory prints entries (in time order, as Story returns them) grouped
// by run and attempt, attempts in order: first the attempt's decisions in
// time order (time, source, tool, decision, then the rationale indented),
// then its outcomes as tables. Agent-written text is stripped of control
// characters.
func WriteStory(w io.Writer, entries []Entry) {
	type key struct {
		run     string
		attempt int
	}
	var order []key
	groups := map[key][]Entry{}
	for _, e := range entries {
		k := key{}
		if e.Decision != nil {
			k = key{e.Decision.Run, e.Decision.Attempt}
		} else {
			k = key{e.Outcome.Run, e.Outcome.Attempt}
		}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], e)
	}
	sort.SliceStable(order, func(i, j int) bool {
		if order[i].run != order[j].run {
			return false // runs keep their time order
		}
		return order[i].attempt < order[j].attempt
	})
	for i, k := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		commit := ""
		for _, e := range groups[k] {
			if e.Outcome != nil || commit == "" {
				commit = e.Commit
			}
		}
		fmt.Fprintf(w, "run %s, attempt %d (%s)\n", clean(k.run), k.attempt, shortID(commit))
		for _, e := range groups[k] {
			if d := e.Decision; d != nil {
				// One line each: an agent's decision or tool must not
				// print lines that look like the host's.
				what := ellipsize(oneLine(d.Decision), 200)
				if d.Tool != "" {
					what = "[" + oneLine(d.Tool) + "] " + what
				}
				t := strings.Replace(d.Time, "T", " ", 1)
				if len(t) > 19 {
					t = t[:19]
				}
				fmt.Fprintf(w, "  %s  %-5s  %s\n", oneLine(t), oneLine(d.Source), what)
				if strings.TrimSpace(d.Rationale) != "" {
					fmt.Fprintln(w, indent(firstLines(clean(d.Rationale), 12), "        "))
				}
			}
		}
		for _, e := range groups[k] {
			if e.Outcome != nil {
				writeOutcome(w, e.Outcome)
			}
		}
	}
}

// shortDigest returns "sha256:" and the first 12 hex digits of a digest.
func shortDigest(d string) string {
	if len(d) > 19 {
		return d[:19]
	}
	return d
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

// ellipsize returns s cut to at most n runes, with "…" when it was cut.
func ellipsize(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
