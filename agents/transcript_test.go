package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The transcripts in testdata are hand-made from the documented real
// formats (Claude Code's session JSONL, Codex CLI's rollout JSONL), not
// recorded from the CLIs: no model API is reachable here.

// home lays out a run HOME with the given files (relative path → content).
func home(t *testing.T, files map[string]string) string {
	t.Helper()
	h := t.TempDir()
	for rel, content := range files {
		p := filepath.Join(h, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return h
}

func testdata(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

const (
	claudePath = ".claude/projects/-work-repo/95e6f011-ec33-4b37-91ad-5d242b40ae3d.jsonl"
	codexPath  = ".codex/sessions/2025/10/29/rollout-2025-10-29T00-59-38-019a2d7a.jsonl"
)

func TestImportClaude(t *testing.T) {
	h := home(t, map[string]string{claudePath: testdata(t, "claude/session.jsonl")})
	got := Import(h, &Cursor{})
	want := []Call{
		{Time: "2026-01-20T11:57:19.200Z", Tool: "Bash", Summary: "go test ./...", Rationale: "I'll run the tests first to see what fails."},
		{Time: "2026-01-20T11:57:23.000Z", Tool: "Edit", Summary: "/work/repo/add.go", Rationale: "Add returns a-b;\nit should return a+b."},
		{Time: "2026-01-20T11:57:23.000Z", Tool: "Bash", Summary: "go test ./... echo done", Rationale: ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Import =\n%#v\nwant\n%#v", got, want)
	}
	for _, c := range got {
		if strings.Contains(c.Rationale, "secret chain of thought") {
			t.Fatal("thinking blocks must not become rationale")
		}
	}
}

func TestImportCodex(t *testing.T) {
	h := home(t, map[string]string{codexPath: testdata(t, "codex/rollout.jsonl")})
	got := Import(h, &Cursor{})
	if len(got) != 2 {
		t.Fatalf("Import = %#v, want 2 calls", got)
	}
	if got[0].Tool != "shell" || got[0].Summary != "go test ./..." || got[0].Rationale != "**Running the tests**" || got[0].Time != "2025-10-29T00:59:39.644Z" {
		t.Errorf("call 0 = %#v", got[0])
	}
	if got[1].Tool != "apply_patch" || !strings.HasPrefix(got[1].Summary, "*** Begin Patch *** Update File: add.go") || got[1].Rationale != "Add subtracts; fixing it." {
		t.Errorf("call 1 = %#v", got[1])
	}
}

func TestImportIncremental(t *testing.T) {
	lines := strings.SplitAfter(testdata(t, "claude/session.jsonl"), "\n")
	// Attempt 1 wrote up to the first tool call and half a line.
	first := strings.Join(lines[:5], "") + lines[5][:20]
	h := home(t, map[string]string{claudePath: first})
	var cur Cursor
	if got := Import(h, &cur); len(got) != 1 || got[0].Tool != "Bash" {
		t.Fatalf("first import = %#v", got)
	}
	if got := Import(h, &cur); len(got) != 0 {
		t.Fatalf("nothing new, yet import = %#v", got)
	}
	// The session goes on (a repair continues the conversation).
	if err := os.WriteFile(filepath.Join(h, claudePath), []byte(strings.Join(lines, "")), 0o600); err != nil {
		t.Fatal(err)
	}
	got := Import(h, &cur)
	if len(got) != 2 || got[0].Tool != "Edit" || got[1].Tool != "Bash" {
		t.Fatalf("second import = %#v", got)
	}
}

func TestImportRefusesSymlinksAndOddFiles(t *testing.T) {
	outside := home(t, map[string]string{"secret/session.jsonl": testdata(t, "claude/session.jsonl"),
		"rollout.jsonl": testdata(t, "codex/rollout.jsonl")})
	tests := []struct {
		name  string
		setup func(h string) error
	}{
		{"session file is a symlink", func(h string) error {
			os.MkdirAll(filepath.Join(h, ".claude/projects/p"), 0o700)
			return os.Symlink(filepath.Join(outside, "secret/session.jsonl"), filepath.Join(h, ".claude/projects/p/s.jsonl"))
		}},
		{"project dir is a symlink", func(h string) error {
			os.MkdirAll(filepath.Join(h, ".claude/projects"), 0o700)
			return os.Symlink(filepath.Join(outside, "secret"), filepath.Join(h, ".claude/projects/p"))
		}},
		{".claude is a symlink", func(h string) error {
			os.MkdirAll(filepath.Join(outside, "c/projects/p"), 0o700)
			os.Link(filepath.Join(outside, "secret/session.jsonl"), filepath.Join(outside, "c/projects/p/s.jsonl"))
			return os.Symlink(filepath.Join(outside, "c"), filepath.Join(h, ".claude"))
		}},
		{"codex day dir is a symlink", func(h string) error {
			os.MkdirAll(filepath.Join(h, ".codex/sessions/2025/10"), 0o700)
			os.MkdirAll(filepath.Join(outside, "day"), 0o700)
			os.Link(filepath.Join(outside, "rollout.jsonl"), filepath.Join(outside, "day/rollout-x.jsonl"))
			return os.Symlink(filepath.Join(outside, "day"), filepath.Join(h, ".codex/sessions/2025/10/29"))
		}},
		{"session file is a FIFO", func(h string) error {
			os.MkdirAll(filepath.Join(h, ".claude/projects/p"), 0o700)
			return unix.Mkfifo(filepath.Join(h, ".claude/projects/p/s.jsonl"), 0o600)
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := t.TempDir()
			if err := tt.setup(h); err != nil {
				t.Fatal(err)
			}
			if got := Import(h, &Cursor{}); len(got) != 0 {
				t.Fatalf("Import read through it: %#v", got)
			}
		})
	}
	// HOME itself a symlink: nothing.
	link := filepath.Join(t.TempDir(), "home")
	os.Symlink(home(t, map[string]string{claudePath: testdata(t, "claude/session.jsonl")}), link)
	if got := Import(link, &Cursor{}); len(got) != 0 {
		t.Fatalf("Import followed a symlinked HOME: %#v", got)
	}
}

func TestImportBounds(t *testing.T) {
	long := `{"type":"assistant","message":{"content":[{"type":"text","text":"` + strings.Repeat("why ", 5000) +
		`"},{"type":"tool_use","name":"Bash","input":{"command":"` + strings.Repeat("x", 5000) + `"}}]}}` + "\n"
	huge := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Huge","input":{"command":"` + strings.Repeat("y", maxLine) + `"}}]}}` + "\n"
	after := `{"type":"assistant","message":{"content":[{"type":"tool_use","name":"After","input":{"command":"ls"}}]}}` + "\n"
	h := home(t, map[string]string{claudePath: long + huge + after})
	got := Import(h, &Cursor{})
	if len(got) != 2 || got[0].Tool != "Bash" || got[1].Tool != "After" {
		t.Fatalf("Import = %d calls, want Bash and After (the over-long line skipped)", len(got))
	}
	if len(got[0].Rationale) > MaxRationale+len("…") || len(got[0].Summary) > MaxSummary+len("…") {
		t.Fatalf("unbounded: rationale %d, summary %d bytes", len(got[0].Rationale), len(got[0].Summary))
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"command":"go test ./..."}`, "go test ./..."},
		{`{"command":["bash","-lc","make\ntest"]}`, "make test"},
		{`{"command":["git","status"]}`, "git status"},
		{`{"file_path":"/a/b.go","content":"x"}`, "/a/b.go"},
		{`{"pattern":"TODO","path":""}`, "TODO"},
		{`{"todos":[1,2]}`, `{"todos":[1,2]}`},
		{`"plain"`, "plain"},
	}
	for _, tt := range tests {
		if got := Summarize([]byte(tt.in)); got != tt.want {
			t.Errorf("Summarize(%s) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
