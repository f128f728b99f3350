package refs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/jsonl"
)

// Files in the tree of a record commit.
const (
	RecordFile = "run.json"
	OutputFile = "output.log"
)

// Store keeps run records in the repository Git runs in (it should name the
// user's repository, e.g. gitx.Repo.Git()). Each run's record is a chain of
// commits under RecordRef(id); the tip's tree holds run.json and
// output.log. The zero Store is not usable; Store is a value and safe for
// concurrent use (updates are compare-and-swap).
type Store struct {
	Git gitx.Runner
}

// Save appends one commit to rec's record chain, whose tree holds rec as
// run.json (indented JSON and a newline) and outputLog, capped by
// CapOutput, as output.log; a nil outputLog keeps the previous output.log
// (empty for a new record). message (one line; line breaks become spaces)
// is the commit's message and, prefixed with "git-agent: ", the reflog
// message (the record ref always gets a reflog). Save sets rec.Version,
// rec.Updated (now) and rec.Created when empty. The ref moves by
// compare-and-swap; on a lost race Save re-reads the tip and writes again
// on top of it (the record is a snapshot: the last Save wins), giving up
// with ERR_REF_RACE after 16 tries. An invalid rec.ID is ERR_INTERNAL; git
// failures are ERR_GIT.
func (s Store) Save(ctx context.Context, rec *Record, outputLog []byte, message string) error {
	if rec == nil || !ValidID(rec.ID) {
		id := ""
		if rec != nil {
			id = rec.ID
		}
		return errfmt.New(errfmt.ErrInternal, fmt.Sprintf("bad run id %q", id),
			"saving a run record", "report this at the git-agent issue tracker")
	}
	ref := RecordRef(rec.ID)
	if message == "" {
		message = "save " + rec.State
	}
	message = oneLine(message)
	now := jsonl.TimeString(time.Now())
	rec.Version = RecordVersion
	rec.Updated = now
	if rec.Created == "" {
		rec.Created = now
	}
	js, err := encodeRecord(rec)
	if err != nil {
		return errfmt.Wrap(errfmt.ErrInternal, err, "cannot encode run.json",
			"saving run "+rec.ID, "report this at the git-agent issue tracker")
	}
	jsBlob, err := hashObject(ctx, s.Git, js)
	if err != nil {
		return err
	}
	logBlob := ""
	if outputLog != nil {
		if logBlob, err = hashObject(ctx, s.Git, CapOutput(outputLog)); err != nil {
			return err
		}
	}
	for attempt := 0; ; attempt++ {
		old, err := s.Git.Tip(ctx, ref)
		if err != nil {
			return err
		}
		blob := logBlob
		if blob == "" {
			if blob, err = s.previousLog(ctx, old); err != nil {
				return err
			}
		}
		tree, err := s.Git.Exec(ctx, gitx.Cmd{Args: []string{"mktree"}, Stdin: strings.NewReader(
			"100644 blob " + blob + "\t" + OutputFile + "\n" +
				"100644 blob " + jsBlob + "\t" + RecordFile + "\n")})
		if err != nil {
			return err
		}
		args := []string{"commit-tree", strings.TrimSpace(string(tree))}
		if old != "" {
			args = append(args, "-p", old)
		}
		commit, err := s.Git.Exec(ctx, gitx.Cmd{Args: args, Stdin: strings.NewReader(message + "\n"),
			Env: gitx.IdentityEnv()})
		if err != nil {
			return err
		}
		nu := strings.TrimSpace(string(commit))
		expect := old
		if expect == "" {
			expect = zeroOID(nu)
		}
		_, err = s.Git.Run(ctx, "update-ref", "--create-reflog", "-m", "git-agent: "+message, ref, nu, expect)
		if err == nil {
			return nil
		}
		now, terr := s.Git.Tip(ctx, ref)
		if terr != nil || !gitx.LostRace(err, old, now) {
			return err // not a race: a real failure
		}
		if attempt+1 >= gitx.CASAttempts {
			return errfmt.Wrap(errfmt.ErrRefRace, err, "the record of run "+rec.ID+" kept changing",
				"saving "+ref, "run the command again; git agent ls shows the run's state")
		}
		if err := gitx.Backoff(ctx, attempt+1); err != nil {
			return err
		}
	}
}

