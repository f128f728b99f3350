package config

import (
	"path/filepath"
	"strings"
)

// SplitMount splits a mount entry into its path and mode: a trailing ":ro"
// gives readOnly true, a trailing ":rw" (or none) false. The path is
// returned as written (see ExpandHome).
func SplitMount(entry string) (path string, readOnly bool) {
	if p, ok := strings.CutSuffix(entry, ":ro"); ok {
		return p, true
	}
	if p, ok := strings.CutSuffix(entry, ":rw"); ok {
		return p, false
	}
	return entry, false
}

// ExpandHome replaces a leading "~" or "~/" in path with home. Other paths,
// including "~user/...", are returned unchanged.
func ExpandHome(path, home string) string {
	if path == "~" {
		return home
	}
	if rest, ok := strings.CutPrefix(path, "~/"); ok {
		return filepath.Join(home, rest)
	}
	return path
}

// outsideWorktree reports whether a project-config path (mount, ro)
// names something outside the worktree it is resolved in: absolute, under
// "~", or escaping with "..". Relative paths that stay inside are resolved
// by the caller against the worktree; the caller must still refuse one
// whose resolved target (symlinks followed) leaves the worktree.
func outsideWorktree(entry string) bool {
	p, _ := SplitMount(entry)
	if strings.HasPrefix(p, "~") || filepath.IsAbs(p) {
		return true
	}
	c := filepath.Clean(p)
	return c == ".." || strings.HasPrefix(c, "../")
}
