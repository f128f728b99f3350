package run

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-agent/git-agent/agents"
	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/git-agent/git-agent/verify"
)

// job is one run in progress: its repository, record, layout and config.
type job struct {
	repo   *gitx.Repo
	store  refs.Store
	rec    *refs.Record
	lay    Layout
	cfg    *config.Config
	tool   config.Tool
	opts   Options
	lock   *os.File
	output *os.File
	// cancel cancels the run's context (a double Ctrl-C on its terminal).
	cancel context.CancelFunc
	// pending are host decisions not yet written as notes.
	pending []notes.Decision
	// decOffset is how far the agent's decision file has been imported (bytes).
	decOffset int64
	// The repair loop's state (repair.go): the last verification's check
	// results, the next attempt's repair prompt and its file, and how far
	// the agent's transcripts were imported.
	lastResults  []verify.CheckResult
	repairPrompt string
	feedback     string
	transcripts  agents.Cursor
	// sandbox is the backend chosen for the run.
	sandbox sandbox.Choice
}

// Run performs "git agent run": it creates the run, runs the agent in its
// sandbox, imports and snapshots its work, runs the checks, repairs (see
// loop) and records everything. It returns the final record; err is a user-facing
// *errfmt.Error when the run could not be carried out (a failing check is
// not an error: see the record's Verdict).
func Run(ctx context.Context, repo *gitx.Repo, opts Options) (*refs.Record, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	j, err := prepare(ctx, repo, opts)
	if err != nil {
		return nil, err
	}
	defer j.close()
	if s := j.sandbox.Summary(); s != "" {
		fmt.Fprintln(opts.Stderr, "git-agent: "+s)
	}
	if s := sandbox.ScopeNote(j.rec.Network); s != "" && j.sandbox.Backend == sandbox.BackendBwrap {
		fmt.Fprintln(opts.Stderr, "git-agent: "+s)
	}
	j.cancel = cancel
	fmt.Fprintf(opts.Stderr, "git-agent: run %s of %s in %s\n", j.rec.ID, opts.Tool, j.lay.Worktree)
	fmt.Fprintln(opts.Stdout, j.rec.ID)

	return j.loop(ctx)
}

// prepare validates the request and creates the run: record, runtime dir,
// worktree, scratch repository and HOME. Nothing is created before the
// checks that can fail on bad input have passed.
func prepare(ctx context.Context, repo *gitx.Repo, opts Options) (*job, error) {
	if err := gitx.CheckVersion(ctx); err != nil {
		return nil, err
	}
	head, headRef, err := repo.Head(ctx)
	if err != nil {
		return nil, err
	}
	base := head
	if opts.Base != "" {
		if base, err = repo.ResolveCommit(ctx, opts.Base); err != nil {
			return nil, err
		}
	}
	cfg, err := LoadConfig(ctx, repo, base, opts.ConfigFile)
	if err != nil {
		return nil, err
	}
	toolName := filepath.Base(opts.Tool)
	tool := cfg.Tool(toolName)
	if opts.Network != "" {
		n, ok := parseNetwork(opts.Network)
		if !ok {
			return nil, errfmt.New(errfmt.ErrUsage, "bad --network value: "+opts.Network, "parsing flags", "use --network on, off, or a comma-separated host list")
		}
		tool.Network = &n
	}
	if err := checkHosts(tool.Network); err != nil {
		return nil, err
	}
	// A missing tool is bad input: refuse it before a run exists.
	home, _ := os.UserHomeDir()
	if _, _, err := sandbox.ResolveCommand(promptArgv(tool, opts.Tool, nil, "")[0], os.Getenv("PATH"), home); err != nil {
		return nil, err
	}
	choice, err := chooseBackend(ctx, opts.Sandbox, tool.Sandbox)
	if err != nil {
		return nil, err
	}
	store := refs.Store{Git: repo.Git()}
	id := refs.NewID(time.Now(), rand.Reader)
	prefix := cfg.BranchPrefix
	if prefix == "" {
		prefix = refs.DefaultBranchPrefix
	}
	branch := refs.BranchRef(prefix, id)
	for _, r := range []string{branch, refs.ResultRef(id), refs.RecordRef(id)} {
		if repo.RefExists(ctx, r) {
			return nil, errfmt.New(errfmt.ErrRefClash, "ref "+r+" already exists", "creating run "+id,
				"delete or rename "+r+", or set branch_prefix in the config")
		}
	}
	if err := checkRefNameFree(ctx, repo, branch); err != nil {
		return nil, err
	}
	lay := NewLayout(repo, id, cfg.Worktrees)
	now := time.Now()
	rec := &refs.Record{ID: id, Tool: toolName, Message: opts.Message, Repo: repo.CommonDir,
		Base: base, Branch: branch, Worktree: lay.Worktree, RuntimeDir: lay.Runtime,
		Network: networkString(tool.Network), Backend: choice.Backend, Config: cfg.ChecksDigest()}
	if opts.Base == "" {
		rec.BaseRef = headRef
	}
	rec.SetState(refs.StateCreated, now)
	j := &job{repo: repo, store: store, rec: rec, lay: lay, cfg: cfg, tool: tool, opts: opts, sandbox: choice}
	if err := j.create(ctx); err != nil {
		j.close()
		return nil, err
	}
	return j, nil
}

