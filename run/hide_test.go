package run

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/sandbox"
)

func TestHideMasks(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	wt := filepath.Join(t.TempDir(), "wt")
	for _, d := range []string{wt + "/secrets", home + "/.aws"} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{wt + "/token", wt + "/real.txt", home + "/.netrc"} {
		if err := os.WriteFile(f, []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	_ = os.Symlink("real.txt", wt+"/link")
	_ = os.Symlink("/etc", wt+"/out")
	tests := []struct {
		hide     string
		want     []sandbox.Bind
		excludes []string
		warn     bool
	}{
		{"secrets", []sandbox.Bind{{Dst: wt + "/secrets", Mode: sandbox.Tmpfs, Perms: 0o755}}, []string{":(exclude,literal)secrets"}, false},
		{"token", []sandbox.Bind{{Dst: wt + "/token", Mode: sandbox.MaskFile}}, []string{":(exclude,literal)token"}, false},
		{"link", []sandbox.Bind{{Dst: wt + "/real.txt", Mode: sandbox.MaskFile}}, []string{":(exclude,literal)real.txt"}, false},
		{"out", nil, nil, true},
		{"missing", nil, nil, true},
		{"~/.aws", []sandbox.Bind{{Dst: home + "/.aws", Mode: sandbox.Tmpfs, Perms: 0o755}}, nil, false},
		{home + "/.netrc", []sandbox.Bind{{Dst: home + "/.netrc", Mode: sandbox.MaskFile}}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.hide, func(t *testing.T) {
			masks, ex, warn := hideMasks(config.Tool{Hide: []string{tt.hide}}, wt)
			if !slices.Equal(masks, tt.want) || !slices.Equal(ex, tt.excludes) || (len(warn) > 0) != tt.warn {
				t.Errorf("hideMasks(%q) = %v, %v, %v; want %v, %v, warning %v", tt.hide, masks, ex, warn, tt.want, tt.excludes, tt.warn)
			}
		})
	}
}

// A mask comes after the writable binds it sits in (bind order).
func TestPolicyMasksLast(t *testing.T) {
	mask := sandbox.Bind{Dst: "/w/secrets", Mode: sandbox.Tmpfs, Perms: 0o755}
	v := view{work: "/w", home: "/h", cache: "/c", gitDir: "/s", gitFile: "/g", files: []string{"/d"}, masks: []sandbox.Bind{mask}}
	p := v.policy("/self", "/w", []string{"true"})
	if got := p.Binds[len(p.Binds)-1]; got != mask {
		t.Errorf("last bind = %v, want the mask %v", got, mask)
	}
}
