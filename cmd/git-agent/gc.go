package main

import (
	"context"
	"fmt"

	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/run"
)

// cmdGC is "git agent gc [--all] [--purge]": recover interrupted runs,
// remove the worktrees of landed and discarded runs, prune leftovers.
func cmdGC(ctx context.Context, e env) (int, error) {
	fs := flags("gc", e)
	all := fs.Bool("all", false, "remove the worktree of every finished run, not only landed and discarded ones")
	purge := fs.Bool("purge", false, "also delete the removed runs' branch, result and record refs")
	if err := parse(fs, "gc", e); err != nil {
		return 0, err
	}
	if fs.NArg() != 0 {
		return 0, usageErr("gc", "too many arguments")
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	self, err := selfPath("gc")
	if err != nil {
		return 0, err
	}
	n, err := run.GC(ctx, repo, run.GCOptions{All: *all, Purge: *purge, Self: self, Stderr: e.stderr})
	if err != nil {
		return 0, err
	}
	if n == 0 {
		fmt.Fprintln(e.stderr, "git-agent: gc: nothing to do")
	}
	return 0, nil
}
