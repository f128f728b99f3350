package notes

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/git-agent/git-agent/gitx"
)

// tip returns the commit ref points at, or "" when ref does not exist.
func tip(ctx context.Context, git gitx.Runner, ref string) (string, error) {
	out, err := git.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	if err != nil {
		if gitx.ExitCodeOf(err) == 1 && out == "" {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// batchObject is one answer of "git cat-file --batch"; missing is true when
// the name resolved to no object (or was ambiguous).
type batchObject struct {
	oid, typ string
	data     []byte
	missing  bool
}

// catBatch reads every object names resolves to with a single
// "git cat-file --batch" process, answers in the order of names.
func catBatch(ctx context.Context, git gitx.Runner, names []string) ([]batchObject, error) {
	var in strings.Builder
	for _, n := range names {
		if strings.ContainsAny(n, "\n\r") {
			return nil, fmt.Errorf("cat-file: object name with a newline: %q", n)
		}
		in.WriteString(n + "\n")
	}
	out, err := git.Exec(ctx, gitx.Cmd{Args: []string{"cat-file", "--batch"},
		Stdin: strings.NewReader(in.String())})
	if err != nil {
		return nil, err
	}
	res := make([]batchObject, 0, len(names))
	for range names {
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("cat-file --batch: short output")
		}
		f := strings.Fields(string(header))
		if len(f) != 3 { // "<name> missing" or "<name> ambiguous"
			res = append(res, batchObject{missing: true})
			out = rest
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(rest) {
			return nil, fmt.Errorf("cat-file --batch: bad header %q", header)
		}
		res = append(res, batchObject{oid: f[0], typ: f[1], data: rest[:n:n]})
		out = rest[n+1:]
	}
	return res, nil
}

// casAttempts is how often a compare-and-swap ref update is tried before
// giving up with ERR_REF_RACE.
const casAttempts = 16

// lostRace reports whether a failed "git update-ref <ref> <new> <old>"
// (err) lost to another writer: the ref moved away from old (now), or
// another writer held its lock ("cannot lock ref": git's wording both for
// a held lock file and for an unexpected old value).
func lostRace(err error, old, now string) bool {
	var ge *gitx.GitError
	return now != old || errors.As(err, &ge) && strings.Contains(ge.Stderr, "cannot lock ref")
}

// backoff sleeps before retry n (n >= 1) for a random time up to 4 ms
// doubled per retry, capped at 250 ms ("full jitter", so that writers that
// collided spread out), or returns ctx's error.
func backoff(ctx context.Context, n int) error {
	ceiling := min(4*time.Millisecond<<min(n, 10), 250*time.Millisecond)
	t := time.NewTimer(rand.N(ceiling) + time.Millisecond)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
