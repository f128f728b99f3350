package sandbox

import (
	"os"
	"reflect"
	"strings"
	"testing"
)

func TestLandlockPlanFor(t *testing.T) {
	sys := []Bind{
		{Src: "/usr", Dst: "/usr", Mode: RO},
		{Src: "usr/bin", Dst: "/bin", Mode: Symlink},
		{Src: "/etc", Dst: "/etc", Mode: RO},
		{Dst: "/etc/shadow", Mode: MaskFile},
		{Dst: "/etc/ssh", Mode: Tmpfs},
		{Dst: "/proc", Mode: Proc},
		{Dst: "/dev", Mode: Dev},
		{Dst: "/dev/shm", Mode: Tmpfs},
		{Dst: "/home", Mode: Tmpfs},
		{Dst: "/tmp", Mode: Tmpfs},
	}
	devs := func() []LandlockRule {
		var r []LandlockRule
		for _, d := range landlockDevices() {
			r = append(r, LandlockRule{Path: d, Write: true, Ioctl: true})
		}
		return r
	}
	base := func(extra ...LandlockRule) []LandlockRule {
		r := []LandlockRule{{Path: "/usr"}, {Path: "/etc", Except: []string{"/etc/shadow", "/etc/ssh"}}, {Path: "/proc"},
			{Path: "/dev", Except: []string{"/dev/shm"}}}
		r = append(r, devs()...)
		r = append(r, extra...)
		return append(r, LandlockRule{Path: "/self/git-agent"}, LandlockRule{Path: "/t", Write: true})
	}
	tests := []struct {
		name    string
		binds   []Bind
		network string
		want    LandlockPlan
	}{
		{"run view: worktree, scratch, home; gitfile redirected", []Bind{
			{Src: "/home/u/repo/.git/objects", Dst: "/home/u/repo/.git/objects", Mode: RO},
			{Src: "/home/u/wt", Dst: "/home/u/wt", Mode: RW},
			{Src: "/rt/scratch", Dst: "/rt/scratch", Mode: RW},
			{Src: "/rt/gitfile", Dst: "/home/u/wt/.git", Mode: RO},
		}, "off", LandlockPlan{Network: "off", Enforce: true,
			Rules: base(LandlockRule{Path: "/home/u/repo/.git/objects"}, LandlockRule{Path: "/home/u/wt", Write: true},
				LandlockRule{Path: "/rt/scratch", Write: true}),
			Redirects: []Redirect{{Src: "/rt/gitfile", Dst: "/home/u/wt/.git"}}}},
		{"read-only .git inside a writable cwd is excepted", []Bind{
			{Src: "/w", Dst: "/w", Mode: RW},
			{Src: "/w/.git", Dst: "/w/.git", Mode: RO},
		}, "on", LandlockPlan{Network: "on", Enforce: true,
			Rules: base(LandlockRule{Path: "/w", Write: true, Except: []string{"/w/.git"}}, LandlockRule{Path: "/w/.git"})}},
		{"a remap other than .git is left out, never widened", []Bind{
			{Src: "/a", Dst: "/b", Mode: RW},
		}, "on", LandlockPlan{Network: "on", Enforce: true, Rules: base(), Unsupported: []string{"rw bind /a over /b"}}},
		{"a hidden dir drops the rules beneath it", []Bind{
			{Src: "/srv/x", Dst: "/srv/x", Mode: RW},
			{Dst: "/srv", Mode: Tmpfs},
		}, "on", LandlockPlan{Network: "on", Enforce: true, Rules: base()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := Policy{System: sys, Binds: tc.binds, Network: tc.network, Argv: []string{"sh"}, Self: "/self/git-agent"}
			got, err := LandlockPlanFor(p, "/t", true)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got  %+v\nwant %+v", got, tc.want)
			}
		})
	}
}

