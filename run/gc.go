package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
)

// GCOptions are "git agent gc"'s options.
type GCOptions struct {
	// All removes the worktree of every finished run, not only of landed
	// and discarded ones.
	All bool
	// Purge also deletes the removed runs' branch, result and record refs.
	Purge bool
	// Self is the host path of the git-agent binary (the init shim of the
	// sandbox that stages an interrupted run's work).
	Self string
	// Stderr receives one line per thing done.
	Stderr io.Writer
}

// GC performs "git agent gc" (DESIGN.md "Run lifecycle"). First, each
// interrupted run (a live state whose lock nobody holds) is recovered: gc
// takes its lock, imports and snapshots what it left, committed and not,
// inside the sandbox exactly as a finishing run does (snapshot), and
// records state interrupted with the result. Then it removes the worktrees,
// check checkouts and runtime dirs of landed and discarded runs (every
// finished run with opts.All), the runtime dirs and check checkouts no
// record claims, and runs "git worktree prune". Records stay unless
// opts.Purge. It returns how many things it did; a second GC does nothing.
func GC(ctx context.Context, repo *gitx.Repo, opts GCOptions) (int, error) {
	recs, err := Store(repo).List(ctx)
	if err != nil {
		return 0, err
	}
	done := 0
	claimed := map[string]bool{}
	for _, rec := range recs {
		claimed[rec.ID] = true
		if rec.Live() && !refs.IsLocked(filepath.Join(rec.RuntimeDir, refs.LockFile)) {
			done++
			if err := recoverRun(ctx, repo, rec, opts); err != nil {
				fmt.Fprintf(opts.Stderr, "git-agent: gc: run %s: %s\n", rec.ID, errLine(err))
				continue
			}
		}
		if !removable(rec, opts.All) {
			continue
		}
		if _, err := os.Lstat(rec.Worktree); err != nil && !opts.Purge {
			continue
		}
		if err := Remove(ctx, repo, rec, opts.Purge); err != nil {
			fmt.Fprintf(opts.Stderr, "git-agent: gc: run %s: %s\n", rec.ID, errLine(err))
			continue
		}
		done++
		fmt.Fprintf(opts.Stderr, "git-agent: gc: removed run %s's worktree (%s)\n", rec.ID, rec.State)
	}
	done += pruneStale(repo, claimed, opts.Stderr)
	_, _ = repo.Git().Run(ctx, "worktree", "prune")
	return done, nil
}

// removable reports whether gc removes rec's worktree: landed and
// discarded runs, or every finished run with all.
func removable(rec *refs.Record, all bool) bool {
	if rec.Live() {
		return false
	}
	return all || rec.State == refs.StateLanded || rec.State == refs.StateDiscarded
}

// recoverRun snapshots what interrupted run rec left and records it as
// interrupted. It holds the run's lock meanwhile.
func recoverRun(ctx context.Context, repo *gitx.Repo, rec *refs.Record, opts GCOptions) error {
	lay := NewLayout(repo, rec.ID, "")
	lay.Worktree = rec.Worktree
	j := &job{repo: repo, store: Store(repo), rec: rec, lay: lay,
		opts: Options{Self: opts.Self, Tool: rec.Tool, Stdout: io.Discard, Stderr: opts.Stderr}}
	if rec.RuntimeDir != lay.Runtime {
		return fmt.Errorf("its runtime dir %s is not this repository's", rec.RuntimeDir)
	}
	lock, err := refs.Lock(lay.Lock)
	if err != nil {
		return err
	}
	j.lock = lock
	defer j.close()
	if j.output, err = os.OpenFile(lay.Output, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		j.output = nil
	}
	if cfg, err := LoadConfig(ctx, repo, rec.Base, ""); err == nil {
		j.cfg, j.tool = cfg, cfg.Tool(rec.Tool)
	} else {
		j.cfg = &config.Config{}
	}
	was := rec.State
	n := max(rec.Attempts, 1)
	reason := fmt.Sprintf("git-agent stopped while %s; git agent gc snapshotted what attempt %d left", was, n)
	if _, err := os.Stat(filepath.Join(lay.Scratch, "HEAD")); err != nil {
		reason = fmt.Sprintf("git-agent stopped while %s; its scratch repository is gone, nothing to import", was)
	} else if _, err := os.Stat(rec.Worktree); err != nil {
		reason = fmt.Sprintf("git-agent stopped while %s; its worktree is gone, nothing to import", was)
	} else if result, err := j.snapshot(ctx, n, rec.ExitCode); err != nil {
		reason = fmt.Sprintf("git-agent stopped while %s; importing what it left failed: %s", was, errLine(err))
	} else {
		reason += " as " + shortID(result)
	}
	j.record(ctx, refs.StateInterrupted, reason)
	fmt.Fprintf(opts.Stderr, "git-agent: gc: run %s interrupted: %s\n", rec.ID, reason)
	return nil
}

// pruneStale removes runtime dirs and check checkouts that no record
// claims and no process holds, and returns how many.
func pruneStale(repo *gitx.Repo, claimed map[string]bool, stderr io.Writer) int {
	n := 0
	dir := filepath.Join(repo.CommonDir, "agent", "runs")
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		p := filepath.Join(dir, e.Name())
		if claimed[e.Name()] || !e.IsDir() || refs.IsLocked(filepath.Join(p, refs.LockFile)) {
			continue
		}
		if err := os.RemoveAll(p); err == nil {
			n++
			fmt.Fprintf(stderr, "git-agent: gc: removed the stale runtime dir %s\n", p)
		}
	}
	wts := WorktreesDir(repo, "")
	checks, _ := filepath.Glob(filepath.Join(wts, "*.check"))
	for _, c := range checks {
		id := filepath.Base(c[:len(c)-len(".check")])
		if _, err := os.Stat(filepath.Join(dir, id, refs.LockFile)); err == nil && refs.IsLocked(filepath.Join(dir, id, refs.LockFile)) {
			continue
		}
		if err := os.RemoveAll(c); err == nil {
			n++
			fmt.Fprintf(stderr, "git-agent: gc: removed the leftover check checkout %s\n", c)
		}
	}
	return n
}

// errLine returns err's first line.
func errLine(err error) string {
	s := err.Error()
	for i, c := range s {
		if c == '\n' {
			return s[:i]
		}
	}
	return s
}
