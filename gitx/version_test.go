package gitx

import "testing"

func TestParseVersion(t *testing.T) {
	tests := []struct {
		in           string
		major, minor int
		ok           bool
	}{
		{"git version 2.39.5", 2, 39, true},
		{"git version 2.39.5\n", 2, 39, true},
		{"2.45.1.windows.1", 2, 45, true},
		{"git version 2.45.1.windows.1", 2, 45, true},
		{"git version 2.39.3 (Apple Git-146)", 2, 39, true},
		{"git version 3.0.0", 3, 0, true},
		{"git version 2.38", 2, 38, true},
		{"garbage", 0, 0, false},
		{"", 0, 0, false},
		{"git version ", 0, 0, false},
		{"git version two.thirty", 0, 0, false},
	}
	for _, tt := range tests {
		major, minor, ok := ParseVersion(tt.in)
		if major != tt.major || minor != tt.minor || ok != tt.ok {
			t.Errorf("ParseVersion(%q) = %d, %d, %v; want %d, %d, %v", tt.in, major, minor, ok, tt.major, tt.minor, tt.ok)
		}
	}
}

func TestIsHex(t *testing.T) {
	sha1 := "0123456789abcdef0123456789abcdef01234567"
	sha256 := sha1 + "89abcdef0123456789abcdef"
	tests := []struct {
		in   string
		want bool
	}{
		{sha1, true},
		{sha256, true},
		{"", false},
		{sha1[:39], false},
		{sha1 + "0", false},
		{sha256[:63], false},
		{sha256 + "0", false},
		{"0123456789ABCDEF0123456789abcdef01234567", false},
		{"g123456789abcdef0123456789abcdef01234567", false},
		{sha1 + "\n", false},
		{" " + sha1, false},
		{"HEAD", false},
		{"-" + sha1[1:], false},
	}
	for _, tt := range tests {
		if got := IsHex(tt.in); got != tt.want {
			t.Errorf("IsHex(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
