package refs

import (
	"bytes"
	"context"
	"strings"

	"github.com/git-agent/git-agent/gitx"
)

// hashObject writes data as a blob and returns its id.
func hashObject(ctx context.Context, git gitx.Runner, data []byte) (string, error) {
	out, err := git.Exec(ctx, gitx.Cmd{Args: []string{"hash-object", "-w", "--stdin"},
		Stdin: bytes.NewReader(data)})
	return strings.TrimSpace(string(out)), err
}

// zeroOID returns the all-zero id as long as oid (sha1 or sha256).
func zeroOID(oid string) string { return strings.Repeat("0", len(oid)) }
