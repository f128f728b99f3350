package run

import (
	"context"

	"github.com/git-agent/git-agent/sandbox"
)

// chooseBackend picks the sandbox backend: flag (--sandbox) over the tool's
// config key sandbox, default auto (sandbox.Choose).
func chooseBackend(ctx context.Context, flag, configured string) (sandbox.Choice, error) {
	want := configured
	if flag != "" {
		want = flag
	}
	if want == "" {
		want = sandbox.BackendAuto
	}
	return sandbox.Choose(ctx, want)
}
