package run

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/verify"
)

// Liveness returns the state to show for rec: a run whose record says it is
// still going but whose lock nobody holds was interrupted (its git-agent
// died).
func Liveness(rec *refs.Record) string {
	if rec.Live() && !refs.IsLocked(rec.RuntimeDir+"/"+refs.LockFile) {
		return refs.StateInterrupted
	}
	return rec.State
}

// Store returns the record store of repo.
func Store(repo *gitx.Repo) refs.Store { return refs.Store{Git: repo.Git()} }

// Find resolves name ("last", an id or a unique prefix) and loads the
// record. Errors are ERR_NO_RUN or ERR_AMBIGUOUS_RUN.
func Find(ctx context.Context, repo *gitx.Repo, name string) (*refs.Record, error) {
	s := Store(repo)
	id, err := s.Resolve(ctx, name)
	if err != nil {
		return nil, err
	}
	return s.Load(ctx, id)
}

// Outcomes returns the outcomes noted on commit, oldest first; lines that
// do not parse are skipped.
func Outcomes(ctx context.Context, repo *gitx.Repo, commit string) []verify.Outcome {
	lines, _ := notes.Read(ctx, repo.Git(), notes.OutcomeRef, commit)
	var out []verify.Outcome
	for _, l := range lines {
		var o verify.Outcome
		if json.Unmarshal(l, &o) == nil && o.Commit != "" {
			out = append(out, o)
		}
	}
	return out
}

// LastOutcome returns the newest outcome of run id on commit, or nil.
func LastOutcome(ctx context.Context, repo *gitx.Repo, id, commit string) *verify.Outcome {
	var last *verify.Outcome
	for _, o := range Outcomes(ctx, repo, commit) {
		if o.Run == id && o.Commit == commit && (last == nil || o.Time >= last.Time) {
			last = &o
		}
	}
	return last
}

// Entry is one line of a run's story: a decision or an outcome.
type Entry struct {
	Time     string          `json:"time"`
	Commit   string          `json:"commit"`
	Decision *notes.Decision `json:"decision,omitempty"`
	Outcome  *verify.Outcome `json:"outcome,omitempty"`
}

// Story returns the decisions and outcomes noted on commits, in time order
// (stable: notes keep their own order for equal times).
func Story(ctx context.Context, repo *gitx.Repo, commits []string) []Entry {
	var out []Entry
	for _, c := range commits {
		ds, _ := notes.ReadDecisions(ctx, repo.Git(), c)
		for i := range ds {
			out = append(out, Entry{Time: ds[i].Time, Commit: c, Decision: &ds[i]})
		}
		for _, o := range Outcomes(ctx, repo, c) {
			o := o
			out = append(out, Entry{Time: o.Time, Commit: c, Outcome: &o})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Time < out[j].Time })
	return out
}

// RunCommits returns the commits of run rec that can carry notes: its
// results and every commit between its base and its branch tip, oldest
// first, without duplicates.
func RunCommits(ctx context.Context, repo *gitx.Repo, rec *refs.Record) []string {
	seen := map[string]bool{}
	var out []string
	add := func(c string) {
		if c != "" && !seen[c] {
			seen[c] = true
			out = append(out, c)
		}
	}
	tip, _ := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", rec.Branch)
	for _, end := range []string{rec.Result, tip} {
		if end == "" {
			continue
		}
		lines, _ := repo.Git().Lines(ctx, "rev-list", "--reverse", end, "^"+rec.Base)
		for _, c := range lines {
			add(c)
		}
	}
	for _, r := range rec.Results {
		add(r)
	}
	return out
}

// Diffstat returns "git diff --stat" of base..result (at most 50 files
// listed, then git's "..." line), with external diff
// drivers and textconv off.
func Diffstat(ctx context.Context, repo *gitx.Repo, base, result string) string {
	s, _ := repo.Git().Run(ctx, "diff", "--stat", "--stat-count=50", "--no-color", "--no-ext-diff", "--no-textconv", base, result, "--")
	return s
}

// clean strips control characters for human views.
func clean(s string) string { return verify.StripControl(s) }

// shortID returns the first 12 characters of an object id.
func shortID(s string) string {
	if len(s) > 12 {
		return s[:12]
	}
	return s
}

// indent prefixes every line of s with p.
func indent(s, p string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	for i := range lines {
		lines[i] = p + lines[i]
	}
	return strings.Join(lines, "\n")
}
