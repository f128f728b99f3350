package main

import (
	"context"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/run"
)

func cmdRun(ctx context.Context, e env) (int, error) {
	fs := flags("run", e)
	fs.SetInterspersed(false)
	var o run.Options
	fs.StringVarP(&o.Message, "message", "m", "", "the task, given to the tool through its profile's prompt template")
	fs.StringVarP(&o.Base, "base", "b", "", "base commit (default HEAD)")
	fs.BoolVar(&o.NoVerify, "no-verify", false, "do not run the checks")
	fs.IntVar(&o.MaxAttempts, "max-attempts", 0, "attempts in all, the task included (default: config, 3)")
	fs.StringVar(&o.Network, "network", "", "on, off, or a comma-separated host list")
	fs.StringVar(&o.Sandbox, "sandbox", "", "sandbox backend: auto, bwrap, landlock or none (default: config, auto)")
	fs.StringVar(&o.ConfigFile, "config", "", "a config file applied after the project's")
	if err := parse(fs, "run", e); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, usageErr("run", "no tool given")
	}
	if o.MaxAttempts < 0 {
		return 0, usageErr("run", "--max-attempts must be a positive count")
	}
	o.Tool, o.Args = fs.Arg(0), fs.Args()[1:]
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	self, err := selfPath("run")
	if err != nil {
		return 0, err
	}
	o.Self, o.Stdin, o.Stdout, o.Stderr = self, e.stdin, e.stdout, e.stderr
	rec, err := run.Run(ctx, repo, o)
	if err != nil {
		return 0, err
	}
	if rec.Verdict == refs.StatePassed {
		return 0, nil
	}
	return errfmt.ExitFailed, nil
}