func TestLandlockPlanForErrors(t *testing.T) {
	ok := Policy{System: []Bind{{Src: "/usr", Dst: "/usr", Mode: RO}}, Network: "off", Argv: []string{"sh"}, Self: "/s"}
	for name, mut := range map[string]func(*Policy){
		"no argv":      func(p *Policy) { p.Argv = nil },
		"bad network":  func(p *Policy) { p.Network = "hosts" },
		"relative src": func(p *Policy) { p.Binds = []Bind{{Src: "rel", Dst: "/x", Mode: RO}} },
		"unclean dst":  func(p *Policy) { p.Binds = []Bind{{Src: "/x", Dst: "/x/../y", Mode: RW}} },
		"bad mode":     func(p *Policy) { p.Binds = []Bind{{Dst: "/x", Mode: Mode(99)}} },
		"no self":      func(p *Policy) { p.Self = "" },
	} {
		p := ok
		mut(&p)
		if _, err := LandlockPlanFor(p, "/t", true); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := LandlockPlanFor(ok, "/t", true); err != nil {
		t.Errorf("valid policy: %v", err)
	}
}

func TestLandlockEnv(t *testing.T) {
	got := LandlockEnv([]string{"PATH=/usr/bin", "TMPDIR=/tmp", "GIT_DIR=/evil", "A=1"}, "/t/bin", "/t/tmp", "/s", "/w")
	want := []string{"A=1", "PATH=/t/bin:/usr/bin", "TMPDIR=/t/tmp", "GIT_DIR=/s", "GIT_WORK_TREE=/w"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("got %q, want %q", got, want)
	}
	got = LandlockEnv([]string{"PATH=/usr/bin", "GIT_DIR=/evil"}, "/t/bin", "/t/tmp", "", "")
	for _, kv := range got {
		if strings.HasPrefix(kv, "GIT_DIR=") {
			t.Errorf("GIT_DIR kept without a redirect: %q", got)
		}
	}
}

func TestChooseSimulatedBlockedUserns(t *testing.T) {
	t.Setenv(TestBlockUsernsEnv, "1")
	if _, err := Choose(t.Context(), BackendBwrap); err == nil {
		t.Fatal("bwrap chosen although user namespaces are blocked")
	}
	c, err := Choose(t.Context(), BackendAuto)
	if LandlockABI() < 1 {
		if err == nil {
			t.Fatalf("auto without bwrap or Landlock chose %q", c.Backend)
		}
		return
	}
	if err != nil || c.Backend != BackendLandlock || c.Fallback == nil {
		t.Fatalf("auto = %+v, %v; want landlock with the probe's error", c, err)
	}
	if s := c.Summary(); !strings.Contains(s, "bwrap unavailable") || !strings.Contains(s, "Does NOT hold") {
		t.Errorf("summary %q does not say why and what is lost", s)
	}
	if _, err := Choose(t.Context(), "nope"); err == nil {
		t.Error("unknown backend accepted")
	}
	if c, _ := Choose(t.Context(), BackendNone); c.Backend != BackendNone || !strings.Contains(c.Summary(), "NO isolation") {
		t.Errorf("none = %+v %q", c, c.Summary())
	}
}

func TestLandlockSelfTest(t *testing.T) {
	dir := t.TempDir()
	for name, tc := range map[string]struct {
		status string
		ok     bool
	}{
		"clean":  {"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nNoNewPrivs:\t1\n", true},
		"cap":    {"CapPrm:\t0000000000000000\nCapEff:\t0000000000200000\nNoNewPrivs:\t1\n", false},
		"no nnp": {"CapPrm:\t0000000000000000\nCapEff:\t0000000000000000\nNoNewPrivs:\t0\n", false},
		"short":  {"CapPrm:\t0000000000000000\n", false},
	} {
		f := dir + "/" + strings.ReplaceAll(name, " ", "_")
		writeFile(t, f, tc.status)
		if err := landlockSelfTest(f); (err == nil) != tc.ok {
			t.Errorf("%s: err = %v, want ok=%v", name, err, tc.ok)
		}
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
