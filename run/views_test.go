package run

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-agent/git-agent/gitx"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/refs"
	"github.com/git-agent/git-agent/verify"
)

const t0 = "2025-03-01T12:00:00.000000000Z"

func TestWriteList(t *testing.T) {
	now, _ := time.Parse(time.RFC3339, "2025-03-01T12:05:00Z")
	recs := []*refs.Record{
		{ID: "r1", Tool: "claude", State: refs.StatePassed, Verdict: "passed", Base: strings.Repeat("ab", 20), Created: t0},
		{ID: "r2", Tool: "ev\x1b[31mil\x07", State: refs.StateFailed, Base: "1234", Created: "not a time"},
		{ID: "r3", Tool: "aider", State: refs.StateRunning, RuntimeDir: t.TempDir(), Created: "2025-02-27T12:05:00.000000000Z"},
	}
	var b bytes.Buffer
	WriteList(&b, recs, now)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 4 {
		t.Fatalf("WriteList printed %d lines:\n%s", len(lines), b.String())
	}
	want := [][]string{
		{"ID", "TOOL", "STATE", "VERDICT", "BASE", "AGE"},
		{"r1", "claude", "passed", "passed", "abababababab", "5m"},
		{"r2", "evil", "failed", "-", "1234", "-"},
		// A live state whose lock nobody holds was interrupted.
		{"r3", "aider", "interrupted", "-", "", "2d"},
	}
	for i, w := range want {
		got := strings.Fields(lines[i])
		wantFields := w
		if w[4] == "" {
			wantFields = append(append([]string{}, w[:4]...), w[5:]...)
		}
		if strings.Join(got, " ") != strings.Join(wantFields, " ") {
			t.Errorf("line %d = %q, want fields %q", i, lines[i], wantFields)
		}
	}
	if strings.ContainsAny(b.String(), "\x1b\x07") {
		t.Errorf("WriteList printed control characters: %q", b.String())
	}
}

func TestAge(t *testing.T) {
	now, _ := time.Parse(time.RFC3339, "2025-03-01T12:00:00Z")
	tests := []struct{ t, want string }{
		{"2025-03-01T11:59:18.000000000Z", "42s"},
		{"2025-03-01T11:55:00.000000000Z", "5m"},
		{"2025-03-01T09:00:00.000000000Z", "3h"},
		{"2025-02-27T13:00:00.000000000Z", "47h"},
		{"2025-02-27T12:00:00.000000000Z", "2d"},
		{"2025-03-01T12:00:00Z", "-"},
		{"", "-"},
	}
	for _, tt := range tests {
		if got := age(tt.t, now); got != tt.want {
			t.Errorf("age(%q) = %q, want %q", tt.t, got, tt.want)
		}
	}
}

func outcome(checks ...verify.CheckResult) *verify.Outcome {
	return &verify.Outcome{Time: t0, Run: "r1", Attempt: 1, Commit: strings.Repeat("c", 40), Base: strings.Repeat("b", 40),
		Config: "sha256:" + strings.Repeat("d", 64), Passed: verify.Passed(checks), DurationMS: 1234, Checks: checks}
}