// previousLog returns the blob id of output.log in commit (the empty blob
// when commit is "" or has none), writing the empty blob when needed.
func (s Store) previousLog(ctx context.Context, commit string) (string, error) {
	if commit != "" {
		objs, err := catBatchInfo(ctx, s.Git, commit+":"+OutputFile)
		if err != nil {
			return "", err
		}
		if objs != "" {
			return objs, nil
		}
	}
	return hashObject(ctx, s.Git, nil)
}

// catBatchInfo returns the object id name resolves to, or "" when it
// resolves to nothing.
func catBatchInfo(ctx context.Context, git gitx.Runner, name string) (string, error) {
	out, err := git.Exec(ctx, gitx.Cmd{Args: []string{"cat-file", "--batch-check=%(objectname)"},
		Stdin: strings.NewReader(name + "\n")})
	if err != nil {
		return "", err
	}
	line := strings.TrimSpace(string(out))
	if f := strings.Fields(line); len(f) != 1 {
		return "", nil // "<name> missing"
	}
	return line, nil
}

// encodeRecord returns rec as indented JSON with a trailing newline, with
// nil slices written as [] so run.json's shape never changes.
func encodeRecord(rec *Record) ([]byte, error) {
	r := *rec
	if r.Argv == nil {
		r.Argv = []string{}
	}
	if r.States == nil {
		r.States = []StateChange{}
	}
	if r.Results == nil {
		r.Results = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(&r); err != nil { // Encode ends with "\n"
		return nil, err
	}
	return buf.Bytes(), nil
}

// Load returns run id's record as of its tip. A missing run (or an id that
// is not valid) is ERR_NO_RUN; a run.json that does not parse is ERR_IO.
func (s Store) Load(ctx context.Context, id string) (*Record, error) {
	objs, err := s.readTip(ctx, id, RecordFile)
	if err != nil {
		return nil, err
	}
	return decodeRecord(id, objs.Data)
}

// OutputLog returns run id's output.log as of its tip (capped: see
// CapOutput); nil when the record has none. A missing run is ERR_NO_RUN.
func (s Store) OutputLog(ctx context.Context, id string) ([]byte, error) {
	if !ValidID(id) {
		return nil, noRun(id)
	}
	objs, err := s.Git.CatBatch(ctx, []string{RecordRef(id), RecordRef(id) + ":" + OutputFile})
	if err != nil {
		return nil, err
	}
	if objs[0].Missing {
		return nil, noRun(id)
	}
	if objs[1].Missing || objs[1].Type != "blob" {
		return nil, nil
	}
	return objs[1].Data, nil
}

// readTip returns file in the tip of run id's record, or ERR_NO_RUN.
func (s Store) readTip(ctx context.Context, id, file string) (gitx.BatchObject, error) {
	if !ValidID(id) {
		return gitx.BatchObject{}, noRun(id)
	}
	objs, err := s.Git.CatBatch(ctx, []string{RecordRef(id) + ":" + file})
	if err != nil {
		return gitx.BatchObject{}, err
	}
	if objs[0].Missing || objs[0].Type != "blob" {
		return gitx.BatchObject{}, noRun(id)
	}
	return objs[0], nil
}

// decodeRecord parses run.json of run id.
func decodeRecord(id string, data []byte) (*Record, error) {
	var rec Record
	if err := json.Unmarshal(data, &rec); err != nil {
		return nil, errfmt.Wrap(errfmt.ErrIO, err, "run.json of run "+id+" does not parse",
			"reading "+RecordRef(id)+":"+RecordFile,
			"inspect it with git show "+RecordRef(id)+":"+RecordFile)
	}
	if rec.ID == "" {
		rec.ID = id
	}
	return &rec, nil
}

// History returns the messages of run id's record commits, oldest first,
// one line each. A missing run is ERR_NO_RUN.
func (s Store) History(ctx context.Context, id string) ([]string, error) {
	if !ValidID(id) {
		return nil, noRun(id)
	}
	old, err := s.Git.Tip(ctx, RecordRef(id))
	if err != nil {
		return nil, err
	}
	if old == "" {
		return nil, noRun(id)
	}
	lines, err := s.Git.Lines(ctx, "log", "--no-notes", "--no-decorate", "--no-show-signature", "--first-parent",
		"--reverse", "--format=%s", old, "--")
	if err != nil {
		return nil, err
	}
	return lines, nil
}

// oneLine replaces line breaks in s with spaces so it fits one commit
// subject and one reflog line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\x00", " ")), " ")
}
