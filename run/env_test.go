package run

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/sandbox"
)

var hostEnviron = []string{
	"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "TERM=xterm", "HOME=/root", "EDITOR=vi",
	"FAKE_TOKEN=s3cret", "ANTHROPIC_API_KEY=sk-1", "GITHUB_TOKEN=ghp_1", "AWS_SECRET_ACCESS_KEY=aws",
	"SSH_AUTH_SOCK=/run/ssh", "NETRC=/root/.netrc", "GIT_DIR=/x/.git", "LD_PRELOAD=/evil.so",
	"DB_PASSWORD=pw", "GOPATH=/root/go",
}

func envMap(env []string) map[string]string {
	m := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	return m
}

func TestAgentEnv(t *testing.T) {
	yes, no := true, false
	credentials := []string{"FAKE_TOKEN", "ANTHROPIC_API_KEY", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY",
		"SSH_AUTH_SOCK", "NETRC", "GIT_DIR", "LD_PRELOAD", "DB_PASSWORD"}
	tests := []struct {
		name   string
		tool   config.Tool
		has    map[string]string
		hasNot []string
	}{
		{"inherit unset: minimal", config.Tool{},
			map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "TERM": "xterm", "GOPATH": "/root/go"},
			append([]string{"EDITOR", "HOME"}, credentials...)},
		{"inherit false: minimal", config.Tool{InheritEnv: &no},
			map[string]string{"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
			append([]string{"EDITOR", "HOME"}, credentials...)},
		{"inherit true keeps the rest", config.Tool{InheritEnv: &yes},
			map[string]string{"PATH": "/usr/bin:/bin", "EDITOR": "vi", "HOME": "/root"},
			credentials},
		{"credential passed by name", config.Tool{Env: []string{"FAKE_TOKEN"}},
			map[string]string{"FAKE_TOKEN": "s3cret", "PATH": "/usr/bin:/bin"},
			[]string{"EDITOR", "ANTHROPIC_API_KEY", "GITHUB_TOKEN"}},
		{"credential passed by name, inherit true", config.Tool{InheritEnv: &yes, Env: []string{"ANTHROPIC_API_KEY"}},
			map[string]string{"ANTHROPIC_API_KEY": "sk-1", "EDITOR": "vi"},
			[]string{"FAKE_TOKEN", "GITHUB_TOKEN"}},
		{"KEY=VALUE entries set and replace", config.Tool{Env: []string{"FOO=bar", "LANG=en_US.UTF-8", "EMPTY="}},
			map[string]string{"FOO": "bar", "LANG": "en_US.UTF-8", "EMPTY": "", "PATH": "/usr/bin:/bin"},
			append([]string{"EDITOR"}, credentials...)},
		{"passing an absent variable adds nothing", config.Tool{Env: []string{"NOT_SET_ANYWHERE"}},
			map[string]string{"PATH": "/usr/bin:/bin"},
			[]string{"NOT_SET_ANYWHERE", "FAKE_TOKEN"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := agentEnv(tt.tool, hostEnviron)
			m := envMap(got)
			for k, v := range tt.has {
				if gv, ok := m[k]; !ok || gv != v {
					t.Errorf("agentEnv lacks %s=%s (has %q)", k, v, got)
				}
			}
			for _, k := range tt.hasNot {
				if _, ok := m[k]; ok {
					t.Errorf("agentEnv keeps %s: %q", k, got)
				}
			}
			if len(m) != len(got) {
				t.Errorf("agentEnv has duplicate keys: %q", got)
			}
		})
	}
}

