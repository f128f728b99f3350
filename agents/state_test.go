package agents

import (
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuiltin(t *testing.T) {
	f, err := Builtin()
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"claude", "codex", "opencode", "pi"} {
		tool, ok := f.Tools[name]
		if !ok || len(tool.Command) == 0 || len(tool.Env) == 0 || len(Hosts(name)) == 0 {
			t.Errorf("%s: profile incomplete: %+v", name, tool)
		}
		for _, tmpl := range [][]string{tool.Prompt, tool.Repair} {
			if !strings.Contains(strings.Join(tmpl, " "), "{prompt}") {
				t.Errorf("%s: template %v lacks {prompt}", name, tmpl)
			}
		}
		if f.Has("tools." + name + ".network") {
			t.Errorf("%s: a built-in network would override the user's global one", name)
		}
	}
}

func write(t *testing.T, p, s string) {
	t.Helper()
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSeedClaude(t *testing.T) {
	home, run, wt := t.TempDir(), t.TempDir(), t.TempDir()
	write(t, filepath.Join(home, ".claude", "settings.json"), `{"hooks":{}}`)
	write(t, filepath.Join(home, ".claude", ".credentials.json"), `{"token":"x"}`)
	write(t, filepath.Join(home, ".claude", "projects", "old", "t.jsonl"), "transcript")
	write(t, filepath.Join(home, "secret"), "host secret")
	os.Symlink(filepath.Join(home, "secret"), filepath.Join(home, ".claude", "link"))
	if ln, err := net.Listen("unix", filepath.Join(home, ".claude", "sock")); err == nil {
		defer ln.Close()
	}
	write(t, filepath.Join(home, ".claude.json"), `{"userID":"u","projects":{"/elsewhere":{"hasTrustDialogAccepted":false}}}`)
	h := Host{Home: home, Root: true}
	if _, err := Seed("claude", run, wt, h); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(run, ".claude")
	if b, _ := os.ReadFile(filepath.Join(dst, "settings.json")); string(b) != `{"hooks":{}}` {
		t.Errorf("settings.json = %q", b)
	}
	if fi, err := os.Stat(filepath.Join(dst, ".credentials.json")); err != nil || fi.Mode().Perm() != 0o400 {
		t.Errorf("credentials: %v %v, want mode 0400", fi, err)
	}
	for _, gone := range []string{"projects", "link", "sock"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s was copied", gone)
		}
	}
	var cfg struct {
		UserID   string                    `json:"userID"`
		Projects map[string]map[string]any `json:"projects"`
	}
	b, _ := os.ReadFile(filepath.Join(dst, ".claude.json"))
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatal(err)
	}
	if cfg.UserID != "u" || cfg.Projects[wt]["hasTrustDialogAccepted"] != true || cfg.Projects["/elsewhere"] == nil {
		t.Errorf(".claude.json = %s", b)
	}
	if b, _ := os.ReadFile(filepath.Join(home, ".claude.json")); strings.Contains(string(b), wt) {
		t.Error("the user's .claude.json was written")
	}
	env := strings.Join(Env("claude", run, h), " ")
	if !strings.Contains(env, "CLAUDE_CONFIG_DIR="+dst) || !strings.Contains(env, "IS_SANDBOX=1") {
		t.Errorf("Env = %s", env)
	}
	if strings.Contains(strings.Join(Env("claude", run, Host{}), " "), "IS_SANDBOX") {
		t.Error("IS_SANDBOX set for a non-root user")
	}
}

func TestSeedCodexAndOthers(t *testing.T) {
	home, run, wt := t.TempDir(), t.TempDir(), t.TempDir()
	codexHome := filepath.Join(t.TempDir(), "codex")
	write(t, filepath.Join(codexHome, "config.toml"), "model = \"o3\"")
	write(t, filepath.Join(codexHome, "auth.json"), `{}`)
	write(t, filepath.Join(codexHome, "sessions", "s.jsonl"), "x")
	write(t, filepath.Join(home, ".config", "opencode", "opencode.json"), "{}")
	write(t, filepath.Join(home, ".local", "share", "opencode", "auth.json"), "{}")
	write(t, filepath.Join(home, ".pi", "agent", "settings.json"), "{}")
	h := Host{Home: home, Getenv: func(k string) string {
		if k == "CODEX_HOME" {
			return codexHome
		}
		return ""
	}}
	for _, tool := range []string{"codex", "opencode", "pi", "unknown"} {
		if _, err := Seed(tool, run, wt, h); err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
	}
	b, _ := os.ReadFile(filepath.Join(run, ".codex", "config.toml"))
	if !strings.HasPrefix(string(b), "model = \"o3\"\n[projects.\""+wt+"\"]\ntrust_level = \"trusted\"\n") {
		t.Errorf("codex config.toml = %q", b)
	}
	for _, p := range []string{".codex/auth.json", ".config/opencode/opencode.json", ".local/share/opencode/auth.json", ".pi/agent/settings.json"} {
		if _, err := os.Stat(filepath.Join(run, p)); err != nil {
			t.Errorf("%s not copied: %v", p, err)
		}
	}
	if _, err := os.Stat(filepath.Join(run, ".codex", "sessions")); err == nil {
		t.Error("codex sessions copied")
	}
}

