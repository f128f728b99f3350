package sandbox

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

func TestInstallCommand(t *testing.T) {
	tests := []struct {
		release string
		root    bool
		want    string
	}{
		{"ID=debian\n", true, "apt-get install -y bubblewrap"},
		{"ID=ubuntu\nID_LIKE=debian\n", false, "sudo apt-get install -y bubblewrap"},
		{"ID=\"linuxmint\"\nID_LIKE=\"ubuntu debian\"\n", true, "apt-get install -y bubblewrap"},
		{"ID=fedora\n", true, "dnf install -y bubblewrap"},
		{"ID=rocky\nID_LIKE=\"rhel centos fedora\"\n", true, "dnf install -y bubblewrap"},
		{"ID=arch\n", true, "pacman -S --noconfirm bubblewrap"},
		{"ID=alpine\n", true, "apk add bubblewrap"},
		{"ID=opensuse-tumbleweed\nID_LIKE=\"opensuse suse\"\n", true, "zypper install -y bubblewrap"},
		{"ID=plan9\n", true, "install bubblewrap 0.8 or later with your distribution's package manager"},
	}
	for _, tc := range tests {
		f := filepath.Join(t.TempDir(), "os-release")
		os.WriteFile(f, []byte(tc.release), 0o644)
		if got := installCommand(readOSRelease(f), tc.root); got != tc.want {
			t.Errorf("%q: got %q, want %q", tc.release, got, tc.want)
		}
	}
	if got := readOSRelease("/nonexistent"); !slices.Equal(got, nil) {
		t.Errorf("missing os-release: %q", got)
	}
}

func TestBwrapReason(t *testing.T) {
	tests := []struct{ stderr, want string }{
		{"bwrap: Can't find source path /x: No such file or directory\n", "Can't find source path /x: No such file or directory"},
		{"warning\nbwrap: setting up uid map: Permission denied\nother\n", "setting up uid map: Permission denied"},
		{"something odd\n", "something odd"},
		{"", "bwrap exited with status 1 before starting the command"},
	}
	for _, tc := range tests {
		if got := bwrapReason(tc.stderr, 1); got != tc.want {
			t.Errorf("bwrapReason(%q) = %q, want %q", tc.stderr, got, tc.want)
		}
	}
}
