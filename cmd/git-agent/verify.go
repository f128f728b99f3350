package main

import (
	"context"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/run"
)

// cmdVerify is "git agent verify <run>": the checks again on the branch tip.
func cmdVerify(ctx context.Context, e env) (int, error) {
	fs := flags("verify", e)
	if err := parse(fs, "verify", e); err != nil {
		return 0, err
	}
	if fs.NArg() != 1 {
		return 0, usageErr("verify", "give exactly one run (an id, a unique prefix of one, or last)")
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	self, err := selfPath("verify")
	if err != nil {
		return 0, err
	}
	o, err := run.Verify(ctx, repo, run.VerifyOptions{Run: fs.Arg(0), Self: self, Stdout: e.stdout, Stderr: e.stderr})
	if err != nil {
		return 0, err
	}
	if ctx.Err() != nil {
		return errfmt.ExitCanceled, nil
	}
	if o.Passed {
		return 0, nil
	}
	return errfmt.ExitFailed, nil
}
