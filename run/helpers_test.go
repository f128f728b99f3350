package run

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/gitx"
)

func TestParseNetwork(t *testing.T) {
	tests := []struct {
		in   string
		want config.Network
		ok   bool
	}{
		{"on", config.Network{Mode: "on"}, true},
		{"off", config.Network{Mode: "off"}, true},
		{"proxy.golang.org", config.Network{Mode: config.NetworkHosts, Hosts: []string{"proxy.golang.org"}}, true},
		{"a.example,b.example:443", config.Network{Mode: config.NetworkHosts, Hosts: []string{"a.example", "b.example:443"}}, true},
		{" a.example , b.example ", config.Network{Mode: config.NetworkHosts, Hosts: []string{"a.example", "b.example"}}, true},
		{"", config.Network{}, false},
		{",", config.Network{}, false},
		{"a.example,,b.example", config.Network{}, false},
		{"a.example,", config.Network{}, false},
		{"a example", config.Network{}, false},
		{"https://a.example", config.Network{}, false},
		{"user@a.example", config.Network{}, false},
		{"true", config.Network{Mode: "on"}, true},
		{"false", config.Network{Mode: "off"}, true},
		{"onn", config.Network{}, false},
		{"localhost", config.Network{Mode: config.NetworkHosts, Hosts: []string{"localhost"}}, true},
		{"127.0.0.1,::1", config.Network{Mode: config.NetworkHosts, Hosts: []string{"127.0.0.1", "::1"}}, true},
	}
	for _, tt := range tests {
		got, ok := parseNetwork(tt.in)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseNetwork(%q) = %+v, %v; want %+v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestPromptArgv(t *testing.T) {
	tests := []struct {
		name    string
		tool    config.Tool
		tname   string
		args    []string
		message string
		want    []string
	}{
		{"bare tool, no message", config.Tool{}, "aider", []string{"--yes"}, "", []string{"aider", "--yes"}},
		{"bare tool, message without template", config.Tool{}, "aider", nil, "fix it", []string{"aider"}},
		{"command, prompt template", config.Tool{Command: []string{"claude", "--verbose"}, Prompt: []string{"-p", "{prompt}"}},
			"claude", []string{"--model", "x"}, "fix the bug", []string{"claude", "--verbose", "-p", "fix the bug", "--model", "x"}},
		{"template embeds the prompt twice", config.Tool{Prompt: []string{"--message=task: {prompt} ({prompt})"}},
			"codex", nil, "go", []string{"codex", "--message=task: go (go)"}},
		{"empty message drops the template", config.Tool{Command: []string{"claude"}, Prompt: []string{"-p", "{prompt}"}},
			"claude", []string{"a"}, "", []string{"claude", "a"}},
		{"message with braces is literal", config.Tool{Prompt: []string{"{prompt}"}},
			"t", nil, "use {prompt} and $HOME", []string{"t", "use {prompt} and $HOME"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmd := append([]string{}, tt.tool.Command...)
			got := promptArgv(tt.tool, tt.tname, tt.args, tt.message)
			if !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("promptArgv = %q, want %q", got, tt.want)
			}
			if !reflect.DeepEqual(cmd, tt.tool.Command) && len(cmd) > 0 {
				t.Fatalf("promptArgv changed the tool's Command: %q", tt.tool.Command)
			}
		})
	}
	// The returned argv does not share the profile's backing array.
	tool := config.Tool{Command: make([]string, 1, 8)}
	tool.Command[0] = "x"
	a := promptArgv(tool, "x", []string{"one"}, "")
	b := promptArgv(tool, "x", []string{"two"}, "")
	if a[1] != "one" || b[1] != "two" {
		t.Fatalf("promptArgv results share storage: %q %q", a, b)
	}
}

func TestSetEnv(t *testing.T) {
	tests := []struct {
		env, kvs, want []string
	}{
		{[]string{"A=1", "B=2", "C=3"}, []string{"B=x"}, []string{"A=1", "C=3", "B=x"}},
		{[]string{"A=1", "B=2", "A=3"}, []string{"A=9", "D=4"}, []string{"B=2", "A=9", "D=4"}},
		{[]string{"A=1", "AB=2"}, []string{"A="}, []string{"AB=2", "A="}},
		{nil, []string{"X=1"}, []string{"X=1"}},
		{[]string{"A=1"}, nil, []string{"A=1"}},
		{[]string{"PATH=/bin", "HOME=/root", "LANG=C"}, []string{"HOME=/h", "PWD=/w"}, []string{"PATH=/bin", "LANG=C", "HOME=/h", "PWD=/w"}},
	}
	for _, tt := range tests {
		in := append([]string{}, tt.env...)
		got := setEnv(tt.env, tt.kvs...)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("setEnv(%q, %q) = %q, want %q", tt.env, tt.kvs, got, tt.want)
		}
		if strings.Join(in, "\x00") != strings.Join(tt.env, "\x00") {
			t.Errorf("setEnv modified its input: %q", tt.env)
		}
	}
}

