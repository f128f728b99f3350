package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/jsonl"
	"github.com/git-agent/git-agent/run"
	"time"
)

func cmdVersion(ctx context.Context, e env) (int, error) {
	fmt.Fprintln(e.stdout, "git-agent version "+version)
	return 0, nil
}

func cmdRm(ctx context.Context, e env) (int, error) {
	fs := flags("rm", e)
	purge := fs.Bool("purge", false, "also delete the run's branch, result and record refs")
	if err := parse(fs, "rm", e); err != nil {
		return 0, err
	}
	repo, rec, err := oneRun(ctx, "rm", e, fs.Args(), false)
	if err != nil {
		return 0, err
	}
	if err := run.Remove(ctx, repo, rec, *purge); err != nil {
		return 0, err
	}
	fmt.Fprintf(e.stderr, "git-agent: removed run %s's worktree\n", rec.ID)
	return 0, nil
}

func cmdDecide(ctx context.Context, e env) (int, error) {
	fs := flags("decide", e)
	why := fs.String("why", "", "the rationale")
	tool := fs.String("tool", "", "the tool that decided")
	if err := parse(fs, "decide", e); err != nil {
		return 0, err
	}
	decision := strings.TrimSpace(strings.Join(fs.Args(), " "))
	if decision == "" {
		return 0, errfmt.New(errfmt.ErrDecision, "the decision is empty", "appending a decision", `say what was decided: git agent decide "use X" --why "because Y"`)
	}
	path := os.Getenv("GIT_AGENT_DECISIONS")
	if path == "" || !filepath.IsAbs(path) {
		return 0, errfmt.New(errfmt.ErrDecision, "not inside a git-agent run", "appending a decision", "run git agent decide from the agent, inside git agent run")
	}
	line, _ := json.Marshal(struct {
		Time      string `json:"time"`
		Decision  string `json:"decision"`
		Rationale string `json:"rationale"`
		Tool      string `json:"tool,omitempty"`
	}{jsonl.TimeString(time.Now()), decision, strings.TrimSpace(*why), *tool})
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return 0, errfmt.Wrap(errfmt.ErrDecision, err, "cannot open the decision file", "appending to "+path, "the run's decision file must be writable; see git agent doctor")
	}
	defer f.Close()
	if _, err := f.Write(append(line, '\n')); err != nil {
		return 0, errfmt.Wrap(errfmt.ErrIO, err, "cannot append the decision", "appending to "+path, "check free space")
	}
	return 0, nil
}

func cmdTrust(ctx context.Context, e env) (int, error) {
	fs := flags("trust", e)
	if err := parse(fs, "trust", e); err != nil {
		return 0, err
	}
	repo, err := gitx.Discover(ctx, "")
	if err != nil {
		return 0, err
	}
	head, _, err := repo.Head(ctx)
	if err != nil {
		return 0, err
	}
	path, data, ok, err := run.ProjectConfig(ctx, repo, head)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errfmt.New(errfmt.ErrConfig, "HEAD has no project config", "reading "+strings.Join(run.ProjectConfigPaths, " or "), "commit a .git-agent/config.toml first")
	}
	f, err := config.Parse(path, data)
	if err != nil {
		return 0, err
	}
	hash := config.ContentHash(data)
	if err := config.DefaultTrustStore().Add(run.TrustKey(repo), hash); err != nil {
		return 0, err
	}
	fmt.Fprintf(e.stdout, "trusted %s at %s (%s)\n", path, head[:12], hash)
	for _, w := range config.Widening(f) {
		fmt.Fprintf(e.stdout, "  widens: %s\n", w)
	}
	return 0, nil
}
