package verify

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestRepairPrompt(t *testing.T) {
	many := ""
	for i := 1; i <= 100; i++ {
		many += fmt.Sprintf("line %03d\n", i)
	}
	tests := []struct {
		name    string
		results []CheckResult
		exit    int
		want    []string
		notWant []string
	}{
		{"failing check named with command, exit code and output",
			[]CheckResult{{Name: "build", Command: "go build ./...", OutputTail: "ok\n"},
				{Name: "test", Command: "go test ./...", ExitCode: 1, OutputTail: "--- FAIL: TestAdd\n    add_test.go:9: got 3, want 4\nFAIL\n"},
				{Name: "lint", Command: "golangci-lint run", ExitCode: -1, Skipped: true}},
			0,
			[]string{"repair attempt 2 of 3", `check "test" failed`, "command: go test ./...", "exit code: 1", "add_test.go:9: got 3, want 4"},
			[]string{"lint", "build"}},
		{"timed out", []CheckResult{{Name: "hang", Command: "sleep 1000", ExitCode: -1, Signal: "SIGKILL", TimedOut: true, DurationMS: 1500}},
			0, []string{"timed out after 1500 ms"}, []string{"exit code:"}},
		{"signal", []CheckResult{{Name: "seg", Command: "./crash", ExitCode: 139, Signal: "SIGSEGV"}},
			0, []string{"killed by SIGSEGV (exit code 139)"}, nil},
		{"no output", []CheckResult{{Name: "t", Command: "false", ExitCode: 1}},
			0, []string{"it printed nothing"}, []string{"last 40 lines"}},
		{"only the last lines", []CheckResult{{Name: "t", Command: "t", ExitCode: 2, OutputTail: many}},
			0, []string{"line 061\n", "line 100"}, []string{"line 060\n"}},
		{"control characters stripped", []CheckResult{{Name: "t\x1b[2J", Command: "t", ExitCode: 1, OutputTail: "red \x1b[31mERR\x1b[0m\r\n\x07"}},
			0, []string{"red ERR"}, []string{"\x1b", "\x07", "\r"}},
		{"checks passed, agent failed", []CheckResult{{Name: "t", Command: "true"}}, 7,
			[]string{"exited with status 7"}, []string{"failed on"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := RepairPrompt(2, 3, tt.results, tt.exit)
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("prompt lacks %q:\n%s", w, got)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(got, w) {
					t.Errorf("prompt has %q:\n%s", w, got)
				}
			}
			if len(got) > MaxPromptBytes {
				t.Errorf("prompt is %d bytes", len(got))
			}
		})
	}
}

func TestRepairPromptBounded(t *testing.T) {
	// Long lines of multi-byte runes: the prompt stays within the bound, is
	// valid UTF-8, keeps the end of the output and the check's identity.
	line := strings.Repeat("é", 2000) + "\n"
	tail := strings.Repeat(line, 39) + "LAST LINE\n"
	got := RepairPrompt(3, 5, []CheckResult{{Name: strings.Repeat("n", 5000), Command: strings.Repeat("c ", 5000), ExitCode: 1, OutputTail: tail}}, 0)
	if len(got) > MaxPromptBytes {
		t.Fatalf("prompt is %d bytes, want <= %d", len(got), MaxPromptBytes)
	}
	if !utf8.ValidString(got) {
		t.Fatal("prompt is not valid UTF-8")
	}
	for _, w := range []string{"repair attempt 3 of 5", "exit code: 1", "LAST LINE", "command: c c"} {
		if !strings.Contains(got, w) {
			t.Errorf("prompt lacks %q", w)
		}
	}
}

func TestRepeats(t *testing.T) {
	tests := []struct {
		name    string
		tree    string
		earlier []string
		attempt int
		repeats bool
	}{
		{"first attempt has nothing to repeat", "a", nil, 0, false},
		{"did nothing: same as the previous attempt", "a", []string{"a"}, 1, true},
		{"new tree each time", "c", []string{"a", "b"}, 0, false},
		{"flips back to an earlier rejected tree", "a", []string{"a", "b"}, 1, true},
		{"repeats the latest", "b", []string{"a", "b"}, 2, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			n, ok := Repeats(tt.tree, tt.earlier)
			if n != tt.attempt || ok != tt.repeats {
				t.Fatalf("Repeats(%q, %q) = %d, %v; want %d, %v", tt.tree, tt.earlier, n, ok, tt.attempt, tt.repeats)
			}
		})
	}
}
