package run

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/notes"
	"github.com/git-agent/git-agent/sandbox"
	"github.com/git-agent/git-agent/verify"
)

func TestMaxAttempts(t *testing.T) {
	tests := []struct {
		flag, cfg, want int
	}{
		{0, 0, config.DefaultMaxAttempts},
		{0, 5, 5},
		{2, 5, 2},
		{1, 0, 1},
		{1000, 0, config.MaxAttemptsLimit},
	}
	for _, tt := range tests {
		j := &job{opts: Options{MaxAttempts: tt.flag}, cfg: &config.Config{Verify: config.Verify{MaxAttempts: tt.cfg}}}
		if got := j.maxAttempts(); got != tt.want {
			t.Errorf("flag %d, config %d: maxAttempts = %d, want %d", tt.flag, tt.cfg, got, tt.want)
		}
	}
}

func TestRepairArgv(t *testing.T) {
	tool := config.Tool{Command: []string{"claude"}, Prompt: []string{"-p", "{prompt}"}, Repair: []string{"--continue", "-p", "{prompt}"}}
	got := repairArgv(tool, "claude", []string{"--model", "x"}, "fix check t")
	want := []string{"claude", "--continue", "-p", "fix check t", "--model", "x"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("repairArgv = %q, want %q", got, want)
	}
}

func TestWithRepair(t *testing.T) {
	tests := []struct {
		name     string
		tool     config.Tool
		feedback string
		want     []string
		bound    bool
	}{
		{"first attempt: unchanged", config.Tool{Repair: []string{"{prompt}"}}, "", []string{"agent", "task"}, false},
		{"no template: same argv, feedback file", config.Tool{}, "/rt/feedback-2.txt", []string{"agent", "task"}, true},
		{"template", config.Tool{Repair: []string{"--again", "{prompt}"}}, "/rt/feedback-2.txt", []string{"agent", "--again", "PROMPT"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			j := &job{tool: tt.tool, feedback: tt.feedback, repairPrompt: "PROMPT"}
			v, argv := j.withRepair(view{}, []string{"agent", "task"})
			if !reflect.DeepEqual(argv, tt.want) {
				t.Fatalf("argv = %q, want %q", argv, tt.want)
			}
			bound := len(v.extra) == 1 && v.extra[0].Src == tt.feedback && v.extra[0].Mode == sandbox.RO
			hasEnv := strings.Contains(strings.Join(v.env, "\n"), "GIT_AGENT_FEEDBACK="+tt.feedback)
			if bound != tt.bound || hasEnv != tt.bound {
				t.Fatalf("feedback bound read-only %v, in env %v; want %v", bound, hasEnv, tt.bound)
			}
		})
	}
}

func TestWriteStory(t *testing.T) {
	d := func(time, src string, attempt int, dec, why, tool string) Entry {
		return Entry{Time: time, Commit: "c" + string(rune('0'+attempt)), Decision: &notes.Decision{Time: time, Run: "r1", Source: src, Attempt: attempt, Decision: dec, Rationale: why, Tool: tool}}
	}
	o := func(time string, attempt int, passed bool, halted string, checks ...verify.CheckResult) Entry {
		return Entry{Time: time, Commit: "c" + string(rune('0'+attempt)), Outcome: &verify.Outcome{Time: time, Run: "r1", Attempt: attempt, Commit: "c" + string(rune('0'+attempt)), Passed: passed, Halted: halted, Checks: checks}}
	}
	entries := []Entry{
		d("2026-01-01T00:00:01.000000000Z", "host", 1, "start attempt 1", "", ""),
		d("2026-01-01T00:00:02.000000000Z", "agent", 1, "go test", "I test first\x1b[2J", "Bash"),
		o("2026-01-01T00:00:03.000000000Z", 1, false, "", verify.CheckResult{Name: "test", Command: "go test", ExitCode: 1, DurationMS: 1500, OutputTail: "FAIL: TestX\n"},
			verify.CheckResult{Name: "lint", Command: "vet", ExitCode: -1, Skipped: true}),
		d("2026-01-01T00:00:04.000000000Z", "host", 1, "attempt 1 verdict: failed", "", ""),
		d("2026-01-01T00:00:05.000000000Z", "host", 2, "start attempt 2", "", ""),
		o("2026-01-01T00:00:06.000000000Z", 2, false, "no progress", verify.CheckResult{Name: "hang", Command: "sleep", TimedOut: true, ExitCode: -1, DurationMS: 61000}),
	}
	var b bytes.Buffer
	WriteStory(&b, entries)
	got := b.String()
	for _, want := range []string{
		"run r1, attempt 1 (c1)\n  2026-01-01 00:00:01  host   start attempt 1\n  2026-01-01 00:00:02  agent  [Bash] go test\n        I test first\n  2026-01-01 00:00:04  host   attempt 1 verdict: failed\noutcome of attempt 1 on c1: failed",
		"  ✗ test                 1.5s  go test (exit 1)\n      | FAIL: TestX\n",
		"  - lint                  0ms  vet (skipped)\n",
		"\nrun r1, attempt 2 (c2)\n",
		"outcome of attempt 2 on c2: halted: no progress",
		"  ✗ hang                1m01s  sleep (timed out)\n",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("story lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "\x1b") {
		t.Error("story contains an escape")
	}
}