func TestCheckEnv(t *testing.T) {
	got := checkEnv(hostEnviron, []string{"CI=1", "LANG=C"})
	m := envMap(got)
	if m["PATH"] != "/usr/bin:/bin" || m["CI"] != "1" || m["LANG"] != "C" || m["GOPATH"] != "/root/go" {
		t.Fatalf("checkEnv = %q", got)
	}
	for _, kv := range got {
		k, _, _ := strings.Cut(kv, "=")
		if k == "EDITOR" || k == "HOME" {
			t.Errorf("checkEnv keeps %s (not minimal)", k)
		}
		for _, c := range []string{"TOKEN", "SECRET", "KEY", "PASSWORD", "SSH_AUTH", "NETRC", "GIT_DIR", "LD_"} {
			if strings.Contains(k, c) {
				t.Errorf("checkEnv keeps credential-like %s", kv)
			}
		}
	}
	if len(m) != len(got) {
		t.Errorf("checkEnv has duplicate keys: %q", got)
	}
}

func TestToolchainEnv(t *testing.T) {
	tests := []struct {
		name       string
		goproxy    string
		modDL      string
		network    bool
		wantProxy  string
		wantSumOff bool
	}{
		{"network on, default proxy", "", "", true, "https://proxy.golang.org,direct", false},
		{"network on, user proxy", "https://corp.example/go", "", true, "https://corp.example/go", false},
		{"network on, mod cache first", "", "/home/u/go/pkg/mod/cache/download", true, "file:///home/u/go/pkg/mod/cache/download,https://proxy.golang.org,direct", false},
		{"network off", "https://corp.example/go", "", false, "off", true},
		{"network off, mod cache", "", "/m/dl", false, "file:///m/dl,off", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("GOPROXY", tt.goproxy)
			env := toolchainEnv("/cache", tt.modDL, tt.network)
			m := envMap(env)
			if m["GOPROXY"] != tt.wantProxy {
				t.Errorf("GOPROXY = %q, want %q", m["GOPROXY"], tt.wantProxy)
			}
			if tt.modDL != "" && !strings.HasPrefix(m["GOPROXY"], "file://") {
				t.Errorf("GOPROXY %q does not start with the module cache", m["GOPROXY"])
			}
			if !tt.network && !strings.HasSuffix(m["GOPROXY"], "off") {
				t.Errorf("network off: GOPROXY %q does not end with off", m["GOPROXY"])
			}
			if _, ok := m["GOSUMDB"]; ok != tt.wantSumOff || (ok && m["GOSUMDB"] != "off") {
				t.Errorf("GOSUMDB = %q (set %v), want off only with the network off", m["GOSUMDB"], ok)
			}
			for k, want := range map[string]string{"GOCACHE": "/cache/go-build", "GOMODCACHE": "/cache/go-mod",
				"GOTOOLCHAIN": "local", "PIP_CACHE_DIR": "/cache/pip", "CARGO_HOME": "/cache/cargo",
				"npm_config_cache": "/cache/npm", "XDG_CACHE_HOME": "/cache/xdg"} {
				if m[k] != want {
					t.Errorf("%s = %q, want %q", k, m[k], want)
				}
			}
			// Every cache it names is one cacheDirs creates.
			dirs := map[string]bool{}
			for _, d := range cacheDirs("/cache") {
				dirs[d] = true
			}
			for _, kv := range env {
				_, v, _ := strings.Cut(kv, "=")
				if strings.HasPrefix(v, "/cache/") && !dirs[v] {
					t.Errorf("%s names a directory cacheDirs does not create", kv)
				}
			}
		})
	}
}

