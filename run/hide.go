package run

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/sandbox"
)

// hideMasks turns the tool's hide entries into masks for the agent's
// sandbox: an empty read-only-content tmpfs for a directory, /dev/null bound
// read-only (sandbox.MaskFile) for anything else. A relative entry names a
// path inside worktree; "~" and "~/" expand to the host HOME; an absolute
// entry is taken as is (hide only narrows the policy, so every layer may
// set it: config.Widening). Symlinks are resolved on the host first (bwrap
// aborts on a symlink under a read-only root); a relative entry that
// resolves outside the worktree, and an entry that does not exist, are
// skipped with a warning (bwrap aborts on a missing mask target).
//
// It returns the masks (to be applied after every writable bind they sit
// in), excludes: the masked paths relative to the worktree as literal
// exclude pathspecs for the staging step (the agent saw them empty, which
// must not become a deletion in its snapshot), and warnings.
func hideMasks(tool config.Tool, worktree string) (masks []sandbox.Bind, excludes, warnings []string) {
	home, _ := os.UserHomeDir()
	realWT := realPath(worktree)
	seen := map[string]bool{}
	for _, h := range tool.Hide {
		c, err := resolveConfigPath(h, home, worktree, realWT)
		if err != nil {
			warnings = append(warnings, "hide "+h+": "+c.path+" does not exist; skipped")
			continue
		}
		real := c.real
		// Inside the sandbox the worktree is at its own (unresolved) path.
		dst := real
		if c.inside {
			dst = filepath.Join(worktree, c.rel)
			if c.rel != "." {
				excludes = append(excludes, ":(exclude,literal)"+c.rel)
			}
		} else if c.relative {
			warnings = append(warnings, "hide "+h+": "+c.path+" resolves outside the worktree ("+real+"); skipped")
			continue
		}
		if seen[dst] {
			continue
		}
		seen[dst] = true
		fi, err := os.Stat(real)
		if err != nil {
			warnings = append(warnings, "hide "+h+": "+err.Error()+"; skipped")
			continue
		}
		if fi.IsDir() {
			masks = append(masks, sandbox.Bind{Dst: dst, Mode: sandbox.Tmpfs, Perms: 0o755})
		} else {
			masks = append(masks, sandbox.Bind{Dst: dst, Mode: sandbox.MaskFile})
		}
	}
	return masks, excludes, warnings
}

// relTo returns p relative to dir when p is dir or inside it (both clean
// absolute paths).
func relTo(p, dir string) (string, bool) {
	if p == dir {
		return ".", true
	}
	if rest, ok := strings.CutPrefix(p, dir+"/"); ok {
		return rest, true
	}
	return "", false
}