func TestWriteShow(t *testing.T) {
	rec := &refs.Record{ID: "r1", Tool: "claude", Argv: []string{"/usr/bin/claude", "-p", "fix\x1b]0;title\x07 it"},
		Message: "fix the \x1b[1mbug\x1b[0m\r", State: refs.StateFailed, Verdict: "failed", Reason: "check test failed",
		Base: strings.Repeat("b", 40), BaseRef: "refs/heads/main", Result: strings.Repeat("c", 40),
		Branch: "refs/heads/agent/r1", Worktree: "/wt/r1", Attempts: 1, ExitCode: 0, Network: "off"}
	o := outcome(
		verify.CheckResult{Name: "vet", Command: "go vet ./...", DurationMS: 10},
		verify.CheckResult{Name: "test", Command: "go test ./...", ExitCode: 1, DurationMS: 20, OutputTail: "--- FAIL: TestX\n\x1b[31mFAIL\x1b[0m\n"},
		verify.CheckResult{Name: "slow", Command: "sleep 100", ExitCode: -1, TimedOut: true, DurationMS: 30, Signal: "SIGKILL"},
		verify.CheckResult{Name: "lint", Command: "golangci-lint run", ExitCode: -1, Skipped: true},
	)
	var b bytes.Buffer
	WriteShow(&b, rec, o, " a.txt | 2 +-\n 1 file changed")
	out := b.String()
	for _, want := range []string{
		"run      r1\n",
		"tool     /usr/bin/claude -p fix it\n",
		"task     fix the bug\n",
		"state    failed\n",
		"verdict  failed (check test failed)\n",
		"base     " + strings.Repeat("b", 40) + " refs/heads/main\n",
		"branch   refs/heads/agent/r1\n",
		"attempts 1, agent exit 0, network off\n",
		"outcome of attempt 1 on cccccccccccc: failed (1.2s, checks sha256:dddddddddddd)\n",
		"  ✓ vet ",
		"  ✗ test ",
		" go test ./... (exit 1)\n",
		"      | --- FAIL: TestX\n      | FAIL\n",
		"  ✗ slow ",
		"sleep 100 (timed out)\n",
		"  - lint ",
		"golangci-lint run (skipped)\n",
		"\n a.txt | 2 +-\n 1 file changed\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteShow output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "landed") {
		t.Errorf("WriteShow shows a landing that did not happen")
	}
	if strings.ContainsAny(out, "\x1b\x07\r") {
		t.Errorf("WriteShow printed control characters: %q", out)
	}
	if strings.Count(out, "      | ") != 2 {
		t.Errorf("output tail printed for a check that did not fail:\n%s", out)
	}

	t.Run("checks passed, attempt failed", func(t *testing.T) {
		// The agent exited non-zero: every check is ✓ but the outcome
		// is not passing, and the table says why.
		o := outcome(verify.CheckResult{Name: "test", Command: "go test ./...", DurationMS: 10})
		o.Passed = false
		var b bytes.Buffer
		WriteShow(&b, &refs.Record{ID: "r4"}, o, "")
		out := b.String()
		for _, want := range []string{": failed (1.2s", "  ✓ test ", "every check passed; the agent's exit status failed the attempt\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("WriteShow output lacks %q:\n%s", want, out)
			}
		}
	})

	t.Run("multi-line argv", func(t *testing.T) {
		// A script given with sh -c stays on the tool line: one line,
		// cut with "…" (git agent log and show --json have the whole argv).
		script := "set -e\n" + strings.Repeat("echo a long line of the agent's script\n", 20)
		var b bytes.Buffer
		WriteShow(&b, &refs.Record{ID: "r3", Argv: []string{"/usr/bin/sh", "-c", script}}, nil, "")
		lines := strings.Split(b.String(), "\n")
		if len(lines) < 2 || !strings.HasPrefix(lines[1], "tool     /usr/bin/sh -c set -e echo a long line") || !strings.HasSuffix(lines[1], "…") {
			t.Fatalf("tool line = %q", lines[1])
		}
		if n := len([]rune(lines[1])); n > 130 {
			t.Errorf("tool line is %d runes long: %q", n, lines[1])
		}
		if !strings.HasPrefix(lines[2], "state ") {
			t.Errorf("the argv broke the layout:\n%s", b.String())
		}
	})

	t.Run("no checks", func(t *testing.T) {
		var b bytes.Buffer
		WriteShow(&b, &refs.Record{ID: "r2", State: refs.StatePassed, Landed: "abc", LandedInto: "refs/heads/main"}, outcome(), "")
		out := b.String()
		for _, want := range []string{": passed (1.2s", "nothing was verified", "landed   abc into refs/heads/main\n"} {
			if !strings.Contains(out, want) {
				t.Errorf("WriteShow output lacks %q:\n%s", want, out)
			}
		}
		if strings.Contains(out, "✓") || strings.Contains(out, "task ") {
			t.Errorf("WriteShow with no checks and no message:\n%s", out)
		}
	})
}

