// Package agents holds git-agent's built-in tool profiles (claude, codex,
// opencode, pi) and seeds each run's HOME with a copy of the tool's state
// (DESIGN.md invariant 11): the user's agent settings and login are copied
// in, trust for the run's worktree is pre-seeded, and nothing is ever
// copied back.
package agents

import (
	_ "embed"

	"github.com/git-agent/git-agent/config"
)

//go:embed profiles.toml
var profilesTOML []byte

// ProfilesPath is the display path of the built-in layer in errors and in
// "git agent config".
const ProfilesPath = "<built-in profiles>"

// Builtin returns the built-in profiles as the first config layer. An error
// means the embedded file is broken (a build defect; its test fails).
func Builtin() (*config.File, error) {
	return config.Parse(ProfilesPath, profilesTOML)
}

// Hosts returns the hosts the tool's network allowlist needs to reach its
// model API and login (for network = [..] with git-agent's proxy), or nil
// for a tool without a profile.
func Hosts(tool string) []string {
	switch tool {
	case "claude":
		return []string{"api.anthropic.com", "console.anthropic.com", "claude.ai", "statsig.anthropic.com"}
	case "codex":
		return []string{"api.openai.com", "chatgpt.com", "auth.openai.com"}
	case "opencode":
		return []string{"api.anthropic.com", "api.openai.com", "opencode.ai", "models.opencode.ai", "registry.npmjs.org"}
	case "pi":
		return []string{"api.anthropic.com", "api.openai.com", "generativelanguage.googleapis.com"}
	}
	return nil
}
