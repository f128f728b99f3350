package run

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-agent/git-agent/sandbox"
)

// view is what a sandboxed step of a run sees beyond the system view: the
// directories it may write, the files bound over them, its HOME, caches and
// environment.
type view struct {
	// work is the directory the step works in (rw): the run's worktree or a
	// check checkout.
	work string
	// gitFile, when set, is bound read-only over work/.git so that git
	// inside uses gitDir.
	gitFile, gitDir string
	// home is the step's HOME (rw).
	home string
	// cache is the toolchain cache directory (rw).
	cache string
	// objectDirs are the user's object directories (ro, for alternates).
	objectDirs []string
	// extra are further binds (tool command, PATH toolchains, config mounts).
	extra []sandbox.Bind
	// files are single files bound rw (the decision file).
	files []string
	// env is the environment before toolchain variables are added.
	env []string
	// network is "on" or "off".
	network string
	// proxy, when set, is the host-side proxy socket for a host list
	// (network is then "off").
	proxy string
	// backend is the sandbox backend (sandbox.Choose); empty means bwrap.
	backend string
	// masks hide paths (config "hide", see hideMasks); applied last, after
	// the writable binds they sit in.
	masks []sandbox.Bind
	// excludes are the exclude pathspecs of the masked worktree paths, for
	// the staging step.
	excludes []string
}

// policy turns v into a sandbox policy running argv in dir. Bind order:
// system view, read-only object dirs, toolchains, caches, HOME, work tree,
// then the files inside writable directories (DESIGN.md invariant 2: a
// read-only file inside a writable bind must come after it), then the
// masks of hidden paths.
func (v view) policy(self, dir string, argv []string) sandbox.Policy {
	var binds []sandbox.Bind
	for _, d := range v.objectDirs {
		binds = append(binds, sandbox.Bind{Src: d, Dst: d, Mode: sandbox.RO})
	}
	modDL := userModDownload()
	if modDL != "" {
		binds = append(binds, sandbox.Bind{Src: modDL, Dst: modDL, Mode: sandbox.RO})
	}
	binds = append(binds, v.extra...)
	binds = append(binds,
		sandbox.Bind{Src: v.cache, Dst: v.cache, Mode: sandbox.RW},
		sandbox.Bind{Src: v.home, Dst: v.home, Mode: sandbox.RW},
		sandbox.Bind{Src: v.work, Dst: v.work, Mode: sandbox.RW})
	if v.gitDir != "" {
		binds = append(binds, sandbox.Bind{Src: v.gitDir, Dst: v.gitDir, Mode: sandbox.RW})
	}
	for _, f := range v.files {
		binds = append(binds, sandbox.Bind{Src: f, Dst: f, Mode: sandbox.RW})
	}
	if v.gitFile != "" {
		binds = append(binds, sandbox.Bind{Src: v.gitFile, Dst: filepath.Join(v.work, ".git"), Mode: sandbox.RO})
	}
	binds = append(binds, v.masks...)
	env := setEnv(v.env, "HOME="+v.home, "PWD="+dir)
	env = setEnv(env, toolchainEnv(v.cache, modDL, v.network == "on")...)
	if v.proxy != "" {
		env = setEnv(env, sandbox.ProxyEnv()...)
	}
	env = sandbox.PrependPath(env)
	return sandbox.Policy{System: sandbox.SystemBinds(), Binds: binds, Env: env, Dir: dir, Network: v.network, Proxy: v.proxy, Argv: argv, Self: self, Backend: v.backend}
}

// setEnv returns env with each KEY=VALUE of kvs replacing any earlier
// entry for KEY.
func setEnv(env []string, kvs ...string) []string {
	out := make([]string, 0, len(env)+len(kvs))
	drop := map[string]bool{}
	for _, kv := range kvs {
		k, _, _ := strings.Cut(kv, "=")
		drop[k] = true
	}
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if !drop[k] {
			out = append(out, kv)
		}
	}
	return append(out, kvs...)
}

// mkdirs creates each directory (0700) that a bind needs as its source.
func mkdirs(dirs ...string) error {
	for _, d := range dirs {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return err
		}
	}
	return nil
}

// policyDigest returns "sha256:<hex>" of the bwrap argument list of p (the
// environment is not included: it may hold passed-through credentials).
func policyDigest(p sandbox.Policy) string {
	args, err := sandbox.BwrapArgs(p)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(strings.Join(args, "\x00")))
	return "sha256:" + hex.EncodeToString(sum[:])
}
