// Package run owns a run's lifecycle: it lays out the run's worktree,
// scratch repository, HOME and caches (DESIGN.md "Where things live"),
// starts the agent in the sandbox, imports and snapshots its work, runs the
// checks on a clean checkout, and writes the record, refs and notes. It
// also answers the read-side commands (ls, show, log) and land.
package run

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/gitx"
)

// Layout is where one run's files live on the host. All paths are absolute.
type Layout struct {
	// Runtime is $GIT_COMMON_DIR/agent/runs/<id>: host-owned.
	Runtime string
	// Scratch is the scratch repository (Runtime/scratch).
	Scratch string
	// Home is the agent's HOME (Runtime/home).
	Home string
	// Decisions is the agent-writable decision file (Runtime/decisions.jsonl).
	Decisions string
	// Lock is the liveness lock (Runtime/lock), host-only.
	Lock string
	// Output is the agent's terminal output (Runtime/output.log), host-only.
	Output string
	// GitFile is the host-written "gitdir: <Scratch>" file bound over the
	// worktree's .git inside the sandbox (Runtime/gitfile).
	GitFile string
	// Worktree is the run's linked worktree.
	Worktree string
	// AgentCache and CheckCache are git-agent's caches for the agent and for
	// checks ($XDG_CACHE_HOME/git-agent/<repo>-<hash>/{agent,checks}).
	AgentCache, CheckCache string
}

// RepoKey returns "<name>-<hash>" for the repository: the base name of its
// top directory (for a bare repository or a linked worktree: of the common
// dir, without ".git", or of its parent) and 12 hex digits of the
// SHA-256 of its common dir. It names the repository's worktree and cache
// directories.
func RepoKey(repo *gitx.Repo) string {
	name := filepath.Base(repo.Top)
	if repo.Top == "" || (repo.GitDir != "" && repo.GitDir != repo.CommonDir) {
		name = strings.TrimSuffix(filepath.Base(repo.CommonDir), ".git")
		if name == "" || name == "." {
			name = filepath.Base(filepath.Dir(repo.CommonDir))
		}
	}
	sum := sha256.Sum256([]byte(repo.CommonDir))
	return sanitize(name) + "-" + hex.EncodeToString(sum[:6])
}

func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r < 0x20 {
			return '_'
		}
		return r
	}, s)
}

// xdgDir returns $env when it is an absolute path, else $HOME/fallback.
func xdgDir(env, fallback string) string {
	if v := os.Getenv(env); filepath.IsAbs(v) {
		return v
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, fallback)
}

// WorktreesDir returns the directory holding this repository's run
// worktrees: configured (relative paths resolve against the repository's
// top directory) or $XDG_DATA_HOME/git-agent/worktrees/<repo>-<hash>.
func WorktreesDir(repo *gitx.Repo, configured string) string {
	if configured != "" {
		if configured == "~" || strings.HasPrefix(configured, "~/") {
			home, _ := os.UserHomeDir()
			configured = filepath.Join(home, configured[1:])
		}
		if !filepath.IsAbs(configured) {
			base := repo.Top
			if base == "" {
				base = repo.CommonDir
			}
			configured = filepath.Join(base, configured)
		}
		return filepath.Clean(configured)
	}
	return filepath.Join(xdgDir("XDG_DATA_HOME", ".local/share"), "git-agent", "worktrees", RepoKey(repo))
}

// RuntimeDir returns $GIT_COMMON_DIR/agent/runs/<id>.
func RuntimeDir(repo *gitx.Repo, id string) string {
	return filepath.Join(repo.CommonDir, "agent", "runs", id)
}

// NewLayout returns the layout of run id in repo.
func NewLayout(repo *gitx.Repo, id, worktrees string) Layout {
	rt := RuntimeDir(repo, id)
	cache := filepath.Join(xdgDir("XDG_CACHE_HOME", ".cache"), "git-agent", RepoKey(repo))
	return Layout{
		Runtime:    rt,
		Scratch:    filepath.Join(rt, "scratch"),
		Home:       filepath.Join(rt, "home"),
		Decisions:  filepath.Join(rt, "decisions.jsonl"),
		Lock:       filepath.Join(rt, "lock"),
		Output:     filepath.Join(rt, "output.log"),
		GitFile:    filepath.Join(rt, "gitfile"),
		Worktree:   filepath.Join(WorktreesDir(repo, worktrees), id),
		AgentCache: filepath.Join(cache, "agent"),
		CheckCache: filepath.Join(cache, "checks"),
	}
}

// configPath is one path entry of the config (mount, ro, hide) as resolved
// on the host for a run.
type configPath struct {
	// path is the entry expanded: "~" to the user's home, a relative entry
	// inside the worktree.
	path string
	// real is path with symlinks resolved.
	real string
	// relative is true for an entry written relative (to the worktree).
	relative bool
	// rel is real relative to the worktree's real path, when inside ("."
	// for the worktree itself); inside tells whether it is.
	rel    string
	inside bool
}

// resolveConfigPath expands entry (config.ExpandHome, relative entries
// inside worktree) and resolves its symlinks on the host; realWT is the
// worktree's own real path. It returns an error when the path does not
// exist. A relative entry whose real path is not inside the worktree (a
// committed symlink pointing out) is for the caller to refuse: DESIGN.md
// invariant 10.
func resolveConfigPath(entry, home, worktree, realWT string) (configPath, error) {
	c := configPath{path: config.ExpandHome(entry, home)}
	if !filepath.IsAbs(c.path) {
		c.path, c.relative = filepath.Join(worktree, c.path), true
	}
	real, err := filepath.EvalSymlinks(c.path)
	if err != nil {
		return c, err
	}
	c.real = real
	c.rel, c.inside = relTo(real, realWT)
	return c, nil
}

// realPath returns p with symlinks resolved, or p itself when that fails.
func realPath(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return p
}
