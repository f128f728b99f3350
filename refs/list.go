package refs

import (
	"context"
	"slices"
	"strings"

	"github.com/git-agent/git-agent/errfmt"
)

// IDs returns the ids of every recorded run, newest first (ids sort by
// creation time), with one "git for-each-ref". Refs under RecordPrefix
// whose name is not a valid id are ignored.
func (s Store) IDs(ctx context.Context) ([]string, error) {
	names, err := s.Git.Lines(ctx, "for-each-ref", "--format=%(refname)", RecordPrefix)
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(names))
	for _, n := range names {
		if id, ok := strings.CutPrefix(n, RecordPrefix); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	slices.Reverse(ids)
	return ids, nil
}

// List returns every recorded run, newest first, reading all run.json
// blobs with one "git cat-file --batch" (two git processes in all). A
// record whose run.json is missing or does not parse is skipped (a later
// Load of that id reports why).
func (s Store) List(ctx context.Context) ([]*Record, error) {
	ids, err := s.IDs(ctx)
	if err != nil || len(ids) == 0 {
		return nil, err
	}
	names := make([]string, len(ids))
	for i, id := range ids {
		names[i] = RecordRef(id) + ":" + RecordFile
	}
	objs, err := s.Git.CatBatch(ctx, names)
	if err != nil {
		return nil, err
	}
	out := make([]*Record, 0, len(ids))
	for i, o := range objs {
		if o.Missing || o.Type != "blob" {
			continue
		}
		rec, err := decodeRecord(ids[i], o.Data)
		if err != nil {
			continue
		}
		out = append(out, rec)
	}
	return out, nil
}

// Resolve returns the id of the run name names: "last" (the newest run),
// a whole id, or a unique prefix of one. RecordRef, ResultRef and
// default-branch forms ("refs/agent/runs/<id>", "agent/<id>",
// "refs/heads/agent/<id>") are accepted too. No match is ERR_NO_RUN; a
// prefix of several runs is ERR_AMBIGUOUS_RUN naming some of them.
func (s Store) Resolve(ctx context.Context, name string) (string, error) {
	ids, err := s.IDs(ctx)
	if err != nil {
		return "", err
	}
	if name == "last" {
		if len(ids) == 0 {
			return "", errfmt.New(errfmt.ErrNoRun, "there are no runs yet",
				"resolving run last", "start one with git agent run -m <task> <tool>")
		}
		return ids[0], nil
	}
	want := name
	for _, p := range []string{RecordPrefix, ResultPrefix, "refs/heads/" + DefaultBranchPrefix, DefaultBranchPrefix} {
		if rest, ok := strings.CutPrefix(want, p); ok {
			want = rest
			break
		}
	}
	if !ValidID(want) {
		return "", noRun(name)
	}
	var matches []string
	for _, id := range ids {
		if id == want {
			return id, nil
		}
		if strings.HasPrefix(id, want) {
			matches = append(matches, id)
		}
	}
	switch len(matches) {
	case 0:
		return "", noRun(name)
	case 1:
		return matches[0], nil
	}
	shown := matches
	if len(shown) > 5 {
		shown = shown[:5]
	}
	what := "run name " + name + " is ambiguous: " + strings.Join(shown, ", ")
	if len(matches) > len(shown) {
		what += ", …"
	}
	return "", errfmt.New(errfmt.ErrAmbiguousRun, what, "resolving run "+name,
		"give more characters of the id; git agent ls lists the runs")
}

// noRun is the ERR_NO_RUN error for name.
func noRun(name string) error {
	return errfmt.New(errfmt.ErrNoRun, "no run named "+name, "resolving run "+name,
		"see the runs with git agent ls")
}
