package run

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/sandbox"
)

// ExecOptions is what "git agent exec" was asked to do.
type ExecOptions struct {
	Argv    []string
	Network string
	// Sandbox is the backend (--sandbox): auto, bwrap, landlock or none;
	// empty means $GIT_AGENT_SANDBOX, default auto.
	Sandbox string
	Self    string
	Stdin   io.Reader
	Stdout  io.Writer
	Stderr  io.Writer
}

// Exec runs opts.Argv under the run policy in the current directory, which
// is bound read-write; when it lies in a git repository, that repository's
// git directories are bound read-only over it so the command cannot change
// refs, config or hooks. HOME is a fresh directory removed afterwards.
// opts.Network is "on" (default), "off" or a comma-separated host list
// (served by a proxy whose socket lives in a private temporary directory;
// its one-line summary goes to stderr at the end). It
// returns the command's exit status; err is a sandbox failure (exit 128).
func Exec(ctx context.Context, opts ExecOptions) (int, error) {
	cwd, err := os.Getwd()
	if err != nil {
		return 0, errfmt.Wrap(errfmt.ErrIO, err, "cannot read the current directory", "starting git agent exec", "cd into an existing directory")
	}
	choice, err := chooseBackend(ctx, opts.Sandbox, "")
	if err != nil {
		return 0, err
	}
	if s := choice.Summary(); s != "" && opts.Stderr != nil {
		io.WriteString(opts.Stderr, "git-agent: "+s+"\n")
	}
	home, err := os.MkdirTemp("", "git-agent-exec-home-")
	if err != nil {
		return 0, errfmt.Wrap(errfmt.ErrIO, err, "cannot create a HOME for the command", "starting git agent exec", "check that $TMPDIR is writable")
	}
	defer os.RemoveAll(home)
	cache := filepath.Join(xdgDir("XDG_CACHE_HOME", ".cache"), "git-agent", "exec")
	if err := mkdirs(cacheDirs(cache)...); err != nil {
		return 0, errfmt.Wrap(errfmt.ErrIO, err, "cannot create the exec cache", "creating "+cache, "check that the directory is writable")
	}
	userHome, _ := os.UserHomeDir()
	pathBinds, _ := sandbox.PathBinds(os.Getenv("PATH"), userHome)
	v := view{work: cwd, home: home, cache: cache, extra: pathBinds,
		env: agentEnv(config.Tool{}, os.Environ()), network: "on", backend: choice.Backend}
	if opts.Network != "" && opts.Network != "on" {
		n, ok := parseNetwork(opts.Network)
		if !ok {
			return 0, errfmt.New(errfmt.ErrUsage, "bad --network value: "+opts.Network, "parsing flags", "use --network on, off, or a comma-separated host list")
		}
		v.network = sandboxNetwork(&n)
		np, err := execProxy(ctx, hostList(&n))
		if err != nil {
			return 0, err
		}
		if np != nil {
			v.proxy = np.sock
			defer func() { fmt.Fprintln(opts.Stderr, "git-agent: "+np.stop()) }()
		}
	}
	if repo, err := gitx.Discover(ctx, cwd); err == nil {
		for _, d := range []string{repo.CommonDir, repo.GitDir} {
			if d == cwd || strings.HasPrefix(d, cwd+"/") {
				v.extra = append(v.extra, sandbox.Bind{Src: d, Dst: d, Mode: sandbox.RO})
			}
		}
	}
	p := v.policy(opts.Self, cwd, opts.Argv)
	// The repository binds must come after the writable cwd.
	var late, early []sandbox.Bind
	for _, b := range p.Binds {
		if b.Mode == sandbox.RO && b.Src != cwd && strings.HasPrefix(b.Src, cwd+"/") {
			late = append(late, b)
		} else {
			early = append(early, b)
		}
	}
	p.Binds = append(early, late...)
	if t, ok := sandbox.TerminalOf(opts.Stdin, opts.Stdout); ok {
		return sandbox.RunTerminal(ctx, p, t, opts.Stderr)
	}
	return sandbox.Run(ctx, p, opts.Stdin, opts.Stdout, opts.Stderr)
}
