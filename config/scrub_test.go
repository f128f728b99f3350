package config_test

import (
	"testing"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/sandbox"
)

// TestCredentialLikeCoversScrubEnv keeps config's widening classification
// in step with the sandbox's scrubbing: every variable ScrubEnv drops must
// be CredentialLike, or a project could pass it through without trust.
func TestCredentialLikeCoversScrubEnv(t *testing.T) {
	names := []string{
		"GITHUB_TOKEN", "ANTHROPIC_API_KEY", "OPENAI_APIKEY", "DB_PASSWORD", "SENTRY_DSN", "GH_PAT",
		"AWS_REGION", "AZURE_TENANT", "VAULT_ADDR", "MY_PRIVATE_THING", "BASIC_AUTH", "AUTHORIZATION",
		"DATABASE_URL", "REDIS_URL", "NETRC", "KRB5CCNAME", "NPM_TOKEN", "PGPASSFILE",
		"SSH_AUTH_SOCK", "SSH_AGENT_PID", "GPG_AGENT_INFO", "DBUS_SESSION_BUS_ADDRESS",
		"DISPLAY", "WAYLAND_DISPLAY", "XAUTHORITY", "XDG_RUNTIME_DIR", "DOCKER_HOST",
		"CONTAINER_HOST", "KUBECONFIG", "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE",
		"GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_COMMON_DIR",
		"GIT_EXEC_PATH", "GIT_ASKPASS", "GIT_NAMESPACE", "GIT_CEILING_DIRECTORIES",
		"GIT_PROXY_COMMAND", "GIT_EXTERNAL_DIFF", "GIT_TEMPLATE_DIR", "GIT_REPLACE_REF_BASE",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_SSH_COMMAND", "LD_PRELOAD",
		"LD_LIBRARY_PATH", "LD_AUDIT", "google_application_credentials",
		"PATH", "HOME", "TERM", "LANG", "LC_ALL", "USER", "TZ", "EDITOR", "GIT_AUTHOR_NAME",
		"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GOFLAGS", "KEYBOARD", "CI",
	}
	for _, n := range names {
		dropped := len(sandbox.ScrubEnv([]string{n + "=x"}, nil)) == 0
		if dropped && !config.CredentialLike(n) {
			t.Errorf("sandbox.ScrubEnv drops %s but config.CredentialLike(%q) = false", n, n)
		}
	}
	for _, n := range []string{"PATH", "HOME", "GIT_AUTHOR_NAME", "TERM", "CI"} {
		if config.CredentialLike(n) {
			t.Errorf("CredentialLike(%q) = true", n)
		}
	}
}
