// Package notes keeps git-agent's JSON-lines notes on result commits: the
// decision log (refs/notes/agent/decisions) and the verification outcomes
// (refs/notes/agent/outcome), as described in DESIGN.md "Where things live".
//
// A notes ref is an ordinary git notes ref: a commit whose tree maps each
// annotated object's hex id to a blob, either flat ("<40 hex>") or under
// git's fanout directories of two hex digits each ("ab/<38 hex>",
// "ab/cd/<36 hex>", …), which git itself introduces as a notes tree grows.
// Readers here accept any fanout, mixed fanouts included. Writers never use
// "git notes add/append", which lose writes under concurrency: Append builds
// the new tree and commit itself and moves the ref by compare-and-swap,
// retrying on a lost race.
//
// Every git access goes through gitx.Runner.
package notes

import (
	"bytes"
	"context"
	"slices"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
)

// Notes refs of git-agent.
const (
	// DecisionsRef holds the decision log, one Decision per line.
	DecisionsRef = "refs/notes/agent/decisions"
	// OutcomeRef holds verification outcomes, one JSON object per line.
	OutcomeRef = "refs/notes/agent/outcome"
)

// Read returns the lines of object's note in the notes ref ref, without
// their newlines and with blank lines dropped, found at any fanout (when
// several fanouts hold a note for object, their lines are concatenated,
// flattest first). No ref or no note is (nil, nil). object is a full hex
// id or any revision git can resolve (ERR_BAD_REVISION when it cannot).
// It costs one "git cat-file --batch" for a full hex id.
func Read(ctx context.Context, git gitx.Runner, ref, object string) ([][]byte, error) {
	oid, err := resolveObject(ctx, git, object)
	if err != nil {
		return nil, err
	}
	found, err := findNote(ctx, git, ref, oid)
	if err != nil {
		return nil, err
	}
	var lines [][]byte
	for _, f := range found {
		for _, l := range bytes.Split(f.data, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				lines = append(lines, l)
			}
		}
	}
	return lines, nil
}

// Objects returns the full hex ids of every object ref annotates, at any
// fanout, sorted and without duplicates; (nil, nil) when ref does not
// exist. Tree entries that are not notes (not hex once the fanout slashes
// are removed) are ignored.
func Objects(ctx context.Context, git gitx.Runner, ref string) ([]string, error) {
	t, err := git.Tip(ctx, ref)
	if err != nil || t == "" {
		return nil, err
	}
	paths, err := git.Lines(ctx, "ls-tree", "-r", "--full-tree", "--name-only", t)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range paths {
		if h := strings.ReplaceAll(p, "/", ""); gitx.IsHex(h) && validFanout(p) {
			out = append(out, h)
		}
	}
	slices.Sort(out)
	return slices.Compact(out), nil
}

// validFanout reports whether every directory of path is two characters
// long, as in git's notes fanout.
func validFanout(path string) bool {
	parts := strings.Split(path, "/")
	for _, d := range parts[:len(parts)-1] {
		if len(d) != 2 {
			return false
		}
	}
	return true
}

// fanoutPaths returns the paths a note for hex id h can have: flat h, then
// "h0h1/rest", "h0h1/h2h3/rest", … (git's notes fanout, two hex digits per
// level), flattest first.
func fanoutPaths(h string) []string {
	paths := make([]string, 0, len(h)/2)
	for depth := 0; 2*depth < len(h)-1; depth++ {
		var b strings.Builder
		for i := range depth {
			b.WriteString(h[2*i : 2*i+2])
			b.WriteByte('/')
		}
		b.WriteString(h[2*depth:])
		paths = append(paths, b.String())
	}
	return paths
}

// fanoutDirs returns the fanout directories a note for h may sit in:
// "h0h1", "h0h1/h2h3", …, shallowest first.
func fanoutDirs(h string) []string {
	paths := fanoutPaths(h)[1:]
	dirs := make([]string, len(paths))
	for i, p := range paths {
		dirs[i] = p[:strings.LastIndexByte(p, '/')]
	}
	return dirs
}

// note is one blob found for an object: its path in the notes tree, blob
// id and content.
type note struct {
	path, blob string
	data       []byte
}

// findNote returns every note for oid in the tree of treeish (a notes ref
// or commit), flattest first, with one "git cat-file --batch". A missing
// treeish yields none.
func findNote(ctx context.Context, git gitx.Runner, treeish, oid string) ([]note, error) {
	paths := fanoutPaths(oid)
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = treeish + ":" + p
	}
	objs, err := git.CatBatch(ctx, names)
	if err != nil {
		return nil, err
	}
	var out []note
	for i, o := range objs {
		if !o.Missing && o.Type == "blob" {
			out = append(out, note{path: paths[i], blob: o.OID, data: o.Data})
		}
	}
	return out, nil
}

// resolveObject returns object as a full hex id: unchanged when it already
// is one, else resolved by git ("rev-parse --verify"), or ERR_BAD_REVISION.
func resolveObject(ctx context.Context, git gitx.Runner, object string) (string, error) {
	if gitx.IsHex(object) {
		return object, nil
	}
	if object != "" && !strings.HasPrefix(object, "-") {
		oid, err := git.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", object)
		if err == nil && gitx.IsHex(oid) {
			return oid, nil
		}
	}
	return "", errfmt.New(errfmt.ErrBadRevision, "not an object: "+object,
		"reading the notes of "+object, "name a commit that exists (git log --oneline shows some)")
}
