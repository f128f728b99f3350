package sandbox

import (
	"slices"
	"strings"
	"testing"
)

func TestBwrapArgsGolden(t *testing.T) {
	p := Policy{
		System: []Bind{
			{Src: "/usr", Dst: "/usr", Mode: RO},
			{Src: "usr/bin", Dst: "/bin", Mode: Symlink},
			{Src: "/etc", Dst: "/etc", Mode: RO},
			{Dst: "/etc/shadow", Mode: MaskFile},
			{Dst: "/etc/ssh", Mode: Tmpfs, Perms: 0o755},
			{Dst: "/proc", Mode: Proc},
			{Dst: "/dev", Mode: Dev},
			{Dst: "/tmp", Mode: Tmpfs, Perms: 0o1777},
			{Dst: "/run", Mode: Tmpfs},
		},
		Binds: []Bind{
			{Src: "/data/wt/abc", Dst: "/data/wt/abc", Mode: RW},
			// read-only file inside the writable worktree: must stay after it
			{Src: "/data/wt/abc/.git", Dst: "/data/wt/abc/.git", Mode: RO},
			{Src: "/root/.pyenv", Dst: "/root/.pyenv", Mode: RO},
			{Dst: "/data/wt/abc/.cache", Mode: Dir, Perms: 0o700},
		},
		Env:     []string{"PATH=/usr/bin", "ANTHROPIC_API_KEY=sk-secret"},
		Dir:     "/data/wt/abc",
		Network: "off",
		Argv:    []string{"claude", "-p", "fix it"},
		Self:    "/usr/local/bin/git-agent",
	}
	want := `--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try
--unshare-net
--cap-drop ALL --disable-userns --die-with-parent --new-session
--ro-bind /usr /usr
--symlink usr/bin /bin
--ro-bind /etc /etc
--ro-bind /dev/null /etc/shadow
--perms 0755 --tmpfs /etc/ssh
--proc /proc
--dev /dev
--perms 1777 --tmpfs /tmp
--tmpfs /run
--bind /data/wt/abc /data/wt/abc
--ro-bind /data/wt/abc/.git /data/wt/abc/.git
--ro-bind /root/.pyenv /root/.pyenv
--perms 0700 --dir /data/wt/abc/.cache
--ro-bind /usr/local/bin/git-agent /run/git-agent/bin/git-agent
--chdir /data/wt/abc
-- /run/git-agent/bin/git-agent __sandbox-init -- claude -p fix it`
	got, err := BwrapArgs(p)
	if err != nil {
		t.Fatal(err)
	}
	if g, w := strings.Join(got, " "), strings.Join(strings.Fields(want), " "); g != w {
		t.Errorf("BwrapArgs:\n got %s\nwant %s", g, w)
	}
	for _, a := range got {
		if strings.Contains(a, "sk-secret") {
			t.Errorf("environment value in argv: %q", a)
		}
	}

	p.Network = "on"
	got, _ = BwrapArgs(p)
	for _, a := range got {
		if a == "--unshare-net" {
			t.Errorf("network on: --unshare-net present")
		}
	}
	if !slices.Contains(got, scopeFlag) {
		t.Errorf("network on: the init shim is not asked for %s: %q", scopeFlag, got)
	}
}

// TestBwrapArgsProxy: a host list's policy has its own network namespace,
// binds the proxy socket read-only after git-agent itself and asks the
// init shim for the bridge.
func TestBwrapArgsProxy(t *testing.T) {
	p := Policy{
		System:  []Bind{{Src: "/usr", Dst: "/usr", Mode: RO}},
		Network: "off", Proxy: "/repo/.git/agent/runs/x/proxy.sock", Argv: []string{"sh"}, Self: "/bin/git-agent",
	}
	got, err := BwrapArgs(p)
	if err != nil {
		t.Fatal(err)
	}
	want := "--unshare-user --unshare-pid --unshare-ipc --unshare-uts --unshare-cgroup-try --unshare-net" +
		" --cap-drop ALL --disable-userns --die-with-parent --new-session --ro-bind /usr /usr" +
		" --ro-bind /bin/git-agent /run/git-agent/bin/git-agent" +
		" --ro-bind /repo/.git/agent/runs/x/proxy.sock /run/git-agent/proxy.sock" +
		" -- /run/git-agent/bin/git-agent __sandbox-init --net-bridge -- sh"
	if g := strings.Join(got, " "); g != want {
		t.Errorf("BwrapArgs:\n got %s\nwant %s", g, want)
	}
}

