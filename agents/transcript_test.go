package agents

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// The transcripts in testdata were recorded from the real CLIs, Claude Code
// 2.1.x (2.1.332) and Codex CLI 0.171 (0.171.0), run by git-agent against
// t/fakeapi in t/e2e_repair_test.go (GIT_AGENT_E2E_RECORD=<dir>), and
// minimized by dropping lines: each holds a first attempt (write, commit,
// "done") and the start of a repair attempt that continued the same session
// (the repair prompt, then a rationale and a call).

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
		{Time: "2026-11-30T02:33:42.012Z", Tool: "Write", Summary: "hello.txt", Rationale: "Writing the greeting."},
		{Time: "2026-11-30T02:33:42.217Z", Tool: "Bash", Summary: "git add hello.txt && git commit -qm 'agent: say hello'", Rationale: "Committing it."},
		// "done" ended attempt 1's turn; the repair prompt came after it.
		{Time: "2026-11-30T02:33:44.665Z", Tool: "Write", Summary: "hello.txt", Rationale: "The check says hello.txt has a typo; fixing it."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Import =\n%#v\nwant\n%#v", got, want)
	}
}

func TestImportClaudeBlocks(t *testing.T) {
	// Hand-made in the recorded shape: one line holding several blocks,
	// thinking among them (the fake API sends no thinking).
	line := `{"type":"assistant","timestamp":"2026-01-20T11:57:23.000Z","message":{"role":"assistant","content":[` +
		`{"type":"thinking","thinking":"secret chain of thought","signature":"x"},{"type":"text","text":"Add returns a-b;\nit should return a+b."},` +
		`{"type":"tool_use","id":"t2","name":"Edit","input":{"file_path":"/work/repo/add.go","old_string":"-","new_string":"+"}},` +
		`{"type":"tool_use","id":"t3","name":"Bash","input":{"command":"go test ./...\necho done"}}]}}` + "\n"
	got := Import(home(t, map[string]string{claudePath: line}), &Cursor{})
	want := []Call{
		{Time: "2026-01-20T11:57:23.000Z", Tool: "Edit", Summary: "/work/repo/add.go", Rationale: "Add returns a-b;\nit should return a+b."},
		{Time: "2026-01-20T11:57:23.000Z", Tool: "Bash", Summary: "go test ./... echo done", Rationale: ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Import =\n%#v\nwant\n%#v", got, want)
	}
}

func TestImportCodex(t *testing.T) {
	h := home(t, map[string]string{codexPath: testdata(t, "codex/rollout.jsonl")})
	got := Import(h, &Cursor{})
	want := []Call{
		{Time: "2026-11-30T02:33:46.753Z", Tool: "exec_command", Summary: `mkdir -p "$(dirname 'hello.txt')" && printf '%s' 'hello from the agnet ' > 'hello.txt'`, Rationale: "Writing the greeting."},
		{Time: "2026-11-30T02:33:46.838Z", Tool: "exec_command", Summary: "git add hello.txt && git commit -qm 'agent: say hello'", Rationale: "Committing it."},
		// "done" ended attempt 1's turn; the repair prompt came after it.
		{Time: "2026-11-30T02:33:48.254Z", Tool: "exec_command", Summary: `mkdir -p "$(dirname 'hello.txt')" && printf '%s' 'hello from the agent ' > 'hello.txt'`, Rationale: "The check says hello.txt has a typo; fixing it."},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Import =\n%#v\nwant\n%#v", got, want)
	}
}

func TestImportCodexCustomTool(t *testing.T) {
	// Hand-made in the recorded shape: a reasoning summary, then apply_patch
	// as a custom tool call (the fake API offers no such tool).
	lines := `{"timestamp":"2025-10-29T00:59:41.000Z","type":"response_item","payload":{"type":"reasoning","summary":[{"type":"summary_text","text":"Add subtracts; fixing it."}]}}` + "\n" +
		`{"timestamp":"2025-10-29T00:59:42.000Z","type":"response_item","payload":{"type":"custom_tool_call","name":"apply_patch","input":"*** Begin Patch\n*** Update File: add.go\n"}}` + "\n"
	got := Import(home(t, map[string]string{codexPath: lines}), &Cursor{})
	if len(got) != 1 || got[0].Tool != "apply_patch" || got[0].Summary != "*** Begin Patch *** Update File: add.go" || got[0].Rationale != "Add subtracts; fixing it." {
		t.Fatalf("Import = %#v", got)
	}
}

func TestImportIncremental(t *testing.T) {
	for _, tc := range []struct{ name, path, data string }{
		{"claude", claudePath, "claude/session.jsonl"},
		{"codex", codexPath, "codex/rollout.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			lines := strings.SplitAfter(testdata(t, tc.data), "\n")
			// Attempt 1 wrote up to its "done" and half of the next line.
			cut := 0
			for i, l := range lines {
				if strings.Contains(l, "git-agent: repair attempt 2") {
					cut = i
				}
			}
			h := home(t, map[string]string{tc.path: strings.Join(lines[:cut], "") + lines[cut][:20]})
			var cur Cursor
			if got := Import(h, &cur); len(got) != 2 || got[0].Rationale != "Writing the greeting." {
				t.Fatalf("first import = %#v", got)
			}
			if got := Import(h, &cur); len(got) != 0 {
				t.Fatalf("nothing new, yet import = %#v", got)
			}
			// The session goes on (the repair continues the conversation).
			if err := os.WriteFile(filepath.Join(h, tc.path), []byte(strings.Join(lines, "")), 0o600); err != nil {
				t.Fatal(err)
			}
			got := Import(h, &cur)
			if len(got) != 1 || got[0].Rationale != "The check says hello.txt has a typo; fixing it." {
				t.Fatalf("second import = %#v", got)
			}
		})
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
