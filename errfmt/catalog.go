package errfmt

// Code names one kind of failure, "ERR_" and upper snake case. Every code is
// in the catalog below with its exit status.
type Code string

// Exit statuses of DESIGN.md's CLI contract.
const (
	ExitOK       = 0   // success
	ExitFailed   = 1   // the run failed or halted
	ExitRefused  = 2   // land refused
	ExitFatal    = 128 // not a repository, sandbox unavailable, git failed
	ExitUsage    = 129 // bad flags or arguments
	ExitCanceled = 130 // interrupted or canceled
)

// The catalog. Add new codes here, never inline.
const (
	ErrUsage           Code = "ERR_USAGE"             // bad flags or arguments
	ErrNotARepo        Code = "ERR_NOT_A_REPO"        // no git repository here
	ErrEmptyRepo       Code = "ERR_EMPTY_REPO"        // the repository has no commits
	ErrBadRevision     Code = "ERR_BAD_REVISION"      // a revision does not name a commit
	ErrGitVersion      Code = "ERR_GIT_VERSION"       // git is older than git-agent needs
	ErrGit             Code = "ERR_GIT"               // a git command failed
	ErrRefClash        Code = "ERR_REF_CLASH"         // a ref the run needs already exists
	ErrRefRace         Code = "ERR_REF_RACE"          // a compare-and-swap ref update lost too often
	ErrWorktree        Code = "ERR_WORKTREE"          // the run's worktree could not be made or removed
	ErrSandbox         Code = "ERR_SANDBOX"           // the sandbox could not start or failed its self-test
	ErrSandboxMissing  Code = "ERR_SANDBOX_MISSING"   // bubblewrap is not installed
	ErrUserns          Code = "ERR_USERNS_BLOCKED"    // user namespaces are blocked for bwrap
	ErrCommandNotFound Code = "ERR_COMMAND_NOT_FOUND" // the tool's command is not on PATH
	ErrConfig          Code = "ERR_CONFIG"            // a config file is malformed or has unknown keys
	ErrUntrusted       Code = "ERR_CONFIG_UNTRUSTED"  // a project config widens the policy without trust
	ErrNoRun           Code = "ERR_NO_RUN"            // no run matches the name given
	ErrAmbiguousRun    Code = "ERR_AMBIGUOUS_RUN"     // a prefix names more than one run
	ErrRunLive         Code = "ERR_RUN_LIVE"          // the run is still running
	ErrRunNotLive      Code = "ERR_RUN_NOT_LIVE"      // cancel: the run is not running
	ErrImport          Code = "ERR_IMPORT"            // the agent's work could not be imported
	ErrNotVerified     Code = "ERR_NOT_VERIFIED"      // land: no passing outcome on the tip
	ErrConflict        Code = "ERR_CONFLICT"          // land: the merge conflicts
	ErrDirty           Code = "ERR_DIRTY"             // land: uncommitted changes would be touched
	ErrLandTarget      Code = "ERR_LAND_TARGET"       // land: no branch to land into
	ErrDecision        Code = "ERR_DECISION"          // decide: empty decision or no run to append to
	ErrCanceled        Code = "ERR_CANCELED"          // the run was interrupted or canceled
	ErrIO              Code = "ERR_IO"                // a file git-agent owns could not be read or written
	ErrInternal        Code = "ERR_INTERNAL"          // a bug in git-agent
	ErrNetProxy        Code = "ERR_NET_PROXY"         // the network host list's proxy could not start
)

var catalog = map[Code]int{
	ErrUsage:           ExitUsage,
	ErrNotARepo:        ExitFatal,
	ErrEmptyRepo:       ExitFatal,
	ErrBadRevision:     ExitFatal,
	ErrGitVersion:      ExitFatal,
	ErrGit:             ExitFatal,
	ErrRefClash:        ExitFatal,
	ErrRefRace:         ExitFatal,
	ErrWorktree:        ExitFatal,
	ErrSandbox:         ExitFatal,
	ErrSandboxMissing:  ExitFatal,
	ErrUserns:          ExitFatal,
	ErrCommandNotFound: ExitFatal,
	ErrConfig:          ExitFatal,
	ErrUntrusted:       ExitFatal,
	ErrNoRun:           ExitFatal,
	ErrAmbiguousRun:    ExitFatal,
	ErrRunLive:         ExitFatal,
	ErrRunNotLive:      ExitFatal,
	ErrImport:          ExitFatal,
	ErrNotVerified:     ExitRefused,
	ErrConflict:        ExitRefused,
	ErrDirty:           ExitRefused,
	ErrLandTarget:      ExitRefused,
	ErrDecision:        ExitUsage,
	ErrCanceled:        ExitCanceled,
	ErrIO:              ExitFatal,
	ErrInternal:        ExitFatal,
	ErrNetProxy:        ExitFatal,
}

// Exit returns the process exit status for c; an unknown code is fatal (128).
func (c Code) Exit() int {
	if n, ok := catalog[c]; ok {
		return n
	}
	return ExitFatal
}

// Codes returns every code in the catalog, for documentation and tests.
func Codes() []Code {
	out := make([]Code, 0, len(catalog))
	for c := range catalog {
		out = append(out, c)
	}
	return out
}
