package run

import (
	"context"
	"os"
	"strings"

	"github.com/git-agent/git-agent/agents"
	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/errfmt"
	"github.com/git-agent/git-agent/gitx"
)

// ProjectConfigPaths are where a project keeps its config, first found
// wins: git-agent's own, then agent-run's.
var ProjectConfigPaths = []string{".git-agent/config.toml", ".agent-run/config.toml"}

// ProjectConfig returns the project config committed at rev: its path in
// the tree, its bytes, and false when rev has none.
func ProjectConfig(ctx context.Context, repo *gitx.Repo, rev string) (string, []byte, bool, error) {
	for _, p := range ProjectConfigPaths {
		data, ok, err := repo.ReadBlob(ctx, rev, p)
		if err != nil {
			return "", nil, false, err
		}
		if ok {
			return p, data, true, nil
		}
	}
	return "", nil, false, nil
}

// TrustKey names the repository in the trust store: its common dir.
func TrustKey(repo *gitx.Repo) string { return repo.CommonDir }

// LoadConfig returns the effective config for a run on base: git-agent's
// built-in tool profiles (agents.Builtin), the user's config, the project's config read from the base commit (refused with
// ERR_CONFIG_UNTRUSTED when it widens the policy without "git agent
// trust"), then the --config file. Errors are ERR_CONFIG with file:line.
func LoadConfig(ctx context.Context, repo *gitx.Repo, base, configFile string) (*config.Config, error) {
	builtin, err := agents.Builtin()
	if err != nil {
		return nil, err
	}
	layers := []*config.File{builtin}
	if p := config.UserConfigPath(); p != "" {
		if data, err := os.ReadFile(p); err == nil {
			f, err := config.Parse(p, data)
			if err != nil {
				return nil, err
			}
			layers = append(layers, f)
		}
	}
	path, data, ok, err := ProjectConfig(ctx, repo, base)
	if err != nil {
		return nil, err
	}
	if ok {
		f, err := config.Parse(base[:12]+":"+path, data)
		if err != nil {
			return nil, err
		}
		if err := config.CheckTrust(f, config.DefaultTrustStore(), TrustKey(repo), data); err != nil {
			return nil, err
		}
		layers = append(layers, f)
	}
	if configFile != "" {
		data, err := os.ReadFile(configFile)
		if err != nil {
			return nil, errfmt.Wrap(errfmt.ErrConfig, err, "cannot read --config file", "reading "+configFile, "pass the path of a readable TOML file")
		}
		f, err := config.Parse(configFile, data)
		if err != nil {
			return nil, err
		}
		layers = append(layers, f)
	}
	return config.Merge(layers...), nil
}

// parseNetwork reads --network: "on" (or "true"), "off" (or "false"),
// or a comma-separated host list of dotted names, IP literals or localhost.
func parseNetwork(s string) (config.Network, bool) {
	switch s {
	case "on", "true":
		return config.Network{Mode: "on"}, true
	case "off", "false":
		return config.Network{Mode: "off"}, true
	}
	var hosts []string
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		// A host is a dotted name, an IP literal or localhost: a single
		// word is a typo of on/off, not a host to allow.
		if h == "" || strings.ContainsAny(h, " /@") ||
			(!strings.ContainsAny(h, ".:") && h != "localhost") {
			return config.Network{}, false
		}
		hosts = append(hosts, h)
	}
	return config.Network{Mode: config.NetworkHosts, Hosts: hosts}, len(hosts) > 0
}
