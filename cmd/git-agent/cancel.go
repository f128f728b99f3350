package main

import (
	"context"
	"fmt"

	"github.com/git-agent/git-agent/run"
)

// cmdCancel is "git agent cancel <run>": it stops a live run and waits for
// it to record its end, then prints the run's final state on stderr.
func cmdCancel(ctx context.Context, e env) (int, error) {
	fs := flags("cancel", e)
	if err := parse(fs, "cancel", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "cancel", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	end, err := run.Cancel(ctx, repo, rec)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(e.stderr, "git-agent: run %s %s; its work is on %s\n", end.ID, run.Liveness(end), end.Branch)
	return 0, nil
}
