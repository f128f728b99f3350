package jsonl

import (
	"testing"
	"time"
)

func TestTimeString(t *testing.T) {
	loc := time.FixedZone("X", 5*3600)
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC), "2024-01-02T03:04:05.000000000Z"},
		{time.Date(2024, 1, 2, 3, 4, 5, 120000000, time.UTC), "2024-01-02T03:04:05.120000000Z"},
		{time.Date(2024, 1, 2, 8, 4, 5, 1, loc), "2024-01-02T03:04:05.000000001Z"},
	}
	for _, tt := range tests {
		got := TimeString(tt.in)
		if got != tt.want {
			t.Errorf("TimeString(%v) = %q, want %q", tt.in, got, tt.want)
		}
		if len(got) != 30 {
			t.Errorf("len(%q) = %d, want 30", got, len(got))
		}
	}
	if a, b := TimeString(tests[0].in), TimeString(tests[1].in); !(a < b) {
		t.Errorf("byte order broken: %q !< %q", a, b)
	}
}
