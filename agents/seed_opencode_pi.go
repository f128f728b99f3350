package agents

import "path/filepath"

// opencodeDirs are opencode's XDG directories (each holding an "opencode"
// subdirectory): the host variable, its fallback under HOME, the copy's
// place under the run's HOME, what is left out, and which files are
// credentials (copied read-only). opencode 1.18 keeps every session of
// every project in data/opencode.db (SQLite) and file snapshots in
// data/snapshot: other sessions' transcripts, not settings.
var opencodeDirs = []struct {
	env, fallback string
	skip, creds   []string
}{
	{"XDG_CONFIG_HOME", ".config", nil, nil},
	{"XDG_DATA_HOME", ".local/share",
		[]string{"storage", "snapshot", "log", "bin", "repos", "tool-output",
			"opencode.db", "opencode.db-wal", "opencode.db-shm", "auth.json", "mcp-auth.json"},
		[]string{"auth.json", "mcp-auth.json"}},
	{"XDG_STATE_HOME", ".local/state", []string{"locks"}, nil},
}

// seedOpencode copies the user's opencode directories (config: opencode.json,
// plugins, agents, commands; data: auth.json read-only; state: the last
// model and prompt history) into runHome's XDG directories, which Env
// points opencode at. The cache (the model catalog, provider packages) is
// not copied: it is refetched, or served by the bundled copy offline.
func seedOpencode(c *copier, runHome string, h Host) error {
	for _, d := range opencodeDirs {
		src := filepath.Join(h.dir(d.env, d.fallback), "opencode")
		dst := filepath.Join(runHome, d.fallback, "opencode")
		if err := c.tree(src, dst, set(d.skip)); err != nil {
			return err
		}
		for _, f := range d.creds {
			if err := c.file(filepath.Join(src, f), filepath.Join(dst, f), 0o400); err != nil {
				return err
			}
		}
	}
	return nil
}

// piSkip is what the copy of pi's agent directory leaves out: the sessions
// of other runs, the debug log, and auth.json (copied read-only apart).
var piSkip = []string{"sessions", "pi-debug.log", "auth.json"}

// seedPi copies pi's agent directory ($PI_CODING_AGENT_DIR, else
// ~/.pi/agent: settings.json, models.json, AGENTS.md, prompts, skills,
// extensions, themes, the managed fd/rg in bin) to runHome/.pi/agent, where
// pi looks when PI_CODING_AGENT_DIR is unset (it is not passed through),
// and auth.json read-only.
func seedPi(c *copier, runHome string, h Host) error {
	src := h.dir("PI_CODING_AGENT_DIR", ".pi/agent")
	dst := filepath.Join(runHome, ".pi", "agent")
	if err := c.tree(src, dst, set(piSkip)); err != nil {
		return err
	}
	return c.file(filepath.Join(src, "auth.json"), filepath.Join(dst, "auth.json"), 0o400)
}
