package run

import (
	"io"
	"os"
	"strings"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/sandbox"
)

// Options is what "git agent run" was asked to do.
type Options struct {
	// Tool is the tool name (a profile) or the command to run; Args follow it.
	Tool string
	Args []string
	// Message is the task (-m), given through the profile's prompt template
	// and always as $GIT_AGENT_PROMPT.
	Message string
	// Base is the base revision (default HEAD).
	Base string
	// NoVerify skips the checks.
	NoVerify bool
	// MaxAttempts bounds the attempts (0: config, default 3). This version
	// makes one attempt; the repair loop uses the rest.
	MaxAttempts int
	// Network overrides the tool's network: "on", "off" or a host list.
	Network string
	// Sandbox is --sandbox: auto, bwrap, landlock or none; empty means
	// $GIT_AGENT_SANDBOX, then the tool's config (default auto).
	Sandbox string
	// ConfigFile is --config: a config layer applied after the project's.
	ConfigFile string
	// Self is the host path of the git-agent binary (the sandbox's init shim
	// and the in-sandbox "git agent").
	Self string
	// Stdout and Stderr receive the agent's output and git-agent's progress.
	Stdout, Stderr io.Writer
	// Stdin, when it and Stdout are terminals, makes the agent run on a pty
	// relayed to them (sandbox.RunTerminal); otherwise its stdin is /dev/null.
	Stdin io.Reader
}

// minimalEnvKeys are the variables a tool with inherit_env = false (the
// default) and every check start from: locale, terminal and toolchains.
var minimalEnvKeys = []string{"PATH", "TERM", "LANG", "LC_ALL", "LC_CTYPE", "USER", "LOGNAME", "SHELL", "TZ", "COLORTERM",
	"GOPATH", "GOROOT", "GOFLAGS", "PYENV_ROOT", "PYENV_VERSION", "NODE_PATH", "JAVA_HOME", "RUSTUP_HOME", "VIRTUAL_ENV"}

// agentEnv returns the scrubbed environment for the agent (DESIGN.md
// invariant 7): the host environment (or a minimal one when inherit_env is
// false) without credential-looking variables except those the tool's env
// passes by name, plus the tool's KEY=VALUE entries.
func agentEnv(tool config.Tool, environ []string) []string {
	var pass, set []string
	for _, e := range tool.Env {
		if strings.Contains(e, "=") {
			set = append(set, e)
		} else {
			pass = append(pass, e)
		}
	}
	base := environ
	if tool.InheritEnv == nil || !*tool.InheritEnv {
		base = nil
		for _, kv := range environ {
			k, _, _ := strings.Cut(kv, "=")
			for _, m := range append(append([]string{}, minimalEnvKeys...), pass...) {
				if k == m {
					base = append(base, kv)
				}
			}
		}
	}
	return setEnv(sandbox.ScrubEnv(base, pass), set...)
}

// checkEnv returns the environment for checks: minimal, scrubbed, with the
// check's own entries; never the agent's credentials (invariant 6).
func checkEnv(environ, extra []string) []string {
	var base []string
	for _, kv := range environ {
		k, _, _ := strings.Cut(kv, "=")
		for _, m := range minimalEnvKeys {
			if k == m {
				base = append(base, kv)
			}
		}
	}
	return setEnv(sandbox.ScrubEnv(base, nil), extra...)
}

// mountBinds turns the tool's mount (rw) and ro entries into binds: "~"
// expands to the user's home, relative paths resolve inside worktree
// (DESIGN.md invariant 10), a ":ro" or ":rw" suffix sets the mode, and
// missing paths are reported in warnings and skipped.
func mountBinds(tool config.Tool, worktree string) (binds []sandbox.Bind, warnings []string) {
	home, _ := os.UserHomeDir()
	// Compare against the worktree's real path: a symlink in its own path
	// (a symlinked HOME) must not make every relative mount "outside".
	realWT := realPath(worktree)
	add := func(entry string, mode sandbox.Mode) {
		if s, ok := strings.CutSuffix(entry, ":ro"); ok {
			entry, mode = s, sandbox.RO
		} else if s, ok := strings.CutSuffix(entry, ":rw"); ok {
			entry, mode = s, sandbox.RW
		}
		c, err := resolveConfigPath(entry, home, worktree, realWT)
		switch {
		case err != nil:
			warnings = append(warnings, "mount "+c.path+" does not exist; skipped")
		case c.relative && !c.inside:
			// A relative mount stays inside the worktree even through a
			// committed symlink (DESIGN.md invariant 10).
			warnings = append(warnings, "mount "+c.path+" resolves outside the worktree; skipped")
		default:
			binds = append(binds, sandbox.Bind{Src: c.real, Dst: c.real, Mode: mode})
		}
	}
	for _, m := range tool.Mount {
		add(m, sandbox.RW)
	}
	for _, m := range tool.Ro {
		add(m, sandbox.RO)
	}
	return binds, warnings
}

// promptArgv returns the tool's argv: the profile's command (or the tool
// name itself), then the prompt template with {prompt} replaced by message
// when a message was given, then the user's args.
func promptArgv(tool config.Tool, name string, args []string, message string) []string {
	argv := []string{name}
	if len(tool.Command) > 0 {
		argv = append([]string{}, tool.Command...)
	}
	if message != "" {
		for _, t := range tool.Prompt {
			argv = append(argv, strings.ReplaceAll(t, "{prompt}", message))
		}
	}
	return append(argv, args...)
}
