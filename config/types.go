package config

import (
	"strconv"
	"time"
)

// Defaults applied by Merge and Parse.
const (
	DefaultBranchPrefix = "agent/"
	DefaultMaxAttempts  = 3
	DefaultTimeout      = 10 * time.Minute
	// MaxAttemptsLimit is the largest accepted verify.max_attempts.
	MaxAttemptsLimit = 50
)

// Network modes.
const (
	NetworkOn    = "on"
	NetworkOff   = "off"
	NetworkHosts = "hosts"
)

// Sandbox backends accepted by the sandbox key.
var sandboxes = []string{"auto", "bwrap", "landlock", "none"}

// Network is a tool's network policy. Mode is NetworkOn, NetworkOff or
// NetworkHosts; Hosts is set (non-empty) only for NetworkHosts.
type Network struct {
	Mode  string
	Hosts []string
}

// Tool is the sandbox policy and invocation of one tool (or of [global]).
// A field is unset when nil (pointers and slices) or "" (Sandbox); Parse
// makes every key present in the file non-nil, even an empty array, so a
// layer can clear a list. Unset fields take the meaning documented in the
// package comment (InheritEnv false, Network on, Sandbox "auto").
type Tool struct {
	InheritEnv *bool
	Network    *Network
	// Mount are host paths bound read-write, or read-only with ":ro".
	Mount []string
	// Ro are host paths bound read-only.
	Ro []string
	// Hide are paths masked inside the sandbox.
	Hide []string
	// Env entries are "KEY=VALUE" or a bare "KEY" passed through from the host.
	Env []string
	// Command is the tool's argv; Prompt and Repair are argv templates in
	// which every "{prompt}" is replaced by the task or repair prompt.
	Command, Prompt, Repair []string
	// Sandbox is "auto", "bwrap", "landlock", "none", or "" (unset).
	Sandbox string
}

// Verify is the [verify] table.
type Verify struct {
	// MaxAttempts bounds agent invocations per run, the task included (>= 1).
	MaxAttempts int
	// Parallel runs checks concurrently instead of in order, fail-fast.
	Parallel bool
}

// Check is one [[checks]] or [[setup]] entry.
type Check struct {
	// Name identifies the check; it defaults to the command as written.
	Name string
	// Argv is the command; a TOML string s becomes ["sh", "-c", s].
	Argv []string
	// Timeout bounds the check's run (default DefaultTimeout, always > 0).
	Timeout time.Duration
	// Env entries are "KEY=VALUE", added to the check's environment.
	Env []string
}

// Config is the merged, effective configuration.
type Config struct {
	// Worktrees is the directory for run worktrees ("" = the default under
	// $XDG_DATA_HOME); "~" is not expanded here (see ExpandHome).
	Worktrees string
	// BranchPrefix prefixes run branches; default DefaultBranchPrefix.
	BranchPrefix string
	Global       Tool
	// Tools maps a tool name (the command's basename) to its table.
	Tools  map[string]Tool
	Verify Verify
	Checks []Check
	Setup  []Check
}

// Position is a 1-based line and byte column in a config file; the zero
// value means unknown.
type Position struct {
	Line, Col int
}

// String returns "line:col", or "" for the zero Position.
func (p Position) String() string {
	if p.Line <= 0 {
		return ""
	}
	return strconv.Itoa(p.Line) + ":" + strconv.Itoa(p.Col)
}

// File is one parsed layer. Fields hold the values present in the file;
// Has tells which keys were present and Pos where.
type File struct {
	// Path is the display path given to Parse (e.g. "<base>:.git-agent/config.toml").
	Path         string
	Worktrees    string
	BranchPrefix string
	Global       Tool
	Tools        map[string]Tool
	Verify       Verify
	Checks       []Check
	Setup        []Check

	keys map[string]Position
}

// Has reports whether key was present in the file. Keys are dotted paths:
// "worktrees", "global.network", "tools.claude.mount", "verify.parallel",
// "checks", "checks[0].timeout".
func (f *File) Has(key string) bool {
	_, ok := f.keys[key]
	return ok
}

// Pos returns where key (as for Has) appears in the file; for a key the
// scanner could not place it falls back to the enclosing table, and to the
// zero Position when nothing is known.
func (f *File) Pos(key string) Position {
	return f.keys[key]
}

// Where returns "path:line:col" for key, or just the path when its position
// is unknown.
func (f *File) Where(key string) string {
	if p := f.Pos(key); p.Line > 0 {
		return f.Path + ":" + p.String()
	}
	return f.Path
}
