package refs

import (
	"bytes"
	"crypto/rand"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNewIDShapeAndOrder(t *testing.T) {
	base := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		name    string
		t       time.Time
		entropy []byte
		want    string
	}{
		{"epoch", time.Unix(0, 0), []byte{0, 1, 2, 3}, "000000000" + "0123"},
		{"before epoch clamps", time.Unix(-5, 0), []byte{10, 11, 12, 13}, "000000000" + "abcd"},
		{"rejects bytes >= 252", time.Unix(0, 0), []byte{255, 35, 36, 37, 38}, "000000000" + "z012"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewID(tt.t, bytes.NewReader(tt.entropy))
			if got != tt.want {
				t.Errorf("NewID = %q, want %q", got, tt.want)
			}
		})
	}
	var ids []string
	for i := range 200 {
		id := NewID(base.Add(time.Duration(i)*time.Millisecond*7919), rand.Reader)
		if len(id) != 13 || !ValidID(id) {
			t.Fatalf("bad id %q", id)
		}
		ids = append(ids, id)
	}
	if !slices.IsSorted(ids) {
		t.Errorf("ids of increasing times do not sort: %v", ids[:5])
	}
	// Far future still fits 9 digits.
	if id := NewID(time.Date(3000, 1, 1, 0, 0, 0, 0, time.UTC), nil); len(id) != 13 {
		t.Errorf("year 3000: %q", id)
	}
	// Failing entropy falls back to crypto/rand.
	if id := NewID(base, strings.NewReader("")); !ValidID(id) || len(id) != 13 {
		t.Errorf("empty entropy: %q", id)
	}
}

func TestValidID(t *testing.T) {
	tests := []struct {
		in   string
		want bool
	}{
		{"", false},
		{"a", true},
		{"0123456789abcdef", true},
		{"0123456789abcdefg", false},
		{"ABC", false},
		{"ab-c", false},
		{"ab/c", false},
		{"last", true},
	}
	for _, tt := range tests {
		if got := ValidID(tt.in); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRefNames(t *testing.T) {
	if got := RecordRef("abc"); got != "refs/agent/runs/abc" {
		t.Error(got)
	}
	if got := ResultRef("abc"); got != "refs/agent/results/abc" {
		t.Error(got)
	}
	if got := BranchRef(DefaultBranchPrefix, "abc"); got != "refs/heads/agent/abc" {
		t.Error(got)
	}
}
