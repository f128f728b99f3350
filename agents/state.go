package agents

import (
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Host is where the user's agent state lives and what the run needs to
// seed its own copy.
type Host struct {
	// Home is the user's home directory.
	Home string
	// Getenv reads the host environment (CLAUDE_CONFIG_DIR, CODEX_HOME,
	// XDG_CONFIG_HOME, …); nil reads nothing.
	Getenv func(string) string
	// Root is true when git-agent runs as uid 0.
	Root bool
}

func (h Host) env(k string) string {
	if h.Getenv == nil {
		return ""
	}
	return h.Getenv(k)
}

// dir returns $env when it is absolute, else Home/fallback.
func (h Host) dir(env, fallback string) string {
	if v := h.env(env); filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(h.Home, fallback)
}

// Env returns the variables that point tool at its state inside runHome
// (KEY=VALUE), for the agent's environment; nil for a tool without a
// profile. It is pure: Seed creates what the variables name.
func Env(tool, runHome string, h Host) []string {
	switch tool {
	case "claude":
		env := []string{"CLAUDE_CONFIG_DIR=" + filepath.Join(runHome, ".claude")}
		if h.Root {
			// As root Claude Code refuses --dangerously-skip-permissions
			// unless it is told that it runs in a sandbox, which it does.
			env = append(env, "IS_SANDBOX=1")
		}
		return env
	case "codex":
		return []string{"CODEX_HOME=" + filepath.Join(runHome, ".codex")}
	case "opencode":
		return []string{"XDG_CONFIG_HOME=" + filepath.Join(runHome, ".config"),
			"XDG_DATA_HOME=" + filepath.Join(runHome, ".local", "share"),
			"XDG_STATE_HOME=" + filepath.Join(runHome, ".local", "state")}
	}
	return nil
}

// Skipped state: transcripts, histories, logs and caches of other sessions.
var (
	claudeSkip = []string{"projects", "todos", "shell-snapshots", "debug", "file-history", "session-env", "statsig", "telemetry", "history.jsonl", "ide", ".credentials.json"}
	codexSkip  = []string{"sessions", "archived_sessions", "log", "history.jsonl", ".tmp", "tmp", "auth.json"}
)

func set(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Seed copies tool's state from the host into runHome, with trust for
// worktree pre-seeded, and returns warnings (files skipped). Credentials
// are copied read-only (0400). Nothing is ever written outside runHome. A
// tool without a profile, or without state on the host, gets nothing.
func Seed(tool, runHome, worktree string, h Host) (warnings []string, err error) {
	c := &copier{}
	switch tool {
	case "claude":
		err = seedClaude(c, runHome, worktree, h)
	case "codex":
		err = seedCodex(c, runHome, worktree, h)
	case "opencode":
		err = seedOpencode(c, runHome, h)
	case "pi":
		err = seedPi(c, runHome, h)
	}
	return c.warnings, err
}

// seedClaude copies CLAUDE_CONFIG_DIR (or ~/.claude) to runHome/.claude and
// writes .claude.json there (from the host's, else empty) with onboarding
// done and worktree trusted (otherwise Claude Code waits at the
// workspace-trust prompt: every run is a new path).
func seedClaude(c *copier, runHome, worktree string, h Host) error {
	src := h.dir("CLAUDE_CONFIG_DIR", ".claude")
	state := filepath.Join(h.Home, ".claude.json")
	if v := h.env("CLAUDE_CONFIG_DIR"); filepath.IsAbs(v) {
		state = filepath.Join(v, ".claude.json")
	}
	dst := filepath.Join(runHome, ".claude")
	skip := set(append(claudeSkip, ".claude.json"))
	if err := c.tree(src, dst, skip); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	if err := c.file(filepath.Join(src, ".credentials.json"), filepath.Join(dst, ".credentials.json"), 0o400); err != nil {
		return err
	}
	cfg := map[string]any{}
	if data, err := readNoFollow(state); err == nil {
		if json.Unmarshal(data, &cfg) != nil {
			c.warnings = append(c.warnings, state+" is not JSON; starting from an empty one")
			cfg = map[string]any{}
		}
	}
	cfg["hasCompletedOnboarding"] = true
	projects, _ := cfg["projects"].(map[string]any)
	if projects == nil {
		projects = map[string]any{}
	}
	for _, p := range paths(worktree) {
		proj, _ := projects[p].(map[string]any)
		if proj == nil {
			proj = map[string]any{}
		}
		proj["hasTrustDialogAccepted"] = true
		proj["hasCompletedProjectOnboarding"] = true
		proj["projectOnboardingSeenCount"] = 1
		projects[p] = proj
	}
	cfg["projects"] = projects
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, ".claude.json"), data, 0o600)
}

// seedCodex copies CODEX_HOME (or ~/.codex) to runHome/.codex, auth.json
// read-only, and marks worktree trusted in its config.toml.
func seedCodex(c *copier, runHome, worktree string, h Host) error {
	src := h.dir("CODEX_HOME", ".codex")
	dst := filepath.Join(runHome, ".codex")
	if err := c.tree(src, dst, set(codexSkip)); err != nil {
		return err
	}
	if err := os.MkdirAll(dst, 0o700); err != nil {
		return err
	}
	if err := c.file(filepath.Join(src, "auth.json"), filepath.Join(dst, "auth.json"), 0o400); err != nil {
		return err
	}
	var b strings.Builder
	for _, p := range paths(worktree) {
		b.WriteString("\n[projects." + strconv.Quote(p) + "]\ntrust_level = \"trusted\"\n")
	}
	f, err := os.OpenFile(filepath.Join(dst, "config.toml"), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	_, err = f.WriteString(b.String())
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// paths returns p and, when different, its real path.
func paths(p string) []string {
	out := []string{p}
	if r, err := filepath.EvalSymlinks(p); err == nil && r != p {
		out = append(out, r)
	}
	return out
}

// readNoFollow reads a regular file, refusing symlinks, up to MaxFileBytes.
func readNoFollow(p string) ([]byte, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|noFollow, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New(p + ": not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, MaxFileBytes))
}
