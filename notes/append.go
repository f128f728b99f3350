package notes

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
)

// commitMessage is the message of every notes commit Append makes (git
// notes itself writes "Notes added by 'git notes add'").
const commitMessage = "Notes added by 'git agent'\n"

// Append adds lines to object's note in the notes ref ref, creating the ref
// and the note as needed. Each line is written followed by "\n" after the
// existing content (which gets a final newline when it lacks one); lines
// must not contain a newline (ERR_INTERNAL), empty ones are skipped, and
// no lines at all is a no-op. object is a full hex id or a revision
// (ERR_BAD_REVISION when git cannot resolve it).
//
// Append is safe against concurrent writers, other processes included: it
// reads the ref's tip, builds the new blob, tree (in a temporary index
// under os.TempDir()) and commit (parent: the tip, author and committer
// git-agent) itself, and moves the ref with "git update-ref <ref> <new>
// <old>". On a lost race it starts again from the new tip, up to 16
// times with a short jittered exponential backoff, then fails with
// ERR_REF_RACE. An existing note keeps its path, whatever its fanout (notes
// at several fanouts are merged into the flattest); a new one goes flat,
// or into the fanout directories the tree already has for its prefix.
func Append(ctx context.Context, git gitx.Runner, ref, object string, lines [][]byte) error {
	var add []byte
	for _, l := range lines {
		if bytes.ContainsAny(l, "\n") {
			return errfmt.New(errfmt.ErrInternal, "a note line contains a newline",
				"appending to "+ref, "report this at the git-agent issue tracker")
		}
		if len(l) > 0 {
			add = append(append(add, l...), '\n')
		}
	}
	if len(add) == 0 {
		return nil
	}
	oid, err := resolveObject(ctx, git, object)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(os.TempDir(), "git-agent-notes-")
	if err != nil {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot make a temporary index",
			"appending to "+ref, "check that "+os.TempDir()+" is writable")
	}
	defer os.RemoveAll(tmp)
	index := filepath.Join(tmp, "index")

	for attempt := 0; ; attempt++ {
		old, err := git.Tip(ctx, ref)
		if err != nil {
			return err
		}
		nu, err := buildCommit(ctx, git, index, old, oid, add)
		if err != nil {
			return err
		}
		expect := old
		if expect == "" {
			expect = strings.Repeat("0", len(nu))
		}
		_, err = git.Run(ctx, "update-ref", "-m", "notes: "+strings.TrimSpace(commitMessage), ref, nu, expect)
		if err == nil {
			return nil
		}
		now, terr := git.Tip(ctx, ref)
		if terr != nil || !gitx.LostRace(err, old, now) {
			return err // not a race: a real failure
		}
		if attempt+1 >= gitx.CASAttempts {
			return errfmt.Wrap(errfmt.ErrRefRace, err, ref+" kept changing while git-agent appended to it",
				"appending a note to "+oid, "run the command again")
		}
		if err := gitx.Backoff(ctx, attempt+1); err != nil {
			return err
		}
	}
}

// buildCommit writes the notes commit that adds add to oid's note on top of
// old ("" when the ref does not exist yet), using index as a scratch index
// file, and returns its id.
func buildCommit(ctx context.Context, git gitx.Runner, index, old, oid string, add []byte) (string, error) {
	env := []string{"GIT_INDEX_FILE=" + index}
	var content []byte
	path := oid
	var stale []string
	if old != "" {
		found, newPath, err := locate(ctx, git, old, oid)
		if err != nil {
			return "", err
		}
		path = newPath
		for _, n := range found {
			content = append(content, n.data...)
			if len(content) > 0 && content[len(content)-1] != '\n' {
				content = append(content, '\n')
			}
			stale = append(stale, n.path)
		}
		if _, err := git.Exec(ctx, gitx.Cmd{Args: []string{"read-tree", old + "^{tree}"}, Env: env}); err != nil {
			return "", err
		}
	} else if err := os.Remove(index); err != nil && !os.IsNotExist(err) {
		return "", errfmt.Wrap(errfmt.ErrIO, err, "cannot reset the temporary index",
			"appending a note to "+oid, "check that "+os.TempDir()+" is writable")
	}
	blob, err := git.Exec(ctx, gitx.Cmd{Args: []string{"hash-object", "-w", "--stdin"},
		Stdin: bytes.NewReader(append(content, add...))})
	if err != nil {
		return "", err
	}
	var info strings.Builder
	for _, p := range stale {
		info.WriteString("0 " + strings.Repeat("0", len(oid)) + "\t" + p + "\n")
	}
	info.WriteString("100644 " + strings.TrimSpace(string(blob)) + "\t" + path + "\n")
	if _, err := git.Exec(ctx, gitx.Cmd{Args: []string{"update-index", "--index-info"},
		Stdin: strings.NewReader(info.String()), Env: env}); err != nil {
		return "", err
	}
	tree, err := git.Exec(ctx, gitx.Cmd{Args: []string{"write-tree"}, Env: env})
	if err != nil {
		return "", err
	}
	args := []string{"commit-tree", strings.TrimSpace(string(tree))}
	if old != "" {
		args = append(args, "-p", old)
	}
	commit, err := git.Exec(ctx, gitx.Cmd{Args: args, Stdin: strings.NewReader(commitMessage),
		Env: gitx.IdentityEnv()})
	return strings.TrimSpace(string(commit)), err
}

// locate finds oid's notes in commit's tree (any fanout, flattest first)
// and the path the merged note goes to: the flattest existing note's, or,
// for a new note, the deepest chain of fanout directories the tree already
// has for oid's prefix (flat when it has none). One "git cat-file --batch".
func locate(ctx context.Context, git gitx.Runner, commit, oid string) ([]note, string, error) {
	paths := fanoutPaths(oid)
	dirs := fanoutDirs(oid)
	names := make([]string, 0, len(paths)+len(dirs))
	for _, p := range paths {
		names = append(names, commit+":"+p)
	}
	for _, d := range dirs {
		names = append(names, commit+":"+d)
	}
	objs, err := git.CatBatch(ctx, names)
	if err != nil {
		return nil, "", err
	}
	var found []note
	for i, o := range objs[:len(paths)] {
		if !o.Missing && o.Type == "blob" {
			found = append(found, note{path: paths[i], blob: o.OID, data: o.Data})
		}
	}
	if len(found) > 0 {
		return found, found[0].path, nil
	}
	path := oid
	for i, o := range objs[len(paths):] {
		if o.Missing || o.Type != "tree" {
			break
		}
		path = paths[i+1]
	}
	return nil, path, nil
}

// AppendJSON appends each value as one line of JSON (encoding/json, HTML
// characters not escaped) to object's note in ref, with Append's
// guarantees. A value that does not encode is ERR_INTERNAL.
func AppendJSON(ctx context.Context, git gitx.Runner, ref, object string, values ...any) error {
	lines := make([][]byte, 0, len(values))
	for _, v := range values {
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			return errfmt.Wrap(errfmt.ErrInternal, err, "cannot encode a note line",
				"appending to "+ref, "report this at the git-agent issue tracker")
		}
		lines = append(lines, bytes.TrimRight(buf.Bytes(), "\n"))
	}
	return Append(ctx, git, ref, object, lines)
}
