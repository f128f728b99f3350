// Command git-agent runs coding agents as isolated, verifiable, recoverable
// jobs: one git worktree and one bubblewrap sandbox per run, the agent's
// work snapshotted into a branch, the project's checks run on a clean
// checkout, and the record, decisions and outcomes stored in git. Installed
// on PATH it is "git agent". See doc/git-agent.1 and DESIGN.md.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/spf13/pflag"
)

// env is what a subcommand gets: its arguments and streams.
type env struct {
	args           []string
	stdin          io.Reader
	stdout, stderr io.Writer
}

// command is one subcommand: a one-line summary, its usage, and its body,
// which returns the exit status or an error (printed in the 4-line form).
type command struct {
	summary string
	usage   string
	run     func(ctx context.Context, e env) (int, error)
}

func commands() map[string]command {
	return map[string]command{
		"run":     {"run an agent; prints the id, exits with the verdict", "run [flags] <tool> [<tool args>...]", cmdRun},
		"ls":      {"runs, newest first", "ls [--json]", cmdLs},
		"show":    {"record, outcome, diffstat", "show <run> [--json]", cmdShow},
		"log":     {"decisions and outcomes in time order", "log [<run>|<rev>] [--json]", cmdLog},
		"logs":    {"the agent's terminal output", "logs <run>", cmdLogs},
		"diff":    {"base..result", "diff <run>", cmdDiff},
		"verify":  {"check the run's branch tip again; exit 0 passed, 1 failed", "verify <run>", cmdVerify},
		"land":    {"merge a verified run into the branch it started from", "land <run> [--into <branch>] [--force]", cmdLand},
		"cancel":  {"stop a live run cleanly (its work is snapshotted, state canceled)", "cancel <run>", cmdCancel},
		"rm":      {"remove a run's worktree (the record stays unless --purge)", "rm <run> [--purge]", cmdRm},
		"gc":      {"recover interrupted runs, remove landed and discarded runs' worktrees", "gc [--all] [--purge]", cmdGC},
		"decide":  {"(inside the sandbox) append a decision", "decide <decision> --why <rationale> [--tool NAME]", cmdDecide},
		"exec":    {"any command under the run policy, in the cwd", "exec [--network on|off|<host,...>] -- <cmd> [<args>...]", cmdExec},
		"trust":   {"accept this repository's widening config", "trust", cmdTrust},
		"doctor":  {"what works here, and the exact fix for what does not", "doctor", cmdDoctor},
		"version": {"print git-agent's version", "version", cmdVersion},
	}
}

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

func main() {
	if len(os.Args) > 1 && os.Args[1] == sandbox.InitCommand {
		os.Exit(sandbox.Init(os.Args[2:]))
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.BridgeCommand {
		os.Exit(sandbox.Bridge())
	}
	if len(os.Args) > 1 && os.Args[1] == sandbox.LandlockInitCommand {
		os.Exit(sandbox.LandlockInit(os.Args[2:]))
	}
	os.Exit(Main(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

// Main runs git-agent with args (without the program name) and returns the
// exit status. It is the whole program, callable from tests.
func Main(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stdout)
		if len(args) == 0 {
			return errfmt.ExitUsage
		}
		return 0
	}
	if args[0] == "--version" {
		args[0] = "version"
	}
	cmd, ok := commands()[args[0]]
	if !ok {
		return report(stderr, errfmt.New(errfmt.ErrUsage, "unknown command: "+args[0], "parsing the command line", "run git agent --help for the list of commands"))
	}
	code, err := cmd.run(ctx, env{args: args[1:], stdin: stdin, stdout: stdout, stderr: stderr})
	if err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			return 0
		}
		return report(stderr, err)
	}
	return code
}

// report prints err in the 4-line form and returns its exit status.
func report(w io.Writer, err error) int {
	e := errfmt.As(err)
	fmt.Fprint(w, e.Format())
	return e.ExitCode()
}

func usage(w io.Writer) {
	fmt.Fprintln(w, "usage: git agent <command> [<args>]")
	fmt.Fprintln(w)
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-8s %s\n", n, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nEach command takes -h. Exit: 0 ok, 1 run failed, 2 land refused, 128 fatal, 129 usage, 130 canceled.")
}

// flags returns a flag set for subcommand name that reports errors in the
// 4-line form (ERR_USAGE) instead of printing pflag's own.
func flags(name string, e env) *pflag.FlagSet {
	fs := pflag.NewFlagSet("git agent "+name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	cmd := commands()[name]
	fs.BoolP("help", "h", false, "show this help")
	_ = cmd
	return fs
}

// parse parses e.args with fs. -h prints the usage to stdout and returns
// pflag.ErrHelp; a bad flag is ERR_USAGE.
func parse(fs *pflag.FlagSet, name string, e env) error {
	err := fs.Parse(e.args)
	if h, _ := fs.GetBool("help"); h || errors.Is(err, pflag.ErrHelp) {
		cmd := commands()[name]
		fmt.Fprintf(e.stdout, "usage: git agent %s\n\n%s\n\n", cmd.usage, cmd.summary)
		fs.SetOutput(e.stdout)
		fs.PrintDefaults()
		return pflag.ErrHelp
	}
	if err != nil {
		return errfmt.New(errfmt.ErrUsage, err.Error(), "parsing git agent "+name+"'s arguments", "run git agent "+name+" -h")
	}
	return nil
}

// usageErr is a usage error for subcommand name.
func usageErr(name, what string) error {
	return errfmt.New(errfmt.ErrUsage, what, "parsing git agent "+name+"'s arguments", "usage: git agent "+commands()[name].usage)
}

// selfPath returns the path of the running git-agent binary: the sandbox's
// init shim and the agent's "git agent". Failure is ERR_IO for command.
func selfPath(command string) (string, error) {
	self, err := os.Executable()
	if err != nil {
		return "", errfmt.Wrap(errfmt.ErrIO, err, "cannot find git-agent's own binary", "starting git agent "+command,
			"run git-agent from an installed path")
	}
	return self, nil
}
