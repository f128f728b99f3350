package config

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

const goodConfig = `# comment
worktrees = "~/wt"
branch_prefix = "bots/"

[global]
inherit_env = false
network = ["api.anthropic.com", "*.github.com:443", "10.0.0.1"]
mount = ["~/data:ro", "/opt/sdk"]
env = [
  "CI=1",
  "GITHUB_TOKEN",
]

[tools.claude]
command = ["claude"]
prompt = ["claude", "-p", "{prompt}"]
network = "off"
sandbox = "bwrap"

[verify]
max_attempts = 5
parallel = true

[[setup]]
command = "npm ci"

[[checks]]
name = "test"
command = ["go", "test", "./..."]
timeout = "5m"
env = ["CGO_ENABLED=0"]

[[checks]]
command = "make lint && echo ok"
`

func TestParseGood(t *testing.T) {
	f, err := Parse("cfg.toml", []byte(goodConfig))
	if err != nil {
		t.Fatal(errfmt.As(err).Format())
	}
	if f.Worktrees != "~/wt" || f.BranchPrefix != "bots/" {
		t.Errorf("top: %q %q", f.Worktrees, f.BranchPrefix)
	}
	if n := f.Global.Network; n == nil || n.Mode != NetworkHosts || len(n.Hosts) != 3 {
		t.Errorf("global network = %+v", n)
	}
	if f.Global.InheritEnv == nil || *f.Global.InheritEnv {
		t.Errorf("inherit_env = %v", f.Global.InheritEnv)
	}
	cl := f.Tools["claude"]
	if cl.Network.Mode != NetworkOff || cl.Sandbox != "bwrap" || cl.Prompt[2] != "{prompt}" {
		t.Errorf("claude = %+v", cl)
	}
	if f.Verify != (Verify{MaxAttempts: 5, Parallel: true}) {
		t.Errorf("verify = %+v", f.Verify)
	}
	if len(f.Setup) != 1 || strings.Join(f.Setup[0].Argv, "|") != "sh|-c|npm ci" || f.Setup[0].Name != "npm ci" {
		t.Errorf("setup = %+v", f.Setup)
	}
	if len(f.Checks) != 2 {
		t.Fatalf("checks = %+v", f.Checks)
	}
	c0, c1 := f.Checks[0], f.Checks[1]
	if c0.Name != "test" || strings.Join(c0.Argv, " ") != "go test ./..." || c0.Timeout != 5*time.Minute || c0.Env[0] != "CGO_ENABLED=0" {
		t.Errorf("check 0 = %+v", c0)
	}
	if strings.Join(c1.Argv, "|") != "sh|-c|make lint && echo ok" || c1.Timeout != DefaultTimeout || c1.Name != "make lint && echo ok" {
		t.Errorf("check 1 = %+v", c1)
	}
	for key, want := range map[string]Position{
		"worktrees":              {2, 1},
		"global.network":         {7, 1},
		"tools.claude.sandbox":   {18, 1},
		"checks[0].timeout":      {30, 1},
		"checks[1].command":      {34, 1},
		"verify.max_attempts":    {21, 1},
		"tools.claude":           {14, 1},
		"setup":                  {24, 1},
		"global.env":             {9, 1},
		"tools.claude.inherit_x": {},
	} {
		if got := f.Pos(key); got != want {
			t.Errorf("Pos(%q) = %v, want %v", key, got, want)
		}
	}
	if !f.Has("checks") || f.Has("tools.claude.mount") || !f.Has("global.inherit_env") {
		t.Errorf("Has wrong")
	}
}

