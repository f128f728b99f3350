package gitx

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// Repo is the user's repository as seen from the checkout git-agent was
// started in. Paths are absolute and cleaned.
type Repo struct {
	// Top is the working tree of the checkout ("" for a bare repository).
	Top string
	// GitDir is the checkout's own git directory (a linked worktree's admin
	// dir, or the main .git).
	GitDir string
	// CommonDir is the repository's common directory ($GIT_COMMON_DIR):
	// refs, objects, config and git-agent's runtime dirs live here.
	CommonDir string
}

// Discover finds the repository for dir the way git does, honouring GIT_DIR,
// GIT_WORK_TREE and the -c parameters of "git -C … --git-dir=… -c … agent".
// It returns ERR_NOT_A_REPO when there is none.
func Discover(ctx context.Context, dir string) (*Repo, error) {
	r := Runner{Dir: dir}
	// GIT_DIR and GIT_WORK_TREE are the user's own choice here, so this one
	// lookup keeps them; every later call names the directories explicitly.
	env := []string{}
	for _, k := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	// --show-toplevel is asked separately: git 2.39 fails the whole
	// rev-parse with it in a bare repository.
	out, err := r.Exec(ctx, Cmd{Args: []string{"rev-parse", "--path-format=absolute",
		"--git-dir", "--git-common-dir", "--is-bare-repository"}, Env: env})
	if err != nil {
		where := dir
		if where == "" {
			where, _ = os.Getwd()
		}
		return nil, errfmt.Wrap(errfmt.ErrNotARepo, nil, "not a git repository: "+where,
			"finding the repository for "+where,
			"run git agent inside a git checkout, or pass git -C <dir> agent")
	}
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	repo := &Repo{GitDir: filepath.Clean(lines[0]), CommonDir: filepath.Clean(lines[1])}
	if len(lines) > 2 && lines[2] == "false" {
		top, err := r.Exec(ctx, Cmd{Args: []string{"rev-parse", "--show-toplevel"}, Env: env})
		if t := strings.TrimRight(string(top), "\n"); err == nil && t != "" {
			repo.Top = filepath.Clean(t)
		}
	}
	return repo, nil
}

// Git returns a Runner for the repository as seen from the checkout
// (HEAD is the checkout's HEAD). It never gets a work tree.
func (r *Repo) Git() Runner { return Runner{GitDir: r.GitDir} }

// Head returns the checkout's HEAD commit and the branch it is on ("" when
// detached). It returns ERR_EMPTY_REPO when HEAD names no commit.
func (r *Repo) Head(ctx context.Context) (commit, branch string, err error) {
	commit, err = r.Git().Run(ctx, "rev-parse", "--verify", "--quiet", "HEAD^{commit}")
	if err != nil || commit == "" {
		return "", "", errfmt.New(errfmt.ErrEmptyRepo, "the repository has no commits yet",
			"reading HEAD of "+r.GitDir, "make a first commit, then run git agent again")
	}
	branch, _ = r.Git().Run(ctx, "symbolic-ref", "--quiet", "HEAD")
	return commit, branch, nil
}

// ResolveCommit returns the full hex id of the commit rev names, or
// ERR_BAD_REVISION.
func (r *Repo) ResolveCommit(ctx context.Context, rev string) (string, error) {
	if strings.HasPrefix(rev, "-") {
		return "", errfmt.New(errfmt.ErrBadRevision, "not a revision: "+rev, "resolving "+rev, "name a commit, branch or tag")
	}
	c, err := r.Git().Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", rev+"^{commit}")
	if err != nil || c == "" {
		return "", errfmt.New(errfmt.ErrBadRevision, "not a commit: "+rev, "resolving "+rev,
			"name a commit, branch or tag that exists (git log --oneline shows some)")
	}
	return c, nil
}

// ObjectDirs returns the repository's object directory followed by every
// alternate it reaches (objects/info/alternates, recursively), as absolute
// paths with duplicates removed: the chain flattened for a scratch
// repository's alternates file.
func (r *Repo) ObjectDirs() []string {
	seen := map[string]bool{}
	var out []string
	var walk func(dir string, depth int)
	walk = func(dir string, depth int) {
		dir = filepath.Clean(dir)
		if real, err := filepath.EvalSymlinks(dir); err == nil {
			dir = real
		}
		if seen[dir] || depth > 5 {
			return
		}
		seen[dir] = true
		out = append(out, dir)
		f, err := os.Open(filepath.Join(dir, "info", "alternates"))
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if strings.HasPrefix(line, "\"") {
				if uq, err := strconv.Unquote(line); err == nil {
					line = uq
				}
			}
			if !filepath.IsAbs(line) {
				line = filepath.Join(dir, line)
			}
			walk(line, depth+1)
		}
	}
	walk(filepath.Join(r.CommonDir, "objects"), 0)
	return out
}