func TestCopyBounds(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	big := make([]byte, MaxFileBytes+1)
	write(t, filepath.Join(src, "big"), string(big))
	write(t, filepath.Join(src, "small"), "s")
	c := &copier{}
	if err := c.tree(src, filepath.Join(dst, "out"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dst, "out", "big")); err == nil || len(c.warnings) != 1 {
		t.Errorf("big file copied or not warned: %v", c.warnings)
	}
	if _, err := os.Stat(filepath.Join(dst, "out", "small")); err != nil {
		t.Error(err)
	}
}

// TestSeedOpencodePi: the settings come in, credentials read-only, and
// other sessions (opencode.db, pi's sessions) and logs stay out; the host
// directories are found through their variables.
func TestSeedOpencodePi(t *testing.T) {
	home, run, wt := t.TempDir(), t.TempDir(), t.TempDir()
	xdgData, piDir := t.TempDir(), filepath.Join(t.TempDir(), "pi")
	for p, s := range map[string]string{
		".config/opencode/opencode.json":          `{"model":"a/b"}`,
		".config/opencode/agent/review.md":        "agent",
		".local/state/opencode/model.json":        `{"recent":[]}`,
		".local/state/opencode/locks/x.lock/meta": "lock",
	} {
		write(t, filepath.Join(home, p), s)
	}
	for p, s := range map[string]string{"opencode/auth.json": `{"k":1}`, "opencode/opencode.db": "db",
		"opencode/opencode.db-wal": "wal", "opencode/snapshot/x": "snap", "opencode/log/l.log": "log"} {
		write(t, filepath.Join(xdgData, p), s)
	}
	for p, s := range map[string]string{"models.json": "{}", "settings.json": "{}", "auth.json": "{}",
		"sessions/--wt--/s.jsonl": "transcript", "pi-debug.log": "log", "prompts/p.md": "p"} {
		write(t, filepath.Join(piDir, p), s)
	}
	write(t, filepath.Join(home, ".pi", "agent", "models.json"), `{"not":"this one"}`)
	h := Host{Home: home, Getenv: func(k string) string {
		return map[string]string{"XDG_DATA_HOME": xdgData, "PI_CODING_AGENT_DIR": piDir}[k]
	}}
	for _, tool := range []string{"opencode", "pi"} {
		if w, err := Seed(tool, run, wt, h); err != nil || len(w) != 0 {
			t.Fatalf("%s: %v %v", tool, w, err)
		}
	}
	for _, tc := range []struct {
		path string
		mode os.FileMode // 0: absent
	}{
		{".config/opencode/opencode.json", 0o600},
		{".config/opencode/agent/review.md", 0o600},
		{".local/state/opencode/model.json", 0o600},
		{".local/state/opencode/locks", 0},
		{".local/share/opencode/auth.json", 0o400},
		{".local/share/opencode/opencode.db", 0},
		{".local/share/opencode/opencode.db-wal", 0},
		{".local/share/opencode/snapshot", 0},
		{".local/share/opencode/log", 0},
		{".pi/agent/models.json", 0o600},
		{".pi/agent/settings.json", 0o600},
		{".pi/agent/prompts/p.md", 0o600},
		{".pi/agent/auth.json", 0o400},
		{".pi/agent/sessions", 0},
		{".pi/agent/pi-debug.log", 0},
	} {
		fi, err := os.Stat(filepath.Join(run, tc.path))
		switch {
		case tc.mode == 0 && err == nil:
			t.Errorf("%s was copied", tc.path)
		case tc.mode != 0 && (err != nil || fi.Mode().Perm() != tc.mode):
			t.Errorf("%s: %v %v, want mode %v", tc.path, fi, err, tc.mode)
		}
	}
	if b, _ := os.ReadFile(filepath.Join(run, ".pi", "agent", "models.json")); string(b) != "{}" {
		t.Errorf("pi models.json = %q, want PI_CODING_AGENT_DIR's", b)
	}
	env := strings.Join(Env("opencode", run, h), " ")
	if !strings.Contains(env, "XDG_DATA_HOME="+filepath.Join(run, ".local", "share")) {
		t.Errorf("opencode Env = %s", env)
	}
}
