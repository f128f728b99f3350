package sandbox

import (
	"github.com/git-agent/git-agent/errfmt"
)

// BackendEnv is the environment variable that selects the sandbox backend
// like --sandbox does, for tests and operations (CI runs the escape battery
// a second time with GIT_AGENT_SANDBOX=landlock). Precedence: --sandbox,
// then GIT_AGENT_SANDBOX, then the tool's config key sandbox, then auto.
// It may only select a sandbox: "none" is refused, so an inherited or
// forgotten variable can never turn isolation off.
const BackendEnv = "GIT_AGENT_SANDBOX"

// EnvBackend validates value, the content of BackendEnv: "" (unset) and
// auto, bwrap and landlock are returned as they are; "none" and anything
// else are ERR_USAGE errors naming the variable.
func EnvBackend(value string) (string, error) {
	const where = "reading " + BackendEnv + " from the environment"
	switch value {
	case "", BackendAuto, BackendBwrap, BackendLandlock:
		return value, nil
	case BackendNone:
		return "", errfmt.New(errfmt.ErrUsage, BackendEnv+"=none is refused: the environment may select a sandbox, never turn it off", where,
			"unset "+BackendEnv+"; to run unconfined say so on the command line: --sandbox none")
	}
	return "", errfmt.New(errfmt.ErrUsage, BackendEnv+"="+value+" is not a sandbox backend", where,
		"set it to auto, bwrap or landlock, or unset it")
}
