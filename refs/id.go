// Package refs names runs and keeps their records in git: run ids, the ref
// names of DESIGN.md's "Where things live" table, the record store (a chain
// of commits under refs/agent/runs/<id> updated by compare-and-swap), and the
// liveness lock a running git-agent holds on its runtime directory.
//
// Every git access goes through gitx.Runner.
package refs

import (
	"crypto/rand"
	"io"
	"strconv"
	"strings"
	"time"
)

// Ref name prefixes (DESIGN.md "Where things live").
const (
	// RecordPrefix is the prefix of a run's record ref: RecordPrefix+id.
	RecordPrefix = "refs/agent/runs/"
	// ResultPrefix is the prefix of a run's result keep-alive ref.
	ResultPrefix = "refs/agent/results/"
	// DefaultBranchPrefix is the default branch name prefix under
	// refs/heads/: the branch of run id is agent/<id>.
	DefaultBranchPrefix = "agent/"
)

const (
	// timeWidth is the number of base36 digits of the millisecond
	// timestamp: 36^9 ms is about 3200 years after 1970.
	timeWidth = 9
	// randWidth is the number of random base36 digits after it.
	randWidth = 4
	// maxIDLen is the longest id ValidID accepts (DESIGN.md: at most 16).
	maxIDLen = 16
	digits   = "0123456789abcdefghijklmnopqrstuvwxyz"
)

// NewID returns a new run id for time t: the Unix time in milliseconds in
// base36, zero-padded to 9 digits, followed by 4 random base36 digits read
// from entropy (crypto/rand when entropy is nil or fails), 13 characters of
// [0-9a-z] in all. Ids of different milliseconds sort lexicographically in
// time order; times before 1970 count as 1970.
func NewID(t time.Time, entropy io.Reader) string {
	ms := max(t.UnixMilli(), 0)
	ts := strconv.FormatInt(ms, 36)
	var b strings.Builder
	b.Grow(timeWidth + randWidth)
	for i := len(ts); i < timeWidth; i++ {
		b.WriteByte('0')
	}
	b.WriteString(ts)
	if entropy == nil {
		entropy = rand.Reader
	}
	for n := 0; n < randWidth; {
		c, ok := randomDigit(entropy)
		if !ok {
			if entropy == rand.Reader {
				panic("refs: crypto/rand failed")
			}
			entropy = rand.Reader
			continue
		}
		b.WriteByte(c)
		n++
	}
	return b.String()
}

// randomDigit reads bytes from r until one maps uniformly onto a base36
// digit (rejection sampling). ok is false when r fails.
func randomDigit(r io.Reader) (c byte, ok bool) {
	var buf [1]byte
	for range 64 {
		if _, err := io.ReadFull(r, buf[:]); err != nil {
			return 0, false
		}
		if buf[0] < 252 { // 252 = 7*36
			return digits[buf[0]%36], true
		}
	}
	return 0, false
}

// ValidID reports whether s can be a run id: 1 to 16 characters of
// [0-9a-z]. It does not say whether such a run exists.
func ValidID(s string) bool {
	if len(s) == 0 || len(s) > maxIDLen {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z') {
			return false
		}
	}
	return true
}

// RecordRef returns the ref of run id's record: refs/agent/runs/<id>.
func RecordRef(id string) string { return RecordPrefix + id }

// ResultRef returns the ref that keeps run id's last result alive:
// refs/agent/results/<id>.
func ResultRef(id string) string { return ResultPrefix + id }

// BranchRef returns the full ref of run id's branch, "refs/heads/" + prefix +
// id; prefix is the configured branch prefix (DefaultBranchPrefix unless
// configured), normally ending in "/".
func BranchRef(prefix, id string) string { return "refs/heads/" + prefix + id }
