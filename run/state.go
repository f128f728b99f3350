package run

import (
	"os"

	"github.com/git-agent/git-agent/agents"
	"github.com/git-agent/git-agent/errfmt"
)

// hostAgentState describes where the user's agent state lives on the host.
func hostAgentState() agents.Host {
	home, _ := os.UserHomeDir()
	return agents.Host{Home: home, Getenv: os.Getenv, Root: os.Geteuid() == 0}
}

// seedState copies the tool's state (login, settings) into the run's HOME
// with the worktree trusted, before the first attempt (DESIGN.md invariant
// 11); later attempts continue in the same copy. Nothing is copied back.
func (j *job) seedState() error {
	warnings, err := agents.Seed(j.rec.Tool, j.lay.Home, j.lay.Worktree, hostAgentState())
	for _, w := range warnings {
		j.opts.Stderr.Write([]byte("git-agent: warning: " + w + "\n"))
	}
	if err != nil {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot copy "+j.rec.Tool+"'s state into the run's HOME",
			"seeding "+j.lay.Home, "check that "+j.lay.Runtime+" is writable and has space")
	}
	return nil
}

// stateEnv returns the variables pointing the tool at its copied state.
func (j *job) stateEnv() []string {
	return agents.Env(j.rec.Tool, j.lay.Home, hostAgentState())
}
