package run

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/sourcegraph/conc"
)

// stageScript stages the whole worktree into the scratch index and prints
// the tree and the scratch HEAD. It runs inside the sandbox, so anything the
// agent configured in its scratch repository (filters, fsmonitor, hooks)
// runs there and never on the host (DESIGN.md invariants 3 and 4). The
// directories are named explicitly so a rewritten core.worktree or
// core.bare cannot redirect it. With core.sparseCheckout on, git clears the
// skip-worktree bit (copied from a sparse checkout's index) of every file
// the agent wrote outside the cone, so add sees it; files it did not write
// keep the bit and stay in the tree.
//
// The refresh first re-hashes index entries that are racily clean (the
// checkout and the copied index share a second) without writing objects:
// otherwise add would re-hash them with object writes, and since the
// user's object directories are read-only inside, git cannot freshen the
// existing objects and writes a loose copy of every file into the scratch
// repository. (A run that ends within the second of its checkout still
// pays that copy.)
//
// Further arguments are exclude pathspecs: the paths hidden from the agent
// (config "hide") keep their index entries, so a mask the agent saw empty
// is not a deletion.
const stageScript = `set -e
g="$1" w="$2"; shift 2
git --git-dir="$g" --work-tree="$w" -c core.sparseCheckout=true -c sparse.expectFilesOutsideOfPatterns=false update-index -q --refresh || :
git --git-dir="$g" --work-tree="$w" -c core.sparseCheckout=true -c sparse.expectFilesOutsideOfPatterns=false add -A --sparse -- . "$@"
git --git-dir="$g" --work-tree="$w" write-tree
git --git-dir="$g" rev-parse --verify --quiet HEAD^{commit} || echo none`

// stagingView is the agent's view with the network off: the staging and
// packing steps need nothing from outside.
func (j *job) stagingView() view {
	v, _, _, err := j.agentView()
	if err != nil {
		v = view{work: j.lay.Worktree, gitFile: j.lay.GitFile, gitDir: j.lay.Scratch,
			home: j.lay.Home, cache: j.lay.AgentCache, objectDirs: j.repo.ObjectDirs(), backend: j.rec.Backend}
	}
	v.network = "off"
	v.env = setEnv(v.env, "GIT_OPTIONAL_LOCKS=0", "GIT_TERMINAL_PROMPT=0")
	return v
}

// snapshot imports attempt n's work and records it: the sandboxed staging
// step, the pack (index-pack --strict on the host), the scratch HEAD read
// as data, the snapshot commit with its trailers, the run's branch and
// result refs (one transaction), and the worktree pointed at the result.
// It returns the result commit.
func (j *job) snapshot(ctx context.Context, n, exit int) (string, error) {
	v := j.stagingView()
	var out bytes.Buffer
	p := v.policy(j.opts.Self, j.lay.Worktree, append([]string{"sh", "-c", stageScript, "stage", j.lay.Scratch, j.lay.Worktree}, v.excludes...))
	code, err := sandbox.Run(ctx, p, nil, &limitWriter{w: &out, n: 4096}, j.output)
	if err != nil {
		return "", err
	}
	fields := strings.Fields(out.String())
	if code != 0 || len(fields) != 2 || !gitx.IsHex(fields[0]) || (fields[1] != "none" && !gitx.IsHex(fields[1])) {
		return "", errfmt.New(errfmt.ErrImport, fmt.Sprintf("staging the agent's worktree failed (exit %d)", code),
			"snapshotting attempt "+fmt.Sprint(n)+" of run "+j.rec.ID,
			"the files are still in "+j.lay.Worktree+"; see git agent logs "+j.rec.ID)
	}
	tree, head := fields[0], fields[1]
	if head == "none" {
		head = j.rec.Base
	}
	if err := j.importObjects(ctx, v, head, tree); err != nil {
		return "", err
	}
	parent := head
	if head != j.rec.Base {
		ok, err := j.repo.IsAncestor(ctx, j.rec.Base, head)
		if err != nil || !ok {
			j.hostDecision(fmt.Sprintf("attempt %d: ignored the agent's HEAD %s", n, head),
				"it does not descend from the base "+j.rec.Base+"; the snapshot's parent is the base", n)
			parent = j.rec.Base
		}
	}
	msg := fmt.Sprintf("git-agent: snapshot of attempt %d of run %s\n\nAgent-Run: %s\nAgent-Attempt: %d\n", n, j.rec.ID, j.rec.ID, n)
	result, err := j.repo.CommitTree(ctx, tree, []string{parent}, msg)
	if err != nil {
		return "", err
	}
	err = j.repo.UpdateRefs(ctx, "git-agent: run "+j.rec.ID+" attempt "+fmt.Sprint(n),
		gitx.RefUpdate{Ref: j.rec.Branch, New: result, Old: j.rec.Result},
		gitx.RefUpdate{Ref: refs.ResultRef(j.rec.ID), New: result, Old: j.rec.Result})
	if err != nil {
		return "", err
	}
	j.rec.Result = result
	j.rec.Results = append(j.rec.Results, result)
	if err := j.repo.PointWorktree(ctx, j.rec.AdminDir, result); err != nil {
		fmt.Fprintln(j.opts.Stderr, "git-agent: warning: cannot point the worktree at the result: "+err.Error())
	}
	j.importAgentDecisions(n)
	j.importTranscripts(n)
	j.flushDecisions(ctx, result)
	j.rec.SetState(j.rec.State, time.Now())
	return result, j.store.Save(ctx, j.rec, nil, fmt.Sprintf("attempt %d result %s", n, result))
}

