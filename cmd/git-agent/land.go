package main

import (
	"context"
	"fmt"

	"github.com/git-agent/git-agent/run"
)

func cmdLand(ctx context.Context, e env) (int, error) {
	fs := flags("land", e)
	var o run.LandOptions
	fs.StringVar(&o.Into, "into", "", "the branch to land into (default: the branch the run started from)")
	fs.BoolVar(&o.Force, "force", false, "land without a passing outcome on the tip")
	if err := parse(fs, "land", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "land", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	o.Stderr = e.stderr
	landed, err := run.Land(ctx, repo, rec, o)
	if err != nil {
		return 0, err
	}
	fmt.Fprintf(e.stdout, "landed %s into %s at %s\n", rec.ID, rec.LandedInto, landed)
	return 0, nil
}
