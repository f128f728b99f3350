package run

import (
	"context"
	"io"

	"github.com/git-agent/git-agent/sandbox"
)

// runSandbox runs the agent's policy p: on a pty relayed to the user's
// terminal when git-agent's own stdin and stdout are terminals (the
// output copied to output.log, a double Ctrl-C canceling the whole run),
// else with stdin /dev/null and stdout, stderr as given.
func (j *job) runSandbox(ctx context.Context, p sandbox.Policy, stdout, stderr io.Writer) (int, error) {
	if t, ok := sandbox.TerminalOf(j.opts.Stdin, j.opts.Stdout); ok {
		t.Log = j.output
		t.OnCancel = j.cancel
		return sandbox.RunTerminal(ctx, p, t, stderr)
	}
	return sandbox.Run(ctx, p, nil, stdout, stderr)
}