// importObjects packs, inside the sandbox, every object reachable from head
// and tree but not from the base, and imports the pack on the host with
// index-pack --strict. Then it checks that tree and head are what they
// claim to be.
func (j *job) importObjects(ctx context.Context, v view, head, tree string) error {
	// The base's tree is excluded explicitly: excluding the base commit
	// does not exclude what a bare tree on the list reaches.
	baseTree, err := j.repo.Git().Run(ctx, "rev-parse", "--verify", j.rec.Base+"^{tree}")
	if err != nil || !gitx.IsHex(baseTree) {
		return errfmt.New(errfmt.ErrImport, "cannot read the base's tree", "importing run "+j.rec.ID,
			"check that "+j.rec.Base+" is still in the repository")
	}
	pr, pw := io.Pipe()
	in := strings.NewReader(head + "\n" + tree + "\n^" + j.rec.Base + "\n^" + baseTree + "\n")
	p := v.policy(j.opts.Self, j.lay.Worktree, []string{"git", "--git-dir=" + j.lay.Scratch, "pack-objects", "--revs", "--stdout", "--quiet"})
	var wg conc.WaitGroup
	var code int
	var packErr error
	wg.Go(func() {
		code, packErr = sandbox.Run(ctx, p, in, pw, j.output)
		pw.Close()
	})
	importErr := j.repo.ImportPack(ctx, pr)
	_, _ = io.Copy(io.Discard, pr)
	wg.Wait()
	if packErr != nil {
		return packErr
	}
	if code != 0 {
		return errfmt.New(errfmt.ErrImport, fmt.Sprintf("packing the agent's objects failed (exit %d)", code),
			"importing run "+j.rec.ID, "the files are still in "+j.lay.Worktree+"; see git agent logs "+j.rec.ID)
	}
	if importErr != nil {
		return importErr
	}
	for obj, want := range map[string]string{tree: "tree", head: "commit"} {
		if t, err := j.repo.Git().Run(ctx, "cat-file", "-t", obj); err != nil || t != want {
			return errfmt.New(errfmt.ErrImport, "the agent's "+want+" "+obj+" is missing after import",
				"importing run "+j.rec.ID, "the files are still in "+j.lay.Worktree+"; see git agent logs "+j.rec.ID)
		}
	}
	return nil
}

// limitWriter keeps at most n bytes and discards the rest.
type limitWriter struct {
	w io.Writer
	n int
}

func (l *limitWriter) Write(p []byte) (int, error) {
	if l.n > 0 {
		k := min(len(p), l.n)
		l.n -= k
		if _, err := l.w.Write(p[:k]); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}