func TestClip(t *testing.T) {
	ascii := strings.Repeat("a", maxField)
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", ""},
		{"short", "hello ✓", "hello ✓"},
		{"exactly the bound", ascii, ascii},
		{"one over", ascii + "b", ascii + "…"},
		{"rune across the bound", ascii[:maxField-1] + "é", ascii[:maxField-1] + "…"},
		{"3-byte rune across the bound", ascii[:maxField-2] + "✓✓", ascii[:maxField-2] + "…"},
		{"4-byte rune across the bound", ascii[:maxField-1] + "😀", ascii[:maxField-1] + "…"},
		{"rune ending at the bound", ascii[:maxField-2] + "éx", ascii[:maxField-2] + "é…"},
	}
	for _, tt := range tests {
		got := clip(tt.in)
		if got != tt.want {
			t.Errorf("clip(%s) = …%q (len %d), want …%q (len %d)", tt.name, tail(got), len(got), tail(tt.want), len(tt.want))
		}
		if !utf8.ValidString(got) {
			t.Errorf("clip(%s) is not valid UTF-8", tt.name)
		}
		if len(got) > maxField+len("…") {
			t.Errorf("clip(%s) has %d bytes, over the bound", tt.name, len(got))
		}
	}
}

func tail(s string) string {
	if len(s) > 8 {
		return s[len(s)-8:]
	}
	return s
}

func TestRepoKey(t *testing.T) {
	re := regexp.MustCompile(`^[^/]+-[0-9a-f]{12}$`)
	a := &gitx.Repo{Top: "/src/proj", GitDir: "/src/proj/.git", CommonDir: "/src/proj/.git"}
	tests := []struct {
		repo *gitx.Repo
		name string
	}{
		{a, "proj"},
		// A linked worktree is named after its repository: runs started
		// there share the repository's worktree and cache directories.
		{&gitx.Repo{Top: "/src/proj-wt", GitDir: "/src/proj/.git/worktrees/wt", CommonDir: "/src/proj/.git"}, "proj"},
		{&gitx.Repo{GitDir: "/srv/repo.git", CommonDir: "/srv/repo.git"}, "repo"},
		{&gitx.Repo{GitDir: "/srv/bare/.git", CommonDir: "/srv/bare/.git"}, "bare"},
		{&gitx.Repo{Top: "/src/we\x01ird", CommonDir: "/src/we\x01ird/.git"}, "we_ird"},
	}
	for _, tt := range tests {
		k := RepoKey(tt.repo)
		if !re.MatchString(k) || !regexp.MustCompile(`^`+regexp.QuoteMeta(tt.name)+`-[0-9a-f]{12}$`).MatchString(k) {
			t.Errorf("RepoKey(%+v) = %q, want %s-<12 hex>", *tt.repo, k, tt.name)
		}
		if RepoKey(tt.repo) != k {
			t.Errorf("RepoKey is not stable for %+v", *tt.repo)
		}
	}
	// Same common dir, same key (a linked worktree shares its repository's
	// hash); different common dirs, different keys.
	wt := &gitx.Repo{Top: "/elsewhere/proj-wt", GitDir: "/src/proj/.git/worktrees/x", CommonDir: "/src/proj/.git"}
	if RepoKey(wt) != RepoKey(a) {
		t.Errorf("RepoKey differs for the same common dir: %s %s", RepoKey(wt), RepoKey(a))
	}
	b := &gitx.Repo{Top: "/other/proj", GitDir: "/other/proj/.git", CommonDir: "/other/proj/.git"}
	if RepoKey(b) == RepoKey(a) {
		t.Errorf("RepoKey(%s) == RepoKey(%s) = %s", a.CommonDir, b.CommonDir, RepoKey(a))
	}
	sum := sha256.Sum256([]byte("/src/proj/.git"))
	if want := "proj-" + hex.EncodeToString(sum[:6]); RepoKey(a) != want {
		t.Errorf("RepoKey(a) = %s, want %s", RepoKey(a), want)
	}
}

