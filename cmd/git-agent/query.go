package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/run"
)

// writeJSON prints v as indented JSON followed by a newline.
func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// oneRun parses "<cmd> <run> [flags]" and returns the repository and record.
func oneRun(ctx context.Context, name string, e env, args []string, optional bool) (*gitx.Repo, *refs.Record, error) {
	if len(args) > 1 {
		return nil, nil, usageErr(name, "too many arguments")
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return nil, nil, err
	}
	runName := "last"
	if len(args) == 1 {
		runName = args[0]
	} else if !optional {
		return nil, nil, usageErr(name, "no run given (an id, a unique prefix of one, or last)")
	}
	rec, err := run.Find(ctx, repo, runName)
	return repo, rec, err
}

func cmdLs(ctx context.Context, e env) (int, error) {
	fs := flags("ls", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, "ls", e); err != nil {
		return 0, err
	}
	if fs.NArg() > 0 {
		return 0, usageErr("ls", "ls takes no arguments")
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	recs, err := run.Store(repo).List(ctx)
	if err != nil {
		return 0, err
	}
	for _, r := range recs {
		r.State = run.Liveness(r)
	}
	if *asJSON {
		if recs == nil {
			recs = []*refs.Record{}
		}
		return 0, writeJSON(e.stdout, recs)
	}
	run.WriteList(e.stdout, recs, time.Now())
	return 0, nil
}

func cmdShow(ctx context.Context, e env) (int, error) {
	fs := flags("show", e)
	asJSON := fs.Bool("json", false, "print JSON")
	if err := parse(fs, "show", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "show", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	var stat string
	if rec.Result != "" {
		stat = run.Diffstat(ctx, repo, rec.Base, rec.Result)
	}
	o := run.LastOutcome(ctx, repo, rec.ID, rec.Result)
	rec.State = run.Liveness(rec)
	if *asJSON {
		return 0, writeJSON(e.stdout, map[string]any{"record": rec, "outcome": o, "diffstat": stat})
	}
	run.WriteShow(e.stdout, rec, o, stat)
	return 0, nil
}

func cmdLog(ctx context.Context, e env) (int, error) {
	fs := flags("log", e)
	asJSON := fs.Bool("json", false, "print JSON lines of decisions and outcomes")
	if err := parse(fs, "log", e); err != nil {
		return 0, err
	}
	if fs.NArg() > 1 {
		return 0, usageErr("log", "too many arguments")
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	var commits []string
	name := "last"
	if fs.NArg() == 1 {
		name = fs.Arg(0)
	}
	rec, err := run.Find(ctx, repo, name)
	if err != nil {
		// Not a run: any commit that has notes.
		c, cerr := repo.ResolveCommit(ctx, name)
		if cerr != nil || fs.NArg() == 0 {
			return 0, err
		}
		commits = []string{c}
	} else {
		commits = run.RunCommits(ctx, repo, rec)
	}
	entries := run.Story(ctx, repo, commits)
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetEscapeHTML(false)
		for _, en := range entries {
			var v any = en.Decision
			if en.Outcome != nil {
				v = en.Outcome
			}
			if err := enc.Encode(v); err != nil {
				return 0, err
			}
		}
		return 0, nil
	}
	if len(entries) == 0 {
		fmt.Fprintln(e.stderr, "git-agent: no decisions or outcomes noted")
	}
	run.WriteStory(e.stdout, entries)
	return 0, nil
}

func cmdLogs(ctx context.Context, e env) (int, error) {
	fs := flags("logs", e)
	if err := parse(fs, "logs", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "logs", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	// A live run's output grows in its runtime dir; a finished one is in the
	// record. Either is the agent's: only what paints reaches the terminal.
	if f, err := os.Open(run.NewLayout(repo, rec.ID, "").Output); err == nil && rec.Live() {
		defer f.Close()
		b, err := io.ReadAll(f)
		if err != nil {
			return 0, err
		}
		_, err = e.stdout.Write(run.TerminalSafe(b))
		return 0, err
	}
	out, err := run.Store(repo).OutputLog(ctx, rec.ID)
	if err != nil {
		return 0, err
	}
	_, err = e.stdout.Write(run.TerminalSafe(out))
	return 0, err
}

func cmdDiff(ctx context.Context, e env) (int, error) {
	fs := flags("diff", e)
	stat := fs.Bool("stat", false, "print a diffstat only")
	if err := parse(fs, "diff", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "diff", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	tip, err := repo.Git().Run(ctx, "rev-parse", "--verify", "--quiet", rec.Branch+"^{commit}")
	if err != nil || tip == "" {
		tip = rec.Result
	}
	if tip == "" {
		return 0, errfmt.New(errfmt.ErrNoRun, "run "+rec.ID+" has no result yet", "diffing run "+rec.ID, "wait for it to finish: git agent ls")
	}
	args := []string{"diff", "--no-ext-diff", "--no-textconv", "--no-color"}
	if *stat {
		args = append(args, "--stat")
	}
	_, err = repo.Git().Exec(ctx, gitx.Cmd{Args: append(args, rec.Base, tip, "--"), Stdout: e.stdout})
	return 0, err
}
