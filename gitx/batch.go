package gitx

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"
)

// Tip returns the object ref points at, or "" when ref does not exist.
func (r Runner) Tip(ctx context.Context, ref string) (string, error) {
	out, err := r.Run(ctx, "rev-parse", "--verify", "--quiet", "--end-of-options", ref)
	if err != nil {
		if ExitCodeOf(err) == 1 && out == "" {
			return "", nil
		}
		return "", err
	}
	return out, nil
}

// BatchObject is one answer of "git cat-file --batch": Missing is true when
// the name resolved to no object (or was ambiguous).
type BatchObject struct {
	OID, Type string
	Data      []byte
	Missing   bool
}

// CatBatch reads every object names resolve to with a single
// "git cat-file --batch" process and returns the answers in the order of
// names (git's batch format: "<oid> <type> <size>\n<data>\n", or
// "<name> missing"). Names must not contain newlines.
func (r Runner) CatBatch(ctx context.Context, names []string) ([]BatchObject, error) {
	if len(names) == 0 {
		return nil, nil
	}
	var in strings.Builder
	for _, n := range names {
		if strings.ContainsAny(n, "\n\r") {
			return nil, fmt.Errorf("cat-file: object name with a newline: %q", n)
		}
		in.WriteString(n)
		in.WriteByte('\n')
	}
	out, err := r.Exec(ctx, Cmd{Args: []string{"cat-file", "--batch"}, Stdin: strings.NewReader(in.String())})
	if err != nil {
		return nil, err
	}
	res := make([]BatchObject, 0, len(names))
	for range names {
		header, rest, ok := bytes.Cut(out, []byte("\n"))
		if !ok {
			return nil, fmt.Errorf("cat-file --batch: short output")
		}
		f := strings.Fields(string(header))
		if len(f) != 3 { // "<name> missing" or "<name> ambiguous"
			res = append(res, BatchObject{Missing: true})
			out = rest
			continue
		}
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 || n+1 > len(rest) {
			return nil, fmt.Errorf("cat-file --batch: bad header %q", header)
		}
		res = append(res, BatchObject{OID: f[0], Type: f[1], Data: rest[:n:n]})
		out = rest[n+1:]
	}
	return res, nil
}

// CASAttempts is how often a compare-and-swap ref update is tried before
// giving up with ERR_REF_RACE.
const CASAttempts = 16

// LostRace reports whether a failed "git update-ref <ref> <new> <old>"
// (err) lost to another writer: the ref moved away from old (now), or
// another writer held its lock ("cannot lock ref": git's wording both for
// a held lock file and for an unexpected old value).
func LostRace(err error, old, now string) bool {
	var ge *GitError
	return now != old || errors.As(err, &ge) && strings.Contains(ge.Stderr, "cannot lock ref")
}

// Backoff sleeps before retry n (n >= 1) for a random time up to 4 ms
// doubled per retry, capped at 250 ms ("full jitter", so that writers that
// collided spread out), or returns ctx's error.
func Backoff(ctx context.Context, n int) error {
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
