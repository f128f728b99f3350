package main

import (
	"context"
	"os"

	"github.com/git-agent/git-agent/run"
)

func cmdExec(ctx context.Context, e env) (int, error) {
	fs := flags("exec", e)
	fs.SetInterspersed(false)
	network := fs.String("network", "on", "on, off, or a comma-separated host list")
	backend := fs.String("sandbox", "", "sandbox backend: auto, bwrap, landlock or none (default: $GIT_AGENT_SANDBOX, auto)")
	if err := parse(fs, "exec", e); err != nil {
		return 0, err
	}
	if fs.NArg() == 0 {
		return 0, usageErr("exec", "no command given")
	}
	self, err := selfPath("exec")
	if err != nil {
		return 0, err
	}
	return run.Exec(ctx, run.ExecOptions{Argv: fs.Args(), Network: *network, Sandbox: *backend, Self: self, Stdin: e.stdin, Stdout: e.stdout, Stderr: e.stderr})
}

func cmdDoctor(ctx context.Context, e env) (int, error) {
	fs := flags("doctor", e)
	if err := parse(fs, "doctor", e); err != nil {
		return 0, err
	}
	self, _ := os.Executable()
	return run.Doctor(ctx, e.stdout, self), nil
}
