package run

import (
	"context"
	"os"

	"github.com/git-agent/git-agent/sandbox"
)

// chooseBackend picks the sandbox backend: flag (--sandbox) over
// GIT_AGENT_SANDBOX (sandbox.EnvBackend: never "none") over the tool's
// config key sandbox, default auto (sandbox.Choose).
func chooseBackend(ctx context.Context, flag, configured string) (sandbox.Choice, error) {
	forced, err := sandbox.EnvBackend(os.Getenv(sandbox.BackendEnv))
	if err != nil {
		return sandbox.Choice{}, err
	}
	want := configured
	if forced != "" {
		want = forced
	}
	if flag != "" {
		want = flag
	}
	if want == "" {
		want = sandbox.BackendAuto
	}
	return sandbox.Choose(ctx, want)
}
