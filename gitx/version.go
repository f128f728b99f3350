package gitx

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// MinVersion is the oldest git git-agent runs with: 2.38 brought
// "merge-tree --write-tree", which land uses to merge without a worktree.
var MinVersion = [2]int{2, 38}

// CheckVersion runs "git version" and returns ERR_GIT_VERSION when git is
// older than MinVersion, or ERR_GIT when git cannot run.
func CheckVersion(ctx context.Context) error {
	v, err := (Runner{}).Run(ctx, "version")
	if err != nil {
		return err
	}
	major, minor, ok := ParseVersion(v)
	if !ok || major < MinVersion[0] || (major == MinVersion[0] && minor < MinVersion[1]) {
		return errfmt.New(errfmt.ErrGitVersion, fmt.Sprintf("%s is too old: git-agent needs git %d.%d or newer", v, MinVersion[0], MinVersion[1]),
			"checking git's version", "install a newer git (Debian 12 has 2.39; backports have newer)")
	}
	return nil
}

// ParseVersion reads "git version 2.39.5" (and vendor suffixes such as
// ".windows.1" or " (Apple Git-143)") into major and minor.
func ParseVersion(s string) (major, minor int, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "git version ")
	if _, err := fmt.Sscanf(s, "%d.%d", &major, &minor); err != nil {
		return 0, 0, false
	}
	return major, minor, true
}