// create makes the runtime dir, the lock, the record, the worktree, the
// scratch repository and HOME, in that order.
func (j *job) create(ctx context.Context) error {
	ioErr := func(err error, what string) error {
		return errfmt.Wrap(errfmt.ErrIO, err, "cannot create "+what, "creating run "+j.rec.ID, "check that "+j.lay.Runtime+" is writable")
	}
	if err := os.MkdirAll(j.lay.Runtime, 0o700); err != nil {
		return ioErr(err, "the runtime directory")
	}
	lock, err := refs.Lock(j.lay.Lock)
	if err != nil {
		return ioErr(err, "the run's lock")
	}
	j.lock = lock
	if j.output, err = os.OpenFile(j.lay.Output, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600); err != nil {
		return ioErr(err, "output.log")
	}
	if err := j.store.Save(ctx, j.rec, nil, "created"); err != nil {
		return err
	}
	admin, err := j.repo.WorktreeAdd(ctx, j.lay.Worktree, j.rec.Base, "git-agent run "+j.rec.ID)
	if err != nil {
		j.fail(ctx, refs.StateFailed, err.Error())
		return err
	}
	j.rec.AdminDir = admin
	name, _ := j.repo.Git().Run(ctx, "config", "user.name")
	email, _ := j.repo.Git().Run(ctx, "config", "user.email")
	if name == "" {
		name = "git-agent agent"
	}
	if email == "" {
		email = "agent@git-agent.localhost"
	}
	err = gitx.NewScratch(ctx, gitx.Scratch{Dir: j.lay.Scratch, Branch: "refs/heads/" + strings.TrimPrefix(j.rec.Branch, "refs/heads/")},
		j.repo.ObjectDirs(), j.rec.Base, filepath.Join(admin, "index"), [2]string{name, email})
	if err != nil {
		j.fail(ctx, refs.StateFailed, err.Error())
		return err
	}
	if err := os.WriteFile(j.lay.GitFile, gitx.GitFileContent(j.lay.Scratch), 0o644); err != nil {
		return ioErr(err, "the worktree's gitfile")
	}
	f, err := os.OpenFile(j.lay.Decisions, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return ioErr(err, "decisions.jsonl")
	}
	f.Close()
	if err := mkdirs(append(cacheDirs(j.lay.AgentCache), j.lay.Home)...); err != nil {
		return ioErr(err, "the run's HOME and caches")
	}
	return j.store.Save(ctx, j.rec, nil, "worktree "+j.lay.Worktree)
}

// close releases the lock and the output file.
func (j *job) close() {
	if j.output != nil {
		j.output.Close()
	}
	if j.lock != nil {
		j.lock.Close()
	}
}

// checkRefNameFree refuses a branch name that would clash with an existing
// ref as a directory or file (refs/heads/agent being a branch, say).
func checkRefNameFree(ctx context.Context, repo *gitx.Repo, ref string) error {
	parts := strings.Split(ref, "/")
	for i := 3; i < len(parts); i++ {
		p := strings.Join(parts[:i], "/")
		if repo.RefExists(ctx, p) {
			return errfmt.New(errfmt.ErrRefClash, "ref "+p+" exists, so "+ref+" cannot be created",
				"creating the run's branch", "rename "+p+" or set branch_prefix in the config")
		}
	}
	return nil
}

func networkString(n *config.Network) string {
	if n == nil {
		return "on"
	}
	if n.Mode == "hosts" {
		return strings.Join(n.Hosts, ",")
	}
	return n.Mode
}
