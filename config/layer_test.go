package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/errfmt"
)

func mustParse(t *testing.T, path, text string) *File {
	t.Helper()
	f, err := Parse(path, []byte(text))
	if err != nil {
		t.Fatalf("%s: %s", path, errfmt.As(err).Format())
	}
	return f
}

func TestMergeOrder(t *testing.T) {
	builtin := mustParse(t, "builtin", `
[tools.claude]
command = ["claude"]
prompt = ["claude", "-p", "{prompt}"]
hide = ["a"]
`)
	user := mustParse(t, "user", `
branch_prefix = "mine/"
[global]
network = true
mount = ["~/x"]
hide = ["b"]
[tools.claude]
env = ["ANTHROPIC_API_KEY"]
[verify]
max_attempts = 4
[[checks]]
command = "user-check"
`)
	project := mustParse(t, "project", `
[global]
network = false
hide = ["c", "b"]
[tools.claude]
hide = []
[[checks]]
command = "make test"
[[checks]]
command = ["go", "vet"]
`)
	flags := mustParse(t, "flags", `
[verify]
parallel = true
`)
	c := Merge(builtin, nil, user, project, flags)
	if c.BranchPrefix != "mine/" || c.Verify != (Verify{MaxAttempts: 4, Parallel: true}) || c.Worktrees != "" {
		t.Errorf("top = %q %+v %q", c.BranchPrefix, c.Verify, c.Worktrees)
	}
	if len(c.Checks) != 2 || c.Checks[0].Name != "make test" || c.Setup != nil {
		t.Errorf("checks = %+v setup = %+v", c.Checks, c.Setup)
	}
	tool := c.Tool("claude")
	if tool.Network.Mode != NetworkOff {
		t.Errorf("network = %+v", tool.Network)
	}
	if !slices.Equal(tool.Mount, []string{"~/x"}) || !slices.Equal(tool.Env, []string{"ANTHROPIC_API_KEY"}) ||
		!slices.Equal(tool.Command, []string{"claude"}) {
		t.Errorf("tool = %+v", tool)
	}
	if !slices.Equal(tool.Hide, []string{"b", "c", "a"}) {
		t.Errorf("hide = %v, want accumulated [b c a]", tool.Hide)
	}
	other := c.Tool("codex")
	if other.Command != nil || !slices.Equal(other.Hide, []string{"b", "c"}) {
		t.Errorf("codex = %+v", other)
	}
	// Defaults with no layers.
	d := Merge()
	if d.BranchPrefix != DefaultBranchPrefix || d.Verify.MaxAttempts != DefaultMaxAttempts || d.Checks != nil {
		t.Errorf("defaults = %+v", d)
	}
	// Merge must not alias layer slices.
	tool.Mount[0] = "changed"
	if user.Global.Mount[0] != "~/x" || c.Global.Mount[0] != "~/x" {
		t.Errorf("Merge/Tool alias layer slices")
	}
}

func TestChecksDigest(t *testing.T) {
	a := Merge(mustParse(t, "a", "[[checks]]\ncommand = \"make test\"\n"))
	b := Merge(mustParse(t, "b", "# other file\n[[checks]]\ncommand = [\"sh\", \"-c\", \"make test\"]\nname = \"make test\"\ntimeout = \"10m\"\n"))
	c := Merge(mustParse(t, "c", "[[checks]]\ncommand = \"make test\"\ntimeout = \"11m\"\n"))
	d := Merge(mustParse(t, "d", "[[setup]]\ncommand = \"make test\"\n"))
	if !strings.HasPrefix(a.ChecksDigest(), "sha256:") || len(a.ChecksDigest()) != 7+64 {
		t.Errorf("digest = %q", a.ChecksDigest())
	}
	if a.ChecksDigest() != b.ChecksDigest() {
		t.Errorf("same checks, different digests")
	}
	if a.ChecksDigest() == c.ChecksDigest() || a.ChecksDigest() == d.ChecksDigest() {
		t.Errorf("different checks, same digest")
	}
}