func TestProxyEnv(t *testing.T) {
	got := strings.Join(ProxyEnv(), " ")
	want := "HTTP_PROXY=http://127.0.0.1:3128 http_proxy=http://127.0.0.1:3128 HTTPS_PROXY=http://127.0.0.1:3128" +
		" https_proxy=http://127.0.0.1:3128 ALL_PROXY=http://127.0.0.1:3128 all_proxy=http://127.0.0.1:3128 NO_PROXY= no_proxy="
	if got != want {
		t.Errorf("ProxyEnv() = %s\nwant %s", got, want)
	}
}

func TestBwrapArgsErrors(t *testing.T) {
	ok := Policy{
		System:  []Bind{{Src: "/usr", Dst: "/usr", Mode: RO}},
		Network: "off", Argv: []string{"sh"}, Self: "/bin/git-agent",
	}
	if _, err := BwrapArgs(ok); err != nil {
		t.Fatalf("valid policy: %v", err)
	}
	tests := []struct {
		name string
		edit func(p *Policy)
	}{
		{"no argv", func(p *Policy) { p.Argv = nil }},
		{"no system view", func(p *Policy) { p.System = nil }},
		{"bad network", func(p *Policy) { p.Network = "example.com" }},
		{"empty network", func(p *Policy) { p.Network = "" }},
		{"proxy with network on", func(p *Policy) { p.Network, p.Proxy = "on", "/run/x/proxy.sock" }},
		{"relative proxy", func(p *Policy) { p.Proxy = "proxy.sock" }},
		{"relative self", func(p *Policy) { p.Self = "git-agent" }},
		{"relative dir", func(p *Policy) { p.Dir = "work" }},
		{"relative src", func(p *Policy) { p.Binds = []Bind{{Src: "x", Dst: "/x", Mode: RO}} }},
		{"unclean dst", func(p *Policy) { p.Binds = []Bind{{Src: "/x", Dst: "/a/../etc", Mode: RW}} }},
		{"empty dst", func(p *Policy) { p.Binds = []Bind{{Mode: Tmpfs}} }},
		{"empty symlink target", func(p *Policy) { p.Binds = []Bind{{Dst: "/x", Mode: Symlink}} }},
		{"unknown mode", func(p *Policy) { p.Binds = []Bind{{Src: "/x", Dst: "/x", Mode: Mode(99)}} }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := ok
			tc.edit(&p)
			if args, err := BwrapArgs(p); err == nil {
				t.Errorf("accepted: %q", args)
			}
		})
	}
}

func TestSystemBindsOrder(t *testing.T) {
	b := SystemBinds()
	idx := map[string]int{}
	for i, x := range b {
		idx[x.Dst] = i
	}
	for _, d := range []string{"/usr", "/etc", "/proc", "/dev", "/tmp", "/run", "/root", "/home", "/var/tmp"} {
		if _, ok := idx[d]; !ok {
			t.Errorf("SystemBinds lacks %s", d)
		}
	}
	if idx["/var"] > idx["/var/tmp"] || idx["/dev"] > idx["/dev/shm"] {
		t.Errorf("a parent is mounted after its child: %v", b)
	}
	for _, x := range b {
		if under(x.Dst, "/etc") && x.Dst != "/etc" && idx[x.Dst] < idx["/etc"] {
			t.Errorf("mask %s comes before /etc", x.Dst)
		}
		if x.Mode == RW {
			t.Errorf("system view has a writable bind: %v", x)
		}
	}
	if _, err := BwrapArgs(Policy{System: b, Network: "off", Argv: []string{"sh"}, Self: "/x"}); err != nil {
		t.Errorf("SystemBinds does not make valid arguments: %v", err)
	}
}
