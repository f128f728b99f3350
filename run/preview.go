package run

import (
	"context"
	"path/filepath"

	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
)

// PreviewPolicy returns the sandbox policy the agent of a run of tool here
// would get (the config at HEAD, the run's layout under a placeholder id
// "<id>"), without creating or starting anything. Missing paths of the
// layout are still listed (they would be created). warnings are those the
// run would print (skipped mounts).
func PreviewPolicy(ctx context.Context, repo *gitx.Repo, tool, self string) (p sandbox.Policy, warnings []string, err error) {
	head, _, err := repo.Head(ctx)
	if err != nil {
		return p, nil, err
	}
	cfg, err := LoadConfig(ctx, repo, head, "")
	if err != nil {
		return p, nil, err
	}
	lay := NewLayout(repo, "<id>", cfg.Worktrees)
	j := &job{repo: repo, lay: lay, cfg: cfg, tool: cfg.Tool(filepath.Base(tool)),
		opts: Options{Tool: tool, Self: self}, rec: &refs.Record{ID: "<id>"}}
	v, argv, warnings, err := j.agentView()
	if err != nil {
		return p, warnings, err
	}
	return v.policy(self, lay.Worktree, argv), warnings, nil
}