func TestParseBad(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"unknown top key", "worktrees = \"x\"\n\nmystery = 1\n", "cfg.toml:3:1: unknown key \"mystery\""},
		{"unknown tool key", "[global]\ninherit_env = true\nmout = []\n", ":3:1: unknown key \"global.mout\" (did you mean \"mount\"?)"},
		{"unknown check key", "[[checks]]\ncommand = \"x\"\n  timout = \"1m\"\n", ":3:3: unknown key \"checks[0].timout\""},
		{"duplicate table", "[global]\nnetwork = true\n[global]\nnetwork = false\n", "cfg.toml:3:"},
		{"duplicate key", "[verify]\nparallel = true\nparallel = false\n", "cfg.toml:3:"},
		{"syntax", "[global\n", "to end table name"},
		{"bad bool", "[global]\ninherit_env = \"yes\"\n", ":2:1: global.inherit_env: want true or false, got a string"},
		{"bad network", "[global]\nnetwork = \"maybe\"\n", ":2:1: global.network:"},
		{"empty host list", "[global]\nnetwork = []\n", "empty host list"},
		{"bad host", "[global]\nnetwork = [\"http://x\"]\n", "not a host name"},
		{"bad sandbox", "[tools.x]\nsandbox = \"docker\"\n", ":2:1: tools.x.sandbox:"},
		{"command string", "[tools.x]\ncommand = \"claude -p\"\n", "want an argv array"},
		{"prompt without placeholder", "[tools.x]\nprompt = [\"x\"]\n", "{prompt}"},
		{"bad duration", "[[checks]]\ncommand = \"x\"\ntimeout = \"5 minutes\"\n", ":3:1: checks[0].timeout: \"5 minutes\" is not a duration"},
		{"int duration", "[[checks]]\ncommand = \"x\"\ntimeout = 300\n", "want a duration string"},
		{"negative duration", "[[checks]]\ncommand = \"x\"\ntimeout = \"-1s\"\n", "must be positive"},
		{"missing command", "[[checks]]\nname = \"x\"\n", ":1:1: checks[0]: missing command"},
		{"bare env in check", "[[checks]]\ncommand = \"x\"\nenv = [\"HOME\"]\n", "want KEY=VALUE"},
		{"bad env name", "[global]\nenv = [\"1X=2\"]\n", "not a variable name"},
		{"max attempts range", "[verify]\nmax_attempts = 0\n", "outside 1..50"},
		{"max attempts type", "[verify]\nmax_attempts = \"3\"\n", "want an integer"},
		{"branch prefix", "branch_prefix = \"agent\"\n", "end with \"/\""},
		{"branch prefix dots", "branch_prefix = \"a..b/\"\n", "not a valid ref name"},
		{"checks not array", "checks = 1\n", "want an array of tables"},
		{"mount ro only", "[global]\nmount = [\":ro\"]\n", "has no path"},
		{"second check bad", "[[checks]]\ncommand = \"a\"\n\n[[checks]]\ncommand = []\n", ":5:1: checks[1].command: must name a program"},
		{"multiline array then unknown", "[global]\nenv = [\n  \"A=[\",\n  \"B=]\",\n]\nbogus = 1\n", ":6:1: unknown key \"global.bogus\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("cfg.toml", []byte(tt.text))
			if err == nil {
				t.Fatal("no error")
			}
			var e *errfmt.Error
			if !errors.As(err, &e) || e.Code != errfmt.ErrConfig {
				t.Fatalf("not an ErrConfig: %#v", err)
			}
			if !strings.Contains(e.What, tt.want) {
				t.Errorf("What = %q, want it to contain %q", e.What, tt.want)
			}
			if !strings.HasPrefix(e.What, "cfg.toml:") {
				t.Errorf("What = %q does not start with the path", e.What)
			}
			if _, err := errfmt.Parse(e.Format()); err != nil {
				t.Errorf("not 4-line: %v", err)
			}
		})
	}
}

func TestParseEmptyListsPresent(t *testing.T) {
	f, err := Parse("c", []byte("checks = []\n[global]\nmount = []\nhide = []\n"))
	if err != nil {
		t.Fatal(err)
	}
	if !f.Has("checks") || f.Checks == nil || len(f.Checks) != 0 {
		t.Errorf("checks = %#v", f.Checks)
	}
	if f.Global.Mount == nil || f.Global.Hide == nil {
		t.Errorf("empty lists must be non-nil: %#v", f.Global)
	}
}

func TestNetworkForms(t *testing.T) {
	for text, want := range map[string]string{
		"true": NetworkOn, "false": NetworkOff, `"on"`: NetworkOn, `"off"`: NetworkOff, `["a.example"]`: NetworkHosts,
	} {
		f, err := Parse("c", []byte("[global]\nnetwork = "+text+"\n"))
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		if f.Global.Network.Mode != want {
			t.Errorf("%s: mode %q, want %q", text, f.Global.Network.Mode, want)
		}
	}
}
