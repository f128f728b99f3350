package sandbox

import (
	"reflect"
	"testing"
)

func TestDescribeView(t *testing.T) {
	p := Policy{
		System: []Bind{{Src: "/usr", Dst: "/usr", Mode: RO}, {Src: "usr/bin", Dst: "/bin", Mode: Symlink},
			{Dst: "/etc/shadow", Mode: MaskFile}, {Dst: "/proc", Mode: Proc}, {Dst: "/home", Mode: Tmpfs}},
		Binds: []Bind{{Src: "/w", Dst: "/w", Mode: RW}, {Src: "/r/gitfile", Dst: "/w/.git", Mode: RO}},
		Self:  "/bin/git-agent",
	}
	want := View{
		ReadOnly:  []string{"/usr", "/w/.git (from /r/gitfile)", "/bin/git-agent"},
		ReadWrite: []string{"/w"},
		Hidden:    []string{"/etc/shadow", "/home"},
	}
	if got := DescribeView(p); !reflect.DeepEqual(got, want) {
		t.Errorf("got %+v\nwant %+v", got, want)
	}
}