func TestMountBinds(t *testing.T) {
	home := realTempDir(t)
	t.Setenv("HOME", home)
	mkdir(t, filepath.Join(home, "sub"))
	wt := realTempDir(t)
	mkdir(t, filepath.Join(wt, "inside", "deep"))
	outside := mkdir(t, filepath.Join(realTempDir(t), "outside"))
	if err := os.Symlink(outside, filepath.Join(wt, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("inside/deep", filepath.Join(wt, "ok-link")); err != nil {
		t.Fatal(err)
	}
	abs := mkdir(t, filepath.Join(realTempDir(t), "abs"))

	tests := []struct {
		name     string
		tool     config.Tool
		want     []sandbox.Bind
		warnings []string // substrings, in order
	}{
		{"absolute rw", config.Tool{Mount: []string{abs}}, []sandbox.Bind{{Src: abs, Dst: abs, Mode: sandbox.RW}}, nil},
		{":ro suffix", config.Tool{Mount: []string{abs + ":ro"}}, []sandbox.Bind{{Src: abs, Dst: abs, Mode: sandbox.RO}}, nil},
		{"ro list", config.Tool{Ro: []string{abs}}, []sandbox.Bind{{Src: abs, Dst: abs, Mode: sandbox.RO}}, nil},
		{"ro list with :rw", config.Tool{Ro: []string{abs + ":rw"}}, []sandbox.Bind{{Src: abs, Dst: abs, Mode: sandbox.RW}}, nil},
		{"tilde", config.Tool{Ro: []string{"~"}}, []sandbox.Bind{{Src: home, Dst: home, Mode: sandbox.RO}}, nil},
		{"tilde path", config.Tool{Mount: []string{"~/sub:ro"}}, []sandbox.Bind{{Src: filepath.Join(home, "sub"), Dst: filepath.Join(home, "sub"), Mode: sandbox.RO}}, nil},
		{"relative inside the worktree", config.Tool{Mount: []string{"inside"}},
			[]sandbox.Bind{{Src: filepath.Join(wt, "inside"), Dst: filepath.Join(wt, "inside"), Mode: sandbox.RW}}, nil},
		{"relative symlink staying inside", config.Tool{Ro: []string{"ok-link"}},
			[]sandbox.Bind{{Src: filepath.Join(wt, "inside", "deep"), Dst: filepath.Join(wt, "inside", "deep"), Mode: sandbox.RO}}, nil},
		{"relative symlink escaping", config.Tool{Mount: []string{"escape"}}, nil, []string{"escape", "outside the worktree"}},
		{"relative dot-dot escaping", config.Tool{Ro: []string{"../" + filepath.Base(wt) + "/../"}}, nil, []string{"outside the worktree"}},
		{"missing absolute", config.Tool{Mount: []string{"/nonexistent/git-agent-test"}}, nil, []string{"/nonexistent/git-agent-test", "does not exist"}},
		{"missing relative", config.Tool{Ro: []string{"nope:ro"}}, nil, []string{filepath.Join(wt, "nope"), "does not exist"}},
		{"mixed", config.Tool{Mount: []string{"escape", abs}, Ro: []string{"/nonexistent/x"}},
			[]sandbox.Bind{{Src: abs, Dst: abs, Mode: sandbox.RW}}, []string{"outside the worktree", "does not exist"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			binds, warnings := mountBinds(tt.tool, wt)
			if !reflect.DeepEqual(binds, tt.want) {
				t.Errorf("binds = %+v, want %+v", binds, tt.want)
			}
			n := 0
			if len(tt.warnings) > 0 {
				n = 1
				if tt.name == "mixed" {
					n = 2
				}
			}
			if len(warnings) != n {
				t.Fatalf("warnings = %q, want %d", warnings, n)
			}
			all := strings.Join(warnings, "\n")
			for _, w := range tt.warnings {
				if !strings.Contains(all, w) {
					t.Errorf("warnings %q lack %q", warnings, w)
				}
			}
		})
	}

	t.Run("worktree path through a symlink", func(t *testing.T) {
		link := filepath.Join(realTempDir(t), "wt-link")
		if err := os.Symlink(wt, link); err != nil {
			t.Fatal(err)
		}
		binds, warnings := mountBinds(config.Tool{Mount: []string{"inside"}}, link)
		want := []sandbox.Bind{{Src: filepath.Join(wt, "inside"), Dst: filepath.Join(wt, "inside"), Mode: sandbox.RW}}
		if !reflect.DeepEqual(binds, want) || len(warnings) != 0 {
			t.Fatalf("mountBinds via %s = %+v, %q; want %+v", link, binds, warnings, want)
		}
		binds, warnings = mountBinds(config.Tool{Mount: []string{"escape"}}, link)
		if len(binds) != 0 || len(warnings) != 1 {
			t.Fatalf("escaping mount via %s = %+v, %q; want skipped", link, binds, warnings)
		}
	})
}