func TestWidening(t *testing.T) {
	tests := []struct {
		name, text string
		want       []string
	}{
		{"narrowing only", `
branch_prefix = "x/"
[global]
network = false
hide = ["/etc", "~/.ssh"]
inherit_env = false
sandbox = "bwrap"
mount = ["build", "./out:ro", "a/../b"]
ro = ["docs"]
env = ["CI=1", "EDITOR", "NODE_ENV=test"]
[verify]
max_attempts = 9
[[checks]]
command = "x"
env = ["API_TOKEN=fake"]
`, nil},
		{"worktrees", `worktrees = "/tmp/x"`, []string{"worktrees"}},
		{"network on", "[global]\nnetwork = true\n", []string{"global.network"}},
		{"network on string", "[tools.a]\nnetwork = \"on\"\n", []string{"tools.a.network"}},
		{"host list", "[global]\nnetwork = [\"example.com\"]\n", []string{"global.network"}},
		{"abs mount", "[global]\nmount = [\"/\"]\n", []string{"global.mount"}},
		{"home mount", "[global]\nmount = [\"build\", \"~/.aws:ro\"]\n", []string{"global.mount"}},
		{"dotdot mount", "[global]\nmount = [\"a/../../x\"]\n", []string{"global.mount"}},
		{"ro outside", "[global]\nro = [\"/home\"]\n", []string{"global.ro"}},
		{"sandbox none", "[global]\nsandbox = \"none\"\n", []string{"global.sandbox"}},
		{"sandbox landlock", "[global]\nsandbox = \"landlock\"\n", []string{"global.sandbox"}},
		{"inherit env", "[global]\ninherit_env = true\n", []string{"global.inherit_env"}},
		{"pass token", "[global]\nenv = [\"GITHUB_TOKEN\"]\n", []string{"global.env"}},
		{"pass ssh agent", "[global]\nenv = [\"ssh_auth_sock\"]\n", []string{"global.env"}},
		{"redirect base url", "[global]\nenv = [\"ANTHROPIC_BASE_URL=http://evil\"]\n", []string{"global.env"}},
		{"proxy", "[global]\nenv = [\"HTTPS_PROXY=http://evil\"]\n", []string{"global.env"}},
		{"ld preload", "[global]\nenv = [\"LD_PRELOAD=/x.so\"]\n", []string{"global.env"}},
		{"command", "[tools.claude]\ncommand = [\"sh\"]\nrepair = [\"x\", \"{prompt}\"]\n", []string{"tools.claude.command", "tools.claude.repair"}},
		{"ordered by line", "[tools.b]\nsandbox = \"none\"\n[global]\nnetwork = true\n", []string{"tools.b.sandbox", "global.network"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := mustParse(t, "p", tt.text)
			if got := Widening(f); !reflect.DeepEqual(got, tt.want) {
				t.Errorf("Widening = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCredentialLike(t *testing.T) {
	for name, want := range map[string]bool{
		"GITHUB_TOKEN": true, "anthropic_api_key": true, "AWS_REGION": true, "DB_PASSWORD": true,
		"CLIENT_SECRET": true, "GOOGLE_APPLICATION_CREDENTIALS": true, "DISPLAY": true, "NPM_CONFIG__AUTH": true,
		"PATH": false, "HOME": false, "GIT_AUTHOR_NAME": false, "KEYBOARD": false, "TERM": false, "LANG": false,
	} {
		if got := CredentialLike(name); got != want {
			t.Errorf("CredentialLike(%q) = %v", name, got)
		}
	}
}

func TestMountHelpers(t *testing.T) {
	for in, want := range map[string]struct {
		p  string
		ro bool
	}{"~/a:ro": {"~/a", true}, "/b:rw": {"/b", false}, "c": {"c", false}, "d:e": {"d:e", false}} {
		p, ro := SplitMount(in)
		if p != want.p || ro != want.ro {
			t.Errorf("SplitMount(%q) = %q %v", in, p, ro)
		}
	}
	if got := ExpandHome("~/x/y", "/h"); got != "/h/x/y" {
		t.Errorf("ExpandHome = %q", got)
	}
	if ExpandHome("~", "/h") != "/h" || ExpandHome("~bob/x", "/h") != "~bob/x" || ExpandHome("/a", "/h") != "/a" {
		t.Errorf("ExpandHome edge cases")
	}
}

func TestTrust(t *testing.T) {
	dir := t.TempDir()
	store := TrustStore{Path: filepath.Join(dir, "sub", "trust")}
	data := []byte("[global]\nnetwork = true\nmount = [\"/srv\"]\n")
	f := mustParse(t, "<base>:.git-agent/config.toml", string(data))
	repo := "/src/my repo/.git"

	err := CheckTrust(f, store, repo, data)
	var e *errfmt.Error
	if !errors.As(err, &e) || e.Code != errfmt.ErrUntrusted {
		t.Fatalf("CheckTrust = %v, want ErrUntrusted", err)
	}
	if !strings.HasPrefix(e.What, "<base>:.git-agent/config.toml:2:1: global.network:") || !strings.Contains(e.What, "1 more") {
		t.Errorf("What = %q", e.What)
	}
	if e.Remedy != "review <base>:.git-agent/config.toml, then run: git agent trust" {
		t.Errorf("Remedy = %q", e.Remedy)
	}

	hash := ContentHash(data)
	if ok, err := store.Trusted(repo, hash); ok || err != nil {
		t.Fatalf("Trusted before Add = %v, %v", ok, err)
	}
	for range 2 { // idempotent
		if err := store.Add(repo, hash); err != nil {
			t.Fatal(err)
		}
	}
	if err := store.Add("/other/.git", hash); err != nil {
		t.Fatal(err)
	}
	if ok, err := store.Trusted(repo, hash); !ok || err != nil {
		t.Fatalf("Trusted after Add = %v, %v", ok, err)
	}
	if err := CheckTrust(f, store, repo, data); err != nil {
		t.Errorf("CheckTrust after trust = %v", err)
	}
	// Other content, other repository: not trusted.
	if err := CheckTrust(f, store, repo, append(data, '\n')); err == nil {
		t.Errorf("changed content still trusted")
	}
	if ok, _ := store.Trusted("/src/my", hash); ok {
		t.Errorf("prefix of repo key trusted")
	}
	st, err := os.Stat(store.Path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("store mode = %v, %v", st.Mode(), err)
	}
	b, _ := os.ReadFile(store.Path)
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("store has %d lines:\n%s", n, b)
	}
	if err := store.Add("a\nb", hash); err == nil {
		t.Errorf("newline in key accepted")
	}
	// Narrowing config needs no trust, and no store.
	narrow := mustParse(t, "p", "[global]\nnetwork = false\n")
	if err := CheckTrust(narrow, TrustStore{}, repo, nil); err != nil {
		t.Errorf("narrowing config refused: %v", err)
	}
}

func TestUserConfigPath(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/xdg")
	if got := UserConfigPath(); got != "/xdg/git-agent/config.toml" {
		t.Errorf("UserConfigPath = %q", got)
	}
	if got := DefaultTrustStore().Path; got != "/xdg/git-agent/trust" {
		t.Errorf("trust path = %q", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if got := UserConfigPath(); got != "/home/u/.config/git-agent/config.toml" {
		t.Errorf("UserConfigPath = %q", got)
	}
}
