package config

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
)

// Merge layers files in order (built-in profiles, user, project, --config,
// flags); nil layers are skipped. A later layer wins key by key, in
// [global] and in each [tools.<name>] alike, with two exceptions:
//   - hide lists accumulate (duplicates dropped): a later layer can add a
//     mask but never remove one, so hide is always narrowing;
//   - checks and setup are each replaced as a whole by the last layer that
//     defines them (even as an empty array); they are never concatenated.
//
// Defaults: BranchPrefix DefaultBranchPrefix, Verify.MaxAttempts
// DefaultMaxAttempts. The result shares no slices with the layers.
func Merge(layers ...*File) *Config {
	c := &Config{
		BranchPrefix: DefaultBranchPrefix,
		Tools:        map[string]Tool{},
		Verify:       Verify{MaxAttempts: DefaultMaxAttempts},
	}
	for _, f := range layers {
		if f == nil {
			continue
		}
		if f.Has("worktrees") {
			c.Worktrees = f.Worktrees
		}
		if f.Has("branch_prefix") {
			c.BranchPrefix = f.BranchPrefix
		}
		if f.Has("global") {
			c.Global = overlay(c.Global, f.Global)
		}
		for name, t := range f.Tools {
			c.Tools[name] = overlay(c.Tools[name], t)
		}
		if f.Has("verify.max_attempts") {
			c.Verify.MaxAttempts = f.Verify.MaxAttempts
		}
		if f.Has("verify.parallel") {
			c.Verify.Parallel = f.Verify.Parallel
		}
		if f.Has("checks") {
			c.Checks = cloneChecks(f.Checks)
		}
		if f.Has("setup") {
			c.Setup = cloneChecks(f.Setup)
		}
	}
	return c
}

// Tool returns the policy for the tool called name (the command's basename,
// matched exactly): [global] overlaid key by key with [tools.<name>], hide
// lists accumulating. An unknown name gets [global] alone.
func (c *Config) Tool(name string) Tool {
	t := overlay(Tool{}, c.Global)
	if tt, ok := c.Tools[name]; ok {
		t = overlay(t, tt)
	}
	return t
}

// overlay returns base with every field set in top replacing base's, except
// Hide, which is the union of both in order.
func overlay(base, top Tool) Tool {
	out := Tool{
		InheritEnv: base.InheritEnv,
		Network:    base.Network,
		Mount:      slices.Clone(base.Mount),
		Ro:         slices.Clone(base.Ro),
		Hide:       slices.Clone(base.Hide),
		Env:        slices.Clone(base.Env),
		Command:    slices.Clone(base.Command),
		Prompt:     slices.Clone(base.Prompt),
		Repair:     slices.Clone(base.Repair),
		Sandbox:    base.Sandbox,
	}
	if top.InheritEnv != nil {
		b := *top.InheritEnv
		out.InheritEnv = &b
	}
	if top.Network != nil {
		out.Network = &Network{Mode: top.Network.Mode, Hosts: slices.Clone(top.Network.Hosts)}
	}
	set := func(dst *[]string, src []string) {
		if src != nil {
			*dst = append([]string{}, src...)
		}
	}
	set(&out.Mount, top.Mount)
	set(&out.Ro, top.Ro)
	set(&out.Env, top.Env)
	set(&out.Command, top.Command)
	set(&out.Prompt, top.Prompt)
	set(&out.Repair, top.Repair)
	if top.Hide != nil {
		if out.Hide == nil {
			out.Hide = []string{}
		}
		for _, h := range top.Hide {
			if !slices.Contains(out.Hide, h) {
				out.Hide = append(out.Hide, h)
			}
		}
	}
	if top.Sandbox != "" {
		out.Sandbox = top.Sandbox
	}
	return out
}

func cloneChecks(cs []Check) []Check {
	out := make([]Check, len(cs))
	for i, c := range cs {
		out[i] = Check{Name: c.Name, Argv: slices.Clone(c.Argv), Timeout: c.Timeout, Env: slices.Clone(c.Env)}
	}
	return out
}

// canonicalCheck is the digest encoding of one check; field order and names
// are part of the digest and must not change.
type canonicalCheck struct {
	Name      string   `json:"name"`
	Argv      []string `json:"argv"`
	TimeoutNS int64    `json:"timeout_ns"`
	Env       []string `json:"env"`
}

// ChecksDigest returns "sha256:<hex>" over a canonical JSON encoding of
// Setup then Checks (version tag, names, argv, timeouts in nanoseconds,
// env, all in configured order). Two configs with the same digest run the
// same commands; it is the outcome's "config" field.
func (c *Config) ChecksDigest() string {
	enc := func(cs []Check) []canonicalCheck {
		out := make([]canonicalCheck, 0, len(cs))
		for _, k := range cs {
			out = append(out, canonicalCheck{k.Name, nonNil(k.Argv), int64(k.Timeout), nonNil(k.Env)})
		}
		return out
	}
	doc := struct {
		V      string           `json:"v"`
		Setup  []canonicalCheck `json:"setup"`
		Checks []canonicalCheck `json:"checks"`
	}{"git-agent-checks-1", enc(c.Setup), enc(c.Checks)}
	b, err := json.Marshal(doc)
	if err != nil { // cannot happen: strings and ints only
		panic(err)
	}
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}
