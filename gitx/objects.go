package gitx

import (
	"bytes"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

var hexRE = regexp.MustCompile(`^[0-9a-f]{40}([0-9a-f]{24})?$`)

// IsHex reports whether s is a full object id: 40 (sha1) or 64 (sha256)
// lower-case hex digits. Used to read agent-written values as data only.
func IsHex(s string) bool { return hexRE.MatchString(s) }

// Identity is the author and committer git-agent stamps on the commits it
// builds itself (snapshots, records, notes).
var identityEnv = []string{
	"GIT_AUTHOR_NAME=git-agent", "GIT_AUTHOR_EMAIL=git-agent@localhost",
	"GIT_COMMITTER_NAME=git-agent", "GIT_COMMITTER_EMAIL=git-agent@localhost",
}

// IdentityEnv returns the environment entries that make git-agent the
// author and committer of a commit built with commit-tree.
func IdentityEnv() []string { return append([]string{}, identityEnv...) }

// CommitTree builds a commit of tree with parents and message (git
// commit-tree; no hooks, no checkout) authored by git-agent, and returns
// its id.
func (r *Repo) CommitTree(ctx context.Context, tree string, parents []string, message string) (string, error) {
	args := []string{"commit-tree", tree}
	for _, p := range parents {
		args = append(args, "-p", p)
	}
	out, err := r.Git().Exec(ctx, Cmd{Args: args, Stdin: strings.NewReader(message), Env: IdentityEnv()})
	return strings.TrimSpace(string(out)), err
}

// IsAncestor reports whether commit a is an ancestor of (or equal to) b.
func (r *Repo) IsAncestor(ctx context.Context, a, b string) (bool, error) {
	_, err := r.Git().Run(ctx, "merge-base", "--is-ancestor", a, b)
	if err == nil {
		return true, nil
	}
	if ExitCodeOf(err) == 1 {
		return false, nil
	}
	return false, err
}

// TreeOf returns the tree id of commit.
func (r *Repo) TreeOf(ctx context.Context, commit string) (string, error) {
	return r.Git().Run(ctx, "rev-parse", "--verify", "--end-of-options", commit+"^{tree}")
}

// ReadBlob returns the content of path in commit, and false when there is
// no such file (a missing path is not an error).
func (r *Repo) ReadBlob(ctx context.Context, commit, path string) ([]byte, bool, error) {
	objs, err := r.Git().CatBatch(ctx, []string{commit + ":" + path})
	if err != nil {
		return nil, false, err
	}
	if objs[0].Missing || objs[0].Type != "blob" {
		return nil, false, nil
	}
	return objs[0].Data, true, nil
}

// RefUpdate is one compare-and-swap update of a ref transaction: Old ""
// means the ref must not exist yet; New "" deletes it.
type RefUpdate struct{ Ref, New, Old string }

// UpdateRefs applies updates atomically with "git update-ref --stdin" (all
// or nothing, each checked against its old value), with reflog message
// msg. A lost race or an existing ref is ERR_REF_RACE.
func (r *Repo) UpdateRefs(ctx context.Context, msg string, updates ...RefUpdate) error {
	zero, err := r.ZeroOID(ctx)
	if err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("start\n")
	for _, u := range updates {
		old := u.Old
		if old == "" {
			old = zero
		}
		if u.New == "" {
			fmt.Fprintf(&b, "delete %s %s\n", u.Ref, old)
		} else {
			fmt.Fprintf(&b, "update %s %s %s\n", u.Ref, u.New, old)
		}
	}
	b.WriteString("prepare\ncommit\n")
	if _, err := r.Git().Exec(ctx, Cmd{Args: []string{"update-ref", "-m", msg, "--stdin"}, Stdin: strings.NewReader(b.String())}); err != nil {
		return errfmt.Wrap(errfmt.ErrRefRace, err, "a ref changed underneath git-agent",
			"updating "+updates[0].Ref, "run the command again; git agent ls shows the run's state")
	}
	return nil
}

// ZeroOID returns the all-zero object id of the repository's hash.
func (r *Repo) ZeroOID(ctx context.Context) (string, error) {
	f, err := r.Git().Run(ctx, "rev-parse", "--show-object-format")
	if err != nil {
		return "", err
	}
	if f == "sha256" {
		return strings.Repeat("0", 64), nil
	}
	return strings.Repeat("0", 40), nil
}

// RefExists reports whether ref exists.
func (r *Repo) RefExists(ctx context.Context, ref string) bool {
	_, err := r.Git().Run(ctx, "show-ref", "--verify", "--quiet", ref)
	return err == nil
}

// ImportPack reads a pack stream (as "git pack-objects --stdout" writes it)
// and stores it in the repository with "git index-pack --stdin --strict",
// which checks every object's hash and syntax (fsck) and that every link
// resolves. A pack holding no object is accepted and stores nothing.
// Failure is ERR_IMPORT and leaves the repository as it was.
func (r *Repo) ImportPack(ctx context.Context, pack io.Reader) error {
	head := make([]byte, 12)
	if _, err := io.ReadFull(pack, head); err != nil {
		return errfmt.Wrap(errfmt.ErrImport, err, "the agent's pack is truncated", "importing the agent's work", "see the run's output.log; git agent show <run>")
	}
	if string(head[:4]) != "PACK" {
		return errfmt.New(errfmt.ErrImport, "the agent's pack has no PACK header", "importing the agent's work", "see the run's output.log; git agent show <run>")
	}
	if binary.BigEndian.Uint32(head[8:12]) == 0 {
		_, _ = io.Copy(io.Discard, pack)
		return nil
	}
	// index-pack leaves its tmp_pack_* file behind when it rejects a pack,
	// so it writes into a quarantine directory (as git's receive-pack
	// does) whose pack is moved into place only when it passed.
	objects := filepath.Join(r.CommonDir, "objects")
	quarantine, err := os.MkdirTemp(objects, "incoming-git-agent-")
	if err == nil {
		defer os.RemoveAll(quarantine)
		err = os.Mkdir(filepath.Join(quarantine, "pack"), 0o755)
	}
	if err != nil {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot create a quarantine for the agent's pack", "importing the agent's work into "+objects, "check that the repository's objects directory is writable")
	}
	alt := `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(objects) + `"`
	_, err = r.Git().Exec(ctx, Cmd{Args: []string{"index-pack", "--stdin", "--strict"},
		Stdin: io.MultiReader(bytes.NewReader(head), pack),
		Env:   []string{"GIT_OBJECT_DIRECTORY=" + quarantine, "GIT_ALTERNATE_OBJECT_DIRECTORIES=" + alt}})
	if err != nil {
		return errfmt.Wrap(errfmt.ErrImport, err, "the agent's pack failed git's checks", "git index-pack --strict", "the agent's objects are kept in its scratch repository; see git agent show <run>")
	}
	// The .idx goes last: git looks for a pack through its index.
	files, err := filepath.Glob(filepath.Join(quarantine, "pack", "pack-*"))
	sort.SliceStable(files, func(i, j int) bool {
		return !strings.HasSuffix(files[i], ".idx") && strings.HasSuffix(files[j], ".idx")
	})
	for _, f := range files {
		if err == nil {
			err = os.Rename(f, filepath.Join(objects, "pack", filepath.Base(f)))
		}
	}
	if err != nil {
		return errfmt.Wrap(errfmt.ErrImport, err, "cannot move the agent's pack into the repository", "importing the agent's work into "+objects, "check that the repository's objects directory is writable")
	}
	return nil
}

// MergeTree merges theirs into ours without a worktree ("git merge-tree
// --write-tree", git ≥ 2.38) and returns the merged tree, or the
// conflicted paths when it does not merge cleanly.
func (r *Repo) MergeTree(ctx context.Context, ours, theirs string) (tree string, conflicts []string, err error) {
	out, err := r.Git().Exec(ctx, Cmd{Args: []string{"merge-tree", "--write-tree", "--name-only", "--no-messages", ours, theirs}})
	lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	if err != nil {
		if ExitCodeOf(err) == 1 && len(lines) > 0 && IsHex(lines[0]) {
			return lines[0], lines[1:], nil
		}
		return "", nil, err
	}
	return lines[0], nil, nil
}