func TestWorktreesDir(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	repo := &gitx.Repo{Top: "/src/proj", GitDir: "/src/proj/.git", CommonDir: "/src/proj/.git"}
	bare := &gitx.Repo{GitDir: "/srv/proj.git", CommonDir: "/srv/proj.git"}
	tests := []struct {
		name       string
		repo       *gitx.Repo
		configured string
		xdg        string
		want       string
	}{
		{"relative", repo, "../wts", "", "/src/wts"},
		{"relative dot", repo, "./.wt", "", "/src/proj/.wt"},
		{"relative in a bare repository", bare, "wts", "", "/srv/proj.git/wts"},
		{"absolute", repo, "/var/wts/", "", "/var/wts"},
		{"tilde slash", repo, "~/agent-wts", "", filepath.Join(home, "agent-wts")},
		{"tilde", repo, "~", "", home},
		{"default under XDG_DATA_HOME", repo, "", "/data", "/data/git-agent/worktrees/" + RepoKey(repo)},
		{"default ignores a relative XDG_DATA_HOME", repo, "", "rel", filepath.Join(home, ".local/share/git-agent/worktrees", RepoKey(repo))},
		{"default without XDG_DATA_HOME", repo, "", "", filepath.Join(home, ".local/share/git-agent/worktrees", RepoKey(repo))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("XDG_DATA_HOME", tt.xdg)
			if got := WorktreesDir(tt.repo, tt.configured); got != tt.want {
				t.Fatalf("WorktreesDir(%q) = %q, want %q", tt.configured, got, tt.want)
			}
		})
	}
	l := NewLayout(repo, "abc123", "/var/wts")
	if l.Worktree != "/var/wts/abc123" || l.Scratch != "/src/proj/.git/agent/runs/abc123/scratch" ||
		l.Decisions != "/src/proj/.git/agent/runs/abc123/decisions.jsonl" {
		t.Fatalf("NewLayout = %+v", l)
	}
}

func TestSignalName(t *testing.T) {
	tests := []struct {
		code int
		want string
	}{
		{137, "SIGKILL"}, {143, "SIGTERM"}, {130, "SIGINT"}, {129, "SIGHUP"}, {139, "SIGSEGV"},
		{128, ""}, {0, ""}, {1, ""}, {2, ""}, {-1, ""}, {255, ""},
	}
	for _, tt := range tests {
		if got := signalName(tt.code); got != tt.want {
			t.Errorf("signalName(%d) = %q, want %q", tt.code, got, tt.want)
		}
	}
}

func TestMatchBase(t *testing.T) {
	tests := []struct {
		pattern, file string
		want          bool
	}{
		{"*_test.go", "a/b/c_test.go", true},
		{"*_test.go", "c_test.go", true},
		{"*_test.go", "c_test.go.orig", false},
		{"Makefile", "sub/Makefile", true},
		{"Makefile", "Makefile.old", false},
		{"go.mod", "pkg/go.mod", true},
		{".github/*", ".github/workflows/ci.yml", true},
		{".github/*", ".githubx/a", false},
		{".github/*", "docs/.github/a", false},
		{".git-agent/*", ".git-agent/config.toml", true},
		{"test_*.py", "tests/test_x.py", true},
		{"test_*.py", "tests/x_test.txt", false},
	}
	for _, tt := range tests {
		if got := matchBase(tt.pattern, tt.file); got != tt.want {
			t.Errorf("matchBase(%q, %q) = %v, want %v", tt.pattern, tt.file, got, tt.want)
		}
	}
}

func realTempDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func mkdir(t *testing.T, p string) string {
	t.Helper()
	if err := os.MkdirAll(p, 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}