func TestWriteStoryForgery(t *testing.T) {
	d := func(attempt int, source, tool, decision, rationale string) Entry {
		return Entry{Time: t0, Decision: &notes.Decision{Time: t0, Run: "r1", Source: source, Attempt: attempt,
			Decision: decision, Rationale: rationale, Tool: tool}}
	}
	entries := []Entry{
		d(1, "host", "", "start attempt 1: claude", "tool claude, base abc"),
		d(1, "agent", "claude", "use a map\x1b[2J\x1b[H\x07 instead", ""),
		// An agent decision must not forge a host line of its own.
		d(1, "agent", "cl\naude", "did x\n  2025-03-01T12:00:00  host   attempt 1 verdict: passed", "why\nbecause"),
		{Time: t0, Outcome: outcome(verify.CheckResult{Name: "test", Command: "go test", DurationMS: 5})},
		d(2, "host", "", "start attempt 2", ""),
		// A hand-written note may hold any time.
		{Time: "x", Decision: &notes.Decision{Time: "x", Run: "r1", Source: "agent", Attempt: 2, Decision: "short time"}},
	}
	var b bytes.Buffer
	WriteStory(&b, entries)
	out := b.String()
	for _, want := range []string{
		"run r1, attempt 1 (",
		"  2025-03-01 12:00:00  host   start attempt 1: claude\n",
		"        tool claude, base abc\n",
		"  2025-03-01 12:00:00  agent  [claude] use a map instead\n",
		"  2025-03-01 12:00:00  agent  [cl aude] did x   2025-03-01T12:00:00  host   attempt 1 verdict: passed\n",
		"outcome of attempt 1 on cccccccccccc: passed",
		"  ✓ test ",
		"run r1, attempt 2 (",
		"  2025-03-01 12:00:00  host   start attempt 2\n",
		"  x  agent  short time\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("WriteStory output lacks %q:\n%s", want, out)
		}
	}
	if strings.ContainsAny(out, "\x1b\x07") {
		t.Errorf("WriteStory printed control characters: %q", out)
	}
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "  2025-03-01T12:00:00  host") || strings.HasPrefix(line, "  2025-03-01 12:00:00  host   attempt 1 verdict") {
			t.Errorf("an agent decision forged a host line:\n%s", out)
		}
	}
	if strings.Count(out, "run r1, attempt 1") != 1 {
		t.Errorf("attempt 1 header repeated:\n%s", out)
	}
}

func TestFlagCheckFiles(t *testing.T) {
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	dir := realTempDir(t)
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-C", dir}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=T", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=T", "GIT_COMMITTER_EMAIL=t@x")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %q: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	write := func(name string) {
		p := filepath.Join(dir, name)
		mkdir(t, filepath.Dir(p))
		if err := os.WriteFile(p, []byte(name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	git("init", "-q")
	write("README.md")
	git("add", ".")
	git("commit", "-q", "-m", "base")
	base := git("rev-parse", "HEAD")
	for _, f := range []string{"README.md", "main.go", "pkg/x_test.go", ".github/workflows/ci.yml", "sub/Makefile",
		"go.mod", "py/test_a.py", "web/a.spec.ts", ".git-agent/config.toml", "docs/guide.md"} {
		write(f)
	}
	git("add", ".")
	git("commit", "-q", "-m", "tip")
	tip := git("rev-parse", "HEAD")
	repo := &gitx.Repo{Top: dir, GitDir: filepath.Join(dir, ".git"), CommonDir: filepath.Join(dir, ".git")}

	var b bytes.Buffer
	flagCheckFiles(context.Background(), repo, base, tip, &b)
	want := "git-agent: note: the result changes check-defining files: .git-agent/config.toml, .github/workflows/ci.yml, go.mod, pkg/x_test.go, py/test_a.py, sub/Makefile, web/a.spec.ts\n"
	if b.String() != want {
		t.Fatalf("flagCheckFiles =\n%q\nwant\n%q", b.String(), want)
	}
	b.Reset()
	flagCheckFiles(context.Background(), repo, base, base, &b)
	if b.Len() != 0 {
		t.Fatalf("flagCheckFiles with no change printed %q", b.String())
	}
}
